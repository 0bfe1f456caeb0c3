package classify

import "testing"

// A hostile review of the feature reading of gone words (gone.go) and of
// the round-16 phrases: each test failed before its fix.

type goneCase struct {
	name   string
	status int
	body   string
	req    string
	model  string
	class  string
}

func runGone(t *testing.T, cases []goneCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v := Classify(Response{Status: c.status, Body: []byte(c.body), Request: []byte(c.req), Model: c.model})
			got := "ok"
			if v.Failed {
				got = v.Class.String()
			}
			if got != c.class {
				t.Errorf("class %s (evidence %q), want %s", got, v.Evidence, c.class)
			}
		})
	}
}

// TestRetiredModelByDisplayName: Google's real 404 for the retired
// gemini-pro-vision names the model by its display name, not its id and not
// with the word "model" before "has been deprecated" (issues:
// google-gemini-php/client#25, OthersideAI/self-operating-computer#204,
// ComfyUI-Gemini#36). The new feature reading (goneSubject finds no noun,
// namesModelBefore no "gemini-pro-vision") makes it unknown, and the
// Unknown phrase outranks Google's NOT_FOUND status and the 404 itself:
// the retired endpoint never cools and stays first for every request.
func TestRetiredModelByDisplayName(t *testing.T) {
	const msg = "Gemini 1.0 Pro Vision has been deprecated on July 12, 2024. Consider switching to different model, for example gemini-1.5-flash."
	req := `{"contents":[{"role":"user","parts":[{"text":"describe"}]}]}`
	runGone(t, []goneCase{
		{"gemini 404 NOT_FOUND, as sent", 404, `{ "error": { "code": 404, "message": "` + msg + `", "status": "NOT_FOUND" } }`, req, "gemini-pro-vision", "unavailable"},
		{"plain 404", 404, msg, req, "gemini-pro-vision", "unavailable"},
		{"anthropic-shaped not_found_error", 404, `{"type":"error","error":{"type":"not_found_error","message":"Claude Instant 1.2 has been deprecated. Please use claude-3-haiku."}}`, `{}`, "claude-instant-1.2", "unavailable"},
		{"relayed by a proxy's 502", 502, `Error code: 404 - {'error': {'code': 404, 'message': '` + msg + `', 'status': 'NOT_FOUND'}}`, req, "gemini-pro-vision", "unavailable"},
	})
}

// TestEscapedNewlineStartsASentence: sentenceStart, at an escaped newline
// ("\n" as two bytes, in a relay's quoted body), returns the index of the
// 'n', so the sentence's first word reads "nAPI" / "nEndpoint" and the
// noun is lost: the endpoint's retired API reads as a feature of the
// request (unknown) and never cools.
func TestEscapedNewlineStartsASentence(t *testing.T) {
	runGone(t, []goneCase{
		{"python-quoted relay 404", 404, `Error code: 404 - {'error': {'message': 'Retired.\nAPI v1 is no longer supported'}}`, `{}`, "m", "unavailable"},
		{"proxy 502 quoting it", 502, `Error code: 404 - {'error': {'message': 'Retired.\nEndpoint v1beta is no longer supported'}}`, `{}`, "m", "unavailable"},
		{"json text holding a literal backslash-n", 400, `{"error":{"message":"Retired.\\nEndpoint v1beta is no longer supported"}}`, `{}`, "m", "unavailable"},
	})
}

// TestClientTextNamesTheSubject: goneSubject and namesModelBefore read
// the words before "is deprecated" with no echo check, and split a
// snake_case name into words. So a request parameter or tool whose name
// holds a gone noun (service_tier, url_context, api_version) or Detour's
// model (a tool the client named "o3", or "o3-helper", to an o3 endpoint:
// a substring suffices) turns a feature of the request that is gone into
// the endpoint's model gone: unavailable, which cools the endpoint at
// once for unavailable_cooldown (24h) for everyone. The text that decides
// it is the client's.
func TestClientTextNamesTheSubject(t *testing.T) {
	runGone(t, []goneCase{
		{"request parameter service_tier", 400, `{"error":{"message":"The value of service_tier is deprecated"}}`, `{"service_tier":"flex"}`, "gpt-4o", "unknown"},
		{"request tool url_context", 400, `{"error":{"message":"The url_context tool is deprecated. Use the browse tool."}}`, `{"tools":[{"url_context":{}}]}`, "gemini-2.5-flash", "unknown"},
		{"client tool named as Detour's model", 400, `{"error":{"message":"Invalid 'tools[0].name': 'o3' is deprecated"}}`, `{"tools":[{"type":"function","function":{"name":"o3"}}]}`, "o3", "bad_request"},
		{"client tool name holding Detour's model", 400, `{"error":{"message":"Invalid 'tools[0].name': 'o3-helper' is deprecated"}}`, `{"tools":[{"type":"function","function":{"name":"o3-helper"}}]}`, "o3", "bad_request"},
	})
}

// TestMCPServerKeyIsTheClients: the new rule says an MCP server the
// request declared is the client's connector, "never the endpoint's key",
// but the account phrases outrank it: the connector's key rejected, in
// the new Baseten wording or the old, reads as auth, which pages the
// operator and cools the provider account for account_cooldown. A client
// points mcp_servers at a server of its own that answers so (its text is
// not in the request, so the echo check cannot see it). The 403 case was
// forbidden before; the 400 one was auth already.
func TestMCPServerKeyIsTheClients(t *testing.T) {
	req := `{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":"hi"}],"mcp_servers":[{"type":"url","url":"https://mcp.example.net/sse","name":"notion","authorization_token":"tok"}]}`
	runGone(t, []goneCase{
		{"403, new wording", 403, `{"type":"error","error":{"type":"permission_error","message":"MCP server 'notion' rejected the connection: please check the api key you provided"}}`, req, "claude-sonnet-4-5", "bad_request"},
		{"400, old wording", 400, `{"type":"error","error":{"type":"invalid_request_error","message":"Invalid API key for MCP server 'notion'"}}`, req, "claude-sonnet-4-5", "bad_request"},
	})
}

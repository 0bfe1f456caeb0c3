package classify

import (
	"net/http"
	"testing"
)

// A hostile review of the rules of corpus rounds 17 and 18: each test
// failed before its fix. Each case states the verdict it must not reach
// (account-scoped or endpoint-cooling) or the one it should reach.

type hostileCase struct {
	name   string
	status int
	header http.Header
	body   string
	req    string
	model  string
	want   Class // 0 with notAny set: only the classes in notAny are wrong
	notAny []Class
	stream bool // body is one SSE event of a stream
}

func runHostile(t *testing.T, cases []hostileCase) {
	t.Helper()
	for _, c := range cases {
		v := Classify(Response{Status: c.status, Header: c.header, Body: []byte(c.body), Request: []byte(c.req), Model: c.model, Stream: c.stream})
		if len(c.notAny) > 0 {
			for _, bad := range c.notAny {
				if v.Class == bad {
					t.Errorf("%s: got %s (%s), must not be %s", c.name, v.Class, v.Evidence, bad)
				}
			}
			continue
		}
		if !v.Failed || v.Class != c.want {
			t.Errorf("%s: got failed=%v %s (%s), want %s", c.name, v.Failed, v.Class, v.Evidence, c.want)
		}
	}
}

// TestPerKeyThrottleIsNotQuota: "key limit exceeded" (phrasesaccount.go,
// meant for OpenRouter's spend cap "Key limit exceeded (total limit)") is
// read anywhere, with no period or scope: a per-minute throttle of an API
// key, worded "API key limit exceeded (60/minute)" (Django REST framework's
// Throttled, a common front of self-hosted gateways) becomes quota at a
// 429: the account cools for account_cooldown and the operator is paged,
// for a limit that refills in a minute.
func TestPerKeyThrottleIsNotQuota(t *testing.T) {
	runHostile(t, []hostileCase{
		{name: "drf per-minute key throttle", status: 429, header: http.Header{"Retry-After": {"12"}},
			body: `{"detail":"API key limit exceeded (60/minute). Expected available in 12 seconds."}`,
			req:  `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, model: "m", want: RateLimited},
		{name: "per-key rate limit", status: 429,
			body: `{"error":{"message":"Rate limit exceeded: per-key limit exceeded (60 requests per minute). Try again in 20s."}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, model: "m", want: RateLimited},
	})
}

// TestFeatureOnlySupportedInIsNotGoneModel: "model is only supported
// in" (phrasesgone.go) has no subject check, unlike its siblings ("model …
// not supported", subject: true): a feature the request asks for that the
// model serves only through another API ("Audio output for this model is
// only supported in v1/responses") is read as the model gone, and any
// client that asks for the feature cools the endpoint for
// unavailable_cooldown, for everyone (docs/behaviour.md, "A gone model is
// the model, not a feature of it").
func TestFeatureOnlySupportedInIsNotGoneModel(t *testing.T) {
	runHostile(t, []hostileCase{
		{name: "audio output for this model", status: 400,
			body: `{"error":{"message":"Audio output for this model is only supported in v1/responses.","type":"invalid_request_error"}}`,
			req:  `{"model":"gpt-4o","modalities":["text","audio"],"messages":[{"role":"user","content":"hi"}]}`, model: "gpt-4o",
			notAny: []Class{Unavailable}},
		{name: "a tool for this model, as a 404", status: 404,
			body: `{"error":{"message":"The web_search tool for this model is only supported in v1/responses and not in v1/chat/completions.","type":"invalid_request_error"}}`,
			req:  `{"model":"gpt-4o","tools":[{"type":"web_search"}],"messages":[{"role":"user","content":"hi"}]}`, model: "gpt-4o",
			notAny: []Class{Unavailable}},
	})
}

// TestClientWordsAboutAnotherModelAreNoEvidence: a reading of "another
// model" words (since removed) read the whole text for "another/different/other/newer/new/latest model" with
// no echo check, so a client string the upstream quotes anywhere in the
// same message turns a feature deprecation (which alone reads unknown)
// into the model gone: unavailable, the endpoint cools at once. The
// deciding words are the client's: the echo rule is broken.
func TestClientWordsAboutAnotherModelAreNoEvidence(t *testing.T) {
	req := `{"model":"grok-4","user":"pick another model","search_parameters":{"mode":"on"},"messages":[{"role":"user","content":"hi"}]}`
	base := Classify(Response{Status: 400, Body: []byte(`{"error":{"message":"Live search is deprecated."}}`), Request: []byte(req), Model: "grok-4"})
	if base.Class != Unknown {
		t.Fatalf("baseline: got %s (%s), want unknown", base.Class, base.Evidence)
	}
	runHostile(t, []hostileCase{
		{name: "client's user string echoed after the deprecation", status: 400,
			body: `{"error":{"message":"Live search is deprecated. Invalid user: 'pick another model'"}}`,
			req:  req, model: "grok-4", want: Unknown},
		{name: "client's stop sequence on the next line", status: 400,
			body: `{"error":{"message":"Live search is deprecated and has been removed.\nstop.0: 'ask another model' is longer than 8 characters"}}`,
			req:  `{"model":"grok-4","stop":["ask another model"],"search_parameters":{"mode":"on"}}`, model: "grok-4",
			notAny: []Class{Unavailable}},
	})
}

// TestFeatureDeprecationBesideModelAdvice: the provider's own advice to
// pick another model, beside a deprecation whose subject is a feature of
// the request ("The functions parameter is deprecated … or a newer model",
// "Live search is deprecated. Please use a different model for this
// feature"), makes the feature's deprecation the model's: every request
// that uses the feature cools the endpoint. anotherModel is read from the
// whole text, not from the sentence whose subject it would name.
func TestFeatureDeprecationBesideModelAdvice(t *testing.T) {
	runHostile(t, []hostileCase{
		{name: "functions parameter, or a newer model", status: 400,
			body: `{"error":{"message":"The functions parameter is deprecated. Use tools instead, or a newer model."}}`,
			req:  `{"model":"gpt-4","functions":[{"name":"f","parameters":{}}],"messages":[{"role":"user","content":"hi"}]}`, model: "gpt-4",
			notAny: []Class{Unavailable}},
		{name: "live search, a different model for this feature", status: 400,
			body: `{"error":{"message":"Live search is deprecated. Please use a different model for this feature or switch to the Agent Tools API."}}`,
			req:  `{"model":"grok-4","search_parameters":{"mode":"on"},"messages":[{"role":"user","content":"hi"}]}`, model: "grok-4",
			notAny: []Class{Unavailable}},
	})
}

// TestTermsForAClientNamedModel: model_terms_required and "requires
// terms acceptance" decide forbidden even when the model whose terms are
// missing is one the client named in a nested member (Groq's
// compound_custom.models), not the model Detour sent. The same answer
// worded as model_not_found is the client's (clientmodel.go); forbidden
// stops the walk and, sent failure_threshold times in a row, cools the
// endpoint for everyone.
func TestTermsForAClientNamedModel(t *testing.T) {
	req := `{"model":"groq/compound","messages":[{"role":"user","content":"hi"}],"compound_custom":{"models":{"answering_model":"playai-tts"}}}`
	runHostile(t, []hostileCase{
		{name: "strong code, nested model", status: 400,
			body: "{\"error\":{\"message\":\"The model `playai-tts` requires terms acceptance. Please have the org admin accept the terms at https://console.groq.com/playground?model=playai-tts\",\"type\":\"invalid_request_error\",\"code\":\"model_terms_required\"}}",
			req:  req, model: "groq/compound", want: BadRequest},
		{name: "phrase only, nested model", status: 400,
			body: "{\"error\":{\"message\":\"The model `playai-tts` requires terms acceptance. Please have the org admin accept the terms at https://console.groq.com/playground?model=playai-tts\",\"type\":\"invalid_request_error\"}}",
			req:  req, model: "groq/compound", want: BadRequest},
	})
}

// TestClientCredentialWordingIsNotAuth: "authentication error" and
// "authentication is disabled" (phrasesaccount.go, round 18) are read as
// Detour's credential whatever credential the answer speaks of. Only the
// words "mcp server" protect a credential the client supplied; a request
// that carries its own credential for a data source (Azure On Your Data's
// data_sources[].parameters.authentication) or a remote connector worded
// otherwise pages the operator and cools the whole account, at will.
func TestClientCredentialWordingIsNotAuth(t *testing.T) {
	oyd := `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"data_sources":[{"type":"azure_search","parameters":{"endpoint":"https://s.search.windows.net","index_name":"i","authentication":{"type":"api_key","key":"bad"}}}]}`
	runHostile(t, []hostileCase{
		{name: "data source search key rejected", status: 400,
			body: `{"error":{"requestid":"r1","code":400,"message":"Invalid AzureCognitiveSearch configuration detected: Authentication error: the api key provided for the search service was rejected."}}`,
			req:  oyd, model: "gpt-4o", notAny: []Class{Auth, Quota}},
		{name: "data source key auth disabled", status: 400,
			body: `{"error":{"requestid":"r1","code":400,"message":"An error occurred when calling Azure Cognitive Search: Azure Search Error: 403, message='Key based authentication is disabled for this search service.'"}}`,
			req:  oyd, model: "gpt-4o", notAny: []Class{Auth, Quota}},
		{name: "remote connector not worded 'MCP server'", status: 400,
			body:  `{"type":"error","error":{"type":"invalid_request_error","message":"Connection to remote server 'notion' failed: authentication error (401)"}}`,
			req:   `{"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":"hi"}],"mcp_servers":[{"type":"url","url":"https://mcp.notion.com/mcp","name":"notion","authorization_token":"x"}]}`,
			model: "claude-sonnet-4-5", notAny: []Class{Auth, Quota}},
	})
}

// TestRoundEighteenOverreach: the round-18 overflow and refusal pairs
// have no anchor and outrank what decided before (lower severity: nothing
// account-scoped, but the walk and the client's answer change).
//   - "too many … bytes" takes a 429 per-minute byte throttle: overflow
//     cools nothing, so a throttled endpoint is not cooled and its
//     Retry-After is lost.
//   - "expected maxLength … actual" takes a schema check on a client's own
//     field (a tool name over 64): the client's bad input, which failed
//     everywhere and stopped, now walks the whole route as overflow (it was
//     bad_request, "malformed").
//   - "violated content … policy" (gap 16) takes a size or content-type
//     policy of a gateway: the client is told its content was refused on
//     policy grounds (x-should-retry: false, no failover).
//   - insufficientFunds is a substring test: a capacity code that names a
//     load balancer ("InsufficientLoadBalancerCapacity") is quota in a 503,
//     paging the operator and cooling the account.
func TestRoundEighteenOverreach(t *testing.T) {
	req := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		{name: "bytes per minute throttle", status: 429, header: http.Header{"Retry-After": {"30"}},
			body: `{"error":{"message":"Too many input bytes in the last minute; retry after 30s"}}`, req: req, model: "m", want: RateLimited},
		{name: "schema maxLength of a tool name", status: 400,
			body: `{"message":"Malformed input request: #/tools/0/name: expected maxLength: 64, actual: 80, please reformat your input and try again."}`,
			req:  req, model: "m", want: BadRequest},
		{name: "content length policy", status: 400,
			body: `{"error":{"message":"Request violated content length policy: body exceeds 1048576 bytes"}}`, req: req, model: "m", notAny: []Class{Refusal}},
		{name: "content-type policy", status: 415,
			body: `{"error":{"message":"Request violated content-type policy: expected application/json"}}`, req: req, model: "m", notAny: []Class{Refusal}},
		{name: "load balancer capacity code", status: 503,
			body: `{"error":{"code":"InsufficientLoadBalancerCapacity","message":"Service temporarily unavailable, please retry"}}`, req: req, model: "m", want: ServerError},
	})
}

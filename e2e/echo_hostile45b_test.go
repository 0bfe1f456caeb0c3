package e2e

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"unicode"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Hostile client, round 45b: text a client sends that a server transforms
// before it quotes it back in an error.

// badClasses are the verdicts a client's own text must never earn: each
// cools an endpoint or account (or counts toward it) for every client, and
// quota and auth page the operator.
var badClasses45b = map[string]bool{"quota": true, "auth": true, "forbidden": true, "rate_limited": true, "unavailable": true}

// wantNoHarm45b checks the first record's attempt at p and p's health.
func wantNoHarm45b(t *testing.T, g *gateway, what string) {
	t.Helper()
	d := g.recs.wait(t, 1)
	if len(d.Attempts) == 0 {
		t.Fatalf("%s: no attempt recorded: %+v", what, d)
	}
	a := d.Attempts[0]
	t.Logf("%s: attempt %s/%s class=%s evidence=%s counted=%v", what, a.Target, a.Provider, a.Class, a.Evidence, a.Counted)
	if badClasses45b[a.Class] {
		t.Errorf("%s: the client's text decided p's attempt: %s (%s), counted=%v", what, a.Class, a.Evidence, a.Counted)
	}
	hl := g.health(t)
	for _, acc := range hl.Accounts {
		if acc.Name == "p" && acc.State != "healthy" {
			t.Errorf("%s: account p is %s (last class %s)", what, acc.State, acc.LastClass)
		}
	}
	if ep, ok := hl.Endpoint("a", "p"); ok && ep.State != "healthy" {
		t.Errorf("%s: endpoint a/p is %s (last class %s)", what, ep.State, ep.LastClass)
	}
}

// vllmFileURL answers as vLLM's MediaConnector._load_file_url does when a
// client's file:// URL lies outside --allowed-local-media-path: the path is
// url2pathname(url.path) — every %XX decoded as UTF-8 — printed into
// f"The file path {filepath} must be a subpath of `--allowed-local-media-path`
// {allowed}." (vllm/multimodal/utils.py; the ValueError is answered as a 400
// in vLLM's flat envelope, as corpus vllm-at-most-1-images-per-request-400,
// vllm-project/vllm#17757).
func vllmFileURL(model string) upstreamtest.Script {
	return func(_ int, r upstreamtest.Request) upstreamtest.Step {
		u := imageURLOf(r.Body)
		if !strings.HasPrefix(u, "file://") {
			return ok(model, "hi")
		}
		pu, err := url.Parse(u)
		if err != nil {
			return upstreamtest.Step{Status: 500, Body: `{"object":"error","message":"bad url","type":"InternalServerError","param":null,"code":500}`}
		}
		b, _ := json.Marshal(map[string]any{
			"object":  "error",
			"message": "The file path " + pu.Path + " must be a subpath of `--allowed-local-media-path` /srv/media.",
			"type":    "BadRequestError", "param": nil, "code": 400,
		})
		return upstreamtest.Step{Status: 400, Body: string(b)}
	}
}

// TestHostile45bPercentEncodedTypoQuote: the echo check reads the client's
// request URL-decoded, but only "%XX" of an ASCII byte (echo.go
// echoedInURL); phrases read a typographic apostrophe (U+2019, "%E2%80%99"
// in a URL) as "'". A file URL naming "You didn%E2%80%99t provide an API
// key" comes back from vLLM as "…/You didn’t provide an API key…": auth,
// the account cooled and the operator paged.
func TestHostile45bPercentEncodedTypoQuote(t *testing.T) {
	for _, tc := range []struct{ name, path string }{
		{"ascii apostrophe %27 (control)", "/You%20didn%27t%20provide%20an%20API%20key.png"},
		{"typographic apostrophe %E2%80%99", "/You%20didn%E2%80%99t%20provide%20an%20API%20key.png"},
		{"typographic apostrophe, team", "/Your%20team%20doesn%E2%80%99t%20exist.png"},
		{"utf-8 phrase %E4%BD%99… (余额不足, insufficient balance)", "/%E4%BD%99%E9%A2%9D%E4%B8%8D%E8%B6%B3.png"},
		{"utf-8 phrase %E6%AC%A0%E8%B4%B9 (欠费, in arrears)", "/%E6%AC%A0%E8%B4%B9.png"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, door := range doors45b("file://" + tc.path) {
				t.Run(door.name, func(t *testing.T) {
					fs := fakes(t, map[string]upstreamtest.Script{
						"p": vllmFileURL("model-a"),
						"q": script(ok("model-b", "q")),
					})
					g := start(t, twoTargets, fs)
					r := g.raw(t, http.MethodPost, door.path, door.body, door.headers...)
					t.Logf("%s: status %d", door.name, r.Status)
					wantNoHarm45b(t, g, tc.name+" via "+door.name)
				})
			}
		})
	}
}

// door45b is one client door and a request on it carrying an image URL.
type door45b struct {
	name, path, body string
	headers          []string
}

// doors45b are the doors that carry an image URL, whole and streamed.
func doors45b(u string) []door45b {
	var out []door45b
	for _, stream := range []string{"", `,"stream":true`} {
		sfx := ""
		if stream != "" {
			sfx = " streamed"
		}
		out = append(out,
			door45b{name: "chat" + sfx, path: "/v1/chat/completions",
				body: `{"model":"r","messages":[{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"image_url","image_url":{"url":"` + u + `"}}]}]` + stream + `}`},
			door45b{name: "responses" + sfx, path: "/v1/responses",
				body: `{"model":"r","input":[{"role":"user","content":[{"type":"input_text","text":"what is this?"},{"type":"input_image","image_url":"` + u + `"}]}]` + stream + `}`},
			door45b{name: "messages" + sfx, path: "/v1/messages", headers: []string{"anthropic-version", "2023-06-01"},
				body: `{"model":"r","max_tokens":16,"messages":[{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"image","source":{"type":"url","url":"` + u + `"}}]}]` + stream + `}`},
		)
	}
	return out
}

// legacyRoleEcho answers as OpenAI's older jsonschema validator did to an
// unknown role ("'<role>' is not one of ['system', 'assistant', 'user',
// 'function'] - 'messages.0.role'", param null, code null;
// lss233/kirara-ai#1028, as echoRole in echo_test.go), with the role first
// passed through transform: what a server that normalises input before it
// validates would quote. MECHANISM ONLY: no cited server applies these
// transforms to a role.
func legacyRoleEcho(model string, transform func(string) string) upstreamtest.Script {
	return roleEcho(model, false, true, transform)
}

// fullwidthFold is what NFKC does to the fullwidth forms U+FF01–U+FF5E and
// the ideographic space.
func fullwidthFold(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 0xFF01 && r <= 0xFF5E:
			return r - 0xFEE0
		case r == 0x3000:
			return ' '
		}
		return r
	}, s)
}

func stripFormat(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, s)
}

func identity(s string) string { return s }

// TestHostile45bTransformedEcho: each case is a role a server transforms
// before quoting it back; the transformed text is quota or key wording the
// client never wrote as such.
func TestHostile45bTransformedEcho(t *testing.T) {
	for _, tc := range []struct {
		name      string
		role      string
		transform func(string) string
		finding   string
	}{
		{"identity (control)", "Your credit balance is too low to access the Anthropic API.", identity, ""},
		{"ascii upper (control)", "your credit balance is too low", strings.ToUpper, ""},
		{"json unicode escapes (control)", "Your credit balance \u0069s too low", identity, ""},
		{"truncated at 24 bytes (control)", "Your credit balance is too low to access", func(s string) string { return s[:24] }, ""},
		{"html escape (control)", "You didn't provide an API key", html.EscapeString, ""},
		{"unicode upper: long s", "Your credit balance i\u017f too low to access the API.", strings.ToUpper,
			"strings.ToUpper maps ſ (U+017F) to S; the echo check folds ASCII case only"},
		{"unicode lower: kelvin sign", "You didn't provide an API \u212Aey.", strings.ToLower,
			"strings.ToLower maps K (U+212A) to k; the echo check folds ASCII case only"},
		{"nfkc fullwidth", "Your credit balance is too ｌｏｗ", fullwidthFold,
			"NFKC folds fullwidth letters to ASCII; the echo check compares them as written"},
		{"whitespace collapse: nbsp", "Your credit\u00a0balance\u00a0is\u00a0too\u00a0low", func(s string) string { return strings.Join(strings.Fields(s), " ") },
			"strings.Fields/str.split() collapse U+00A0 (and \\v, U+2000–U+200A, U+3000); the echo check folds ASCII blanks only"},
		{"whitespace collapse: nbsp in a relay lead and its object (control)", "Error\u00a0code:\u00a0429\u00a0-\u00a0{\"error\":\u00a0{\"message\":\u00a0\"Rate limit\",\u00a0\"type\":\u00a0\"insufficient_quota\",\u00a0\"code\":\u00a0\"insufficient_quota\"}}", func(s string) string { return strings.Join(strings.Fields(s), " ") },
			""}, // held: the quoted answer is read as the client's (status:400+echo)
		{"format characters stripped", "Your credit balance is too l\u200bow", stripFormat,
			"a zero-width space stripped by the server; the echo check keeps it"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{
				"p": legacyRoleEcho("model-a", tc.transform),
				"q": script(ok("model-b", "q")),
			})
			g := start(t, twoTargets, fs)
			role, _ := json.Marshal(tc.role)
			if strings.Contains(tc.name, "json unicode") {
				role = []byte(`"Your credit balance \u0069s too low"`)
			}
			g.raw(t, http.MethodPost, "/v1/chat/completions",
				`{"model":"r","messages":[{"role":`+string(role)+`,"content":"hi"}]}`)
			wantNoHarm45b(t, g, tc.name)
		})
	}
}

// TestHostile45bPercentEncodedPages: the same file URL through route r of
// startEcho: the operator is paged for account p (the only alert must be
// the control's, for p2).
func TestHostile45bPercentEncodedPages(t *testing.T) {
	h := newHook(t)
	fs := fakes(t, map[string]upstreamtest.Script{
		"p":  vllmFileURL("model-a"),
		"p2": script(corpus(t, "openai-insufficient-quota-429")),
		"q":  script(ok("model-b", "q")),
	})
	g := startEcho(t, h.URL, fs)
	g.raw(t, http.MethodPost, "/v1/chat/completions",
		`{"model":"r","messages":[{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"image_url","image_url":{"url":"file:///%E4%BD%99%E9%A2%9D%E4%B8%8D%E8%B6%B3.png"}}]}]}`)
	wantNothingCooledNorPaged(t, g, h, "percent-encoded UTF-8 file name")
}

// pyTrunc is pydantic-core's input_value: the value's repr, cut to its
// first 25 and last 24 characters around "..." when longer than 50
// (pydantic-core's tests: input_value='xxxxxxxxxxxxxxxxxxxxxxxx...xxxxxxxxxxxxxxxxxxxxxxx').
func pyTrunc(v string) string {
	r := "'" + v + "'"
	if len(r) > 50 {
		r = r[:25] + "..." + r[len(r)-24:]
	}
	return r
}

// fireworksSchema answers a json_schema response_format the way the HF
// router relayed Fireworks' pydantic error (corpus
// huggingface-invalid-json-schema-format-fireworks-400, maruel/genai's
// recorded exchange): "Invalid json_schema format: 1 validation error for
// OpenAIJsonSchemaFormat\n$schema\n  Extra inputs are not permitted
// [type=extra_forbidden, input_value=<the client's $schema, truncated>,
// input_type=str]".
func fireworksSchema(model string) upstreamtest.Script {
	return func(_ int, r upstreamtest.Request) upstreamtest.Step {
		var req struct {
			ResponseFormat struct {
				JSONSchema struct {
					Schema map[string]any `json:"schema"`
				} `json:"json_schema"`
			} `json:"response_format"`
		}
		_ = json.Unmarshal(r.Body, &req)
		s, _ := req.ResponseFormat.JSONSchema.Schema["$schema"].(string)
		if s == "" {
			return ok(model, "hi")
		}
		msg := "Invalid json_schema format: 1 validation error for OpenAIJsonSchemaFormat\n$schema\n  Extra inputs are not permitted [type=extra_forbidden, input_value=" +
			pyTrunc(s) + ", input_type=str]\n    For further information visit https://errors.pydantic.dev/2.11/v/extra_forbidden"
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"object": "error", "type": "invalid_request_error", "code": "invalid_request_error", "message": msg}})
		return upstreamtest.Step{Status: 400, Body: string(b)}
	}
}

// TestHostile45bPydanticTruncation: pydantic cuts a long value to its head
// and tail around "...". A two-part phrase ("daily … limit", quota) whose
// parts the client put at the head's end and the tail's start is assembled
// by the truncation: neither the span "daily...limit" nor either part as a
// whole string is in the request.
func TestHostile45bPydanticTruncation(t *testing.T) {
	for _, tc := range []struct{ name, schema string }{
		{"short value (control)", "https://json-schema.org/draft/2020-12/schema"},
		{"daily … limit across the cut, a URL (holds)", "https://example.co/daily" + strings.Repeat("-", 40) + "limit-reached/schema.js"},
		{"daily … limit across the cut, words", strings.Repeat("x", 18) + " daily" + strings.Repeat(" pad", 10) + " limit reached " + strings.Repeat("x", 8)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{
				"p": fireworksSchema("model-a"),
				"q": script(ok("model-b", "q")),
			})
			g := start(t, twoTargets, fs)
			sch, _ := json.Marshal(tc.schema)
			g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"r","messages":[{"role":"user","content":"hi"}],`+
				`"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{"$schema":`+string(sch)+`,"type":"object"}}}}`)
			wantNoHarm45b(t, g, tc.name)
		})
	}
}

package e2e

import (
	"encoding/json"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 63a: review 62k's guard for the structured codes (Anthropic's
// error.details.error_code, OpenRouter's error_type) discards a code only
// where the client's raw bytes hold `"member":"value"` as written. JSON
// escapes are the client's to choose: the upstream decodes them and writes
// the code back plainly, and the raw search missed it. Each test below
// failed before round 63: the guard now reads the request's values as the
// echo check reads text (classify valueEchoed, topValueIs).

// echoDetails is a relay that rejects the client's metadata and quotes the
// rejected object, decoded and re-encoded, as error.details (review 62k's
// own premise, TestReview62kDetailCodeFromClientJSON).
func echoDetails(_ int, r upstreamtest.Request) upstreamtest.Step {
	var req struct {
		Metadata json.RawMessage `json:"metadata"`
	}
	_ = json.Unmarshal(r.Body, &req)
	var m any
	_ = json.Unmarshal(req.Metadata, &m)
	d, _ := json.Marshal(m) // decoded, written plainly
	return upstreamtest.Step{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"metadata: extra inputs are not permitted","details":` + string(d) + `}}`}
}

const review63aCodeCfg = `
client_keys: [client-key-1]
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: ` + secret + `}
  - {name: q, dialect: openai, base_url: "{q}", api_key: ` + secret + `}
targets:
  - {name: a, model: model-a, providers: [p]}
  - {name: b, model: model-b, providers: [q]}
routes:
  - {name: r, targets: [a, b]}
`

func TestReview63aEscapedDetailCodeCoolsTheAccount(t *testing.T) {
	for _, c := range []struct{ name, meta string }{
		{"plain (review 62k's case, the control)", `{"error_code":"organization_on_hold"}`},
		{"value escaped", `{"error_code":"organization\u005fon_hold"}`},
		{"member name escaped", `{"error\u005fcode":"organization_on_hold"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"p": echoDetails, "q": script(ok("model-b", "fine"))})
			g := start(t, review63aCodeCfg, fs)
			r := g.post(t, "r", `,"metadata":`+c.meta, "Authorization", "Bearer client-key-1")
			d := g.recs.wait(t, 1)
			t.Logf("status %d class %s; steps %q", r.Status, r.Header.Get("X-Detour-Class"), steps(d))
			for _, a := range d.Attempts {
				t.Logf("  %s/%s class=%s evidence=%s", a.Target, a.Provider, a.Class, a.Evidence)
			}
			h := g.health(t)
			e, _ := h.Endpoint("a", "p")
			acct, _ := h.Account("p")
			t.Logf("endpoint a/p %s (%s); account p %s (%s)", e.State, e.CoolingClass, acct.State, acct.CoolingClass)
			if len(d.Attempts) > 0 && d.Attempts[0].Class == "auth" {
				t.Errorf("the client's own metadata read as Anthropic's error_code: attempt class auth (%s); account p %s, endpoint %s — the operator is paged and every client loses p",
					d.Attempts[0].Evidence, acct.State, e.State)
			}
		})
	}
}

// The same through OpenRouter's error_type (chat door, OpenAI-dialect target): a
// compatible server that spreads the request into its response object
// (review 62k's TestReview62kResponseErrorTypeFromClient), the client's
// member written with an escape.
func TestReview63aEscapedErrorTypeSpreadBack(t *testing.T) {
	for _, c := range []struct{ name, member string }{
		{"plain (control)", `"error_type":"authentication"`},
		{"value escaped", `"error_type":"authenticatio\u006e"`},
		{"member escaped", `"error\u005ftype":"authentication"`},
		{"a top-level code, plain", `"code":"insufficient_quota"`},
		{"a top-level type, plain", `"type":"authentication_error"`},
		{"a top-level status, plain", `"status_code":401`},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"p": spreadBack, "q": script(ok("model-b", "fine"))})
			g := start(t, review63aCodeCfg, fs)
			r := g.raw(t, "POST", "/v1/chat/completions", `{"model":"r","messages":[{"role":"user","content":"hi"}],`+c.member+`}`,
				"Authorization", "Bearer client-key-1")
			d := g.recs.wait(t, 1)
			t.Logf("status %d; steps %q", r.Status, steps(d))
			for _, a := range d.Attempts {
				t.Logf("  %s/%s class=%s evidence=%s", a.Target, a.Provider, a.Class, a.Evidence)
			}
			if len(d.Attempts) > 0 && (d.Attempts[0].Class == "auth" || d.Attempts[0].Class == "quota") {
				acct, _ := g.health(t).Account("p")
				t.Errorf("the client's own member read as the upstream's: %s (%s); account p %s", d.Attempts[0].Class, d.Attempts[0].Evidence, acct.State)
			}
		})
	}
}

// The same at the Messages door with an Anthropic target, the dialect whose
// code this is: Anthropic-compatible relay quoting the rejected metadata.
func TestReview63aEscapedDetailCodeAtTheMessagesDoor(t *testing.T) {
	for _, c := range []struct{ name, meta string }{
		{"plain (control)", `{"user_id":"u1","error_code":"organization_on_hold"}`},
		{"member name escaped", `{"user_id":"u1","error\u005fcode":"organization_on_hold"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{
				"anthropic": echoDetails,
				"openai":    script(ok("gpt-4o-mini", "x")),
				"gemini":    script(upstreamtest.Step{Body: review62cGemini}),
			})
			g := start(t, review62cCfg, fs)
			r := g.raw(t, "POST", "/v1/messages", `{"model":"r-claude","max_tokens":10,"metadata":`+c.meta+`,"messages":[{"role":"user","content":"hi"}]}`,
				"x-api-key", "client-key-1", "anthropic-version", "2023-06-01")
			d := g.recs.wait(t, 1)
			acct, _ := g.health(t).Account("anthropic")
			t.Logf("status %d; steps %q; account %s (%s); client told error_code %q", r.Status, steps(d), acct.State, acct.CoolingClass, detailCode(r))
			if len(d.Attempts) > 0 && d.Attempts[0].Class == "auth" {
				t.Errorf("the client's own metadata read as Anthropic's error_code: auth (%s); account anthropic %s", d.Attempts[0].Evidence, acct.State)
			}
		})
	}
}

// At the Responses door, natively (responses: true): review 62k's premise
// exactly, a compatible Responses server that builds its answer as
// {**request, id, status, output, error}. The older top-level reads
// (code, type, error_code, errorCode, reason, errors[].code, detail.code)
// had no echo guard at all; the newer error_type's guard missed an escape.
func TestReview63aSpreadResponseAtTheResponsesDoor(t *testing.T) {
	const cfg = `
client_keys: [client-key-1]
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: ` + secret + `, responses: true}
  - {name: q, dialect: openai, base_url: "{q}", api_key: ` + secret + `}
targets:
  - {name: a, model: model-a, providers: [p]}
  - {name: b, model: model-b, providers: [q]}
routes:
  - {name: r, targets: [a, b]}
`
	for _, c := range []struct{ name, member string }{
		{"nothing of the client's (control)", `"metadata":{}`},
		{"error_type escaped", `"error_type":"authenticatio\u006e"`},
		{"top-level code", `"code":"insufficient_quota"`},
		{"top-level type", `"type":"authentication_error"`},
		// The other top-level code reads (review 63j: the guard first
		// asked the request for "code" and "type" alone).
		{"error_code", `"error_code":"insufficient_quota"`},
		{"errorCode", `"errorCode":"insufficient_quota"`},
		{"reason in capitals", `"reason":"INVALID_API_KEY"`},
		{"errors[].code", `"errors":[{"code":"insufficient_quota"}]`},
		{"detail.code", `"detail":{"code":"insufficient_quota"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"p": spreadBack, "q": script(ok("model-b", "fine"))})
			g := start(t, cfg, fs)
			r := g.raw(t, "POST", "/v1/responses", `{"model":"r","input":"hi","store":false,`+c.member+`}`, "Authorization", "Bearer client-key-1")
			d := g.recs.wait(t, 1)
			acct, _ := g.health(t).Account("p")
			t.Logf("status %d; steps %q; account p %s (%s)", r.Status, steps(d), acct.State, acct.CoolingClass)
			if len(d.Attempts) > 0 && (d.Attempts[0].Class == "auth" || d.Attempts[0].Class == "quota") {
				t.Errorf("the client's own member read as the upstream's: %s (%s); account p %s", d.Attempts[0].Class, d.Attempts[0].Evidence, acct.State)
			}
		})
	}
}

// No deliberate escape needed: a chat client's tool-call arguments are JSON
// inside a JSON string, so `"error_code":"organization_on_hold"` is written
// `\"error_code\":\"organization_on_hold\"` in the body an OpenAI-dialect
// target gets as sent. A server that parses the arguments and quotes the
// rejected object as error.details (review 62k's premise) gives the client's
// member the weight of Anthropic's code (before round 63).
func TestReview63aToolArgumentsDetailCode(t *testing.T) {
	echoArgs := func(_ int, r upstreamtest.Request) upstreamtest.Step {
		var req struct {
			Messages []struct {
				ToolCalls []struct {
					Function struct {
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"messages"`
		}
		_ = json.Unmarshal(r.Body, &req)
		args := "{}"
		for _, m := range req.Messages {
			for _, c := range m.ToolCalls {
				args = c.Function.Arguments
			}
		}
		return upstreamtest.Step{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"tool call arguments do not match the tool's schema","details":` + args + `}}`}
	}
	fs := fakes(t, map[string]upstreamtest.Script{"p": echoArgs, "q": script(ok("model-b", "fine"))})
	g := start(t, review63aCodeCfg, fs)
	body := `{"model":"r","tools":[{"type":"function","function":{"name":"report","parameters":{"type":"object","properties":{"error_code":{"type":"string"}}}}}],"messages":[` +
		`{"role":"user","content":"what went wrong?"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"report","arguments":"{\"error_code\":\"organization_on_hold\"}"}}]},` +
		`{"role":"tool","tool_call_id":"call_1","content":"noted"}]}`
	r := g.raw(t, "POST", "/v1/chat/completions", body, "Authorization", "Bearer client-key-1")
	d := g.recs.wait(t, 1)
	acct, _ := g.health(t).Account("p")
	t.Logf("status %d; steps %q; account p %s (%s)", r.Status, steps(d), acct.State, acct.CoolingClass)
	if len(d.Attempts) > 0 && d.Attempts[0].Class == "auth" {
		t.Errorf("the client's own tool-call arguments read as Anthropic's error_code: auth (%s); account p %s", d.Attempts[0].Evidence, acct.State)
	}
}

// spreadBack is a compatible Responses server that builds a failed answer
// from the request, {**request, id, status, object, output, error}
// (review 62k's premise): the client's top-level members come back at the
// top of the answer.
func spreadBack(_ int, r upstreamtest.Request) upstreamtest.Step {
	var m map[string]any
	_ = json.Unmarshal(r.Body, &m)
	m["id"], m["status"], m["object"] = "resp_1", "failed", "response"
	m["error"] = map[string]any{"code": "server_error", "message": "The server had an error processing your request."}
	m["output"] = []any{}
	b, _ := json.Marshal(m)
	return upstreamtest.Step{Body: string(b)}
}

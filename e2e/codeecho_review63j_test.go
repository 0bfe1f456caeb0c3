package e2e

import (
	"encoding/json"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 63j: review 63a's own premise (a Responses server answering
// {**request, id, status, output, error}), the client's top-level member
// named as any of the other top-level code reads (error_code, errorCode,
// reason, errors[].code, detail.code): tryTop asks the request only for
// "code" and "type".
func TestReview63jSpreadTopCodeOtherNames(t *testing.T) {
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
	spread := func(_ int, r upstreamtest.Request) upstreamtest.Step {
		var m map[string]any
		_ = json.Unmarshal(r.Body, &m)
		m["id"], m["status"], m["object"] = "resp_1", "failed", "response"
		m["error"] = map[string]any{"code": "server_error", "message": "The server had an error processing your request."}
		m["output"] = []any{}
		b, _ := json.Marshal(m)
		return upstreamtest.Step{Body: string(b)}
	}
	for _, c := range []struct{ name, member string }{
		{"control: top-level code (guarded)", `"code":"insufficient_quota"`},
		{"error_code", `"error_code":"insufficient_quota"`},
		{"errorCode", `"errorCode":"insufficient_quota"`},
		{"reason in capitals", `"reason":"INVALID_API_KEY"`},
		{"errors[].code", `"errors":[{"code":"insufficient_quota"}]`},
		{"detail.code", `"detail":{"code":"insufficient_quota"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"p": spread, "q": script(ok("model-b", "fine"))})
			g := start(t, cfg, fs)
			r := g.raw(t, "POST", "/v1/responses", `{"model":"r","input":"hi","store":false,`+c.member+`}`, "Authorization", "Bearer client-key-1")
			d := g.recs.wait(t, 1)
			acct, _ := g.health(t).Account("p")
			t.Logf("status %d; steps %q; account p %s (%s)", r.Status, steps(d), acct.State, acct.CoolingClass)
			for _, a := range d.Attempts {
				t.Logf("  %s/%s class=%s evidence=%s", a.Target, a.Provider, a.Class, a.Evidence)
			}
			if len(d.Attempts) > 0 && (d.Attempts[0].Class == "auth" || d.Attempts[0].Class == "quota") {
				t.Errorf("the client's own top-level member read as the upstream's: %s (%s); account p %s (%s)", d.Attempts[0].Class, d.Attempts[0].Evidence, acct.State, acct.CoolingClass)
			}
		})
	}
}

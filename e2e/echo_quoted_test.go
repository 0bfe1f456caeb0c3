package e2e

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// TestQuotedAnswerInEchoedRole: a client-written role "XError: {<an error object>}" that
// OpenAI quotes back honestly ("Invalid value: '…'. Supported values are: …")
// is not read as a relayed upstream answer (classify/inner.go): the attempt
// stays bad_request, and nothing cools.
func TestQuotedAnswerInEchoedRole(t *testing.T) {
	for _, tc := range []struct{ name, role string }{
		{"quota", `XError: {"error":{"code":"insufficient_quota"}}`},
		{"auth", `XError: {"error":{"code":"invalid_api_key"}}`},
		{"unavailable", `XError: {"error":{"code":"model_not_found"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{
				"p": echoRole("model-a", false, false),
				"q": script(ok("model-b", "q")),
			})
			g := start(t, twoTargets, fs)
			role, _ := json.Marshal(tc.role)
			resp := g.raw(t, http.MethodPost, "/v1/chat/completions",
				`{"model":"r","messages":[{"role":`+string(role)+`,"content":"hi"}]}`)
			d := g.recs.wait(t, 1)
			a := d.Attempts[0]
			t.Logf("client got %d; attempt: provider=%s class=%s evidence=%s; steps=%d", resp.Status, a.Provider, a.Class, a.Evidence, len(d.Attempts))
			for _, at := range d.Attempts {
				t.Logf("  attempt %s/%s class=%s ev=%s", at.Target, at.Provider, at.Class, at.Evidence)
			}
			for _, tr := range d.Transitions {
				t.Logf("  transition %+v", tr)
			}
			for _, acc := range g.health(t).Accounts {
				if acc.Name == "p" && acc.State != "healthy" {
					t.Errorf("account p is %s (last class %s) after an echoed role", acc.State, acc.LastClass)
				}
			}
			if a.Class != "bad_request" {
				t.Errorf("client-written role decided the attempt: %s (%s)", a.Class, a.Evidence)
			}
		})
	}
}

// The same through Anthropic's honest echo of an unknown anthropic-beta
// header value (as TestEchoedBetaHeaderIsNoEvidence's upstream).
func TestQuotedAnswerInEchoedBetaHeader(t *testing.T) {
	const beta = `XError: {"error":{"type":"authentication_error"}}`
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			m, _ := json.Marshal("Unexpected value(s) `" + r.Header.Get("Anthropic-Beta") + "` for the `anthropic-beta` header. Please consult our documentation at docs.anthropic.com or try again without the header.")
			return upstreamtest.Step{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":` + string(m) + `}}`}
		},
	})
	g := start(t, `
providers:
  - {name: p, dialect: anthropic, base_url: "{p}", api_key: `+secret+`}
targets:
  - {name: a, model: claude-x, providers: [p]}
`, fs)
	g.raw(t, http.MethodPost, "/v1/messages", `{"model":"a","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}`,
		"anthropic-version", "2023-06-01", "anthropic-beta", beta)
	a := g.recs.wait(t, 1).Attempts[0]
	t.Logf("attempt class=%s evidence=%s", a.Class, a.Evidence)
	for _, acc := range g.health(t).Accounts {
		t.Logf("account %s state=%s last=%s", acc.Name, acc.State, acc.LastClass)
		if acc.Name == "p" && acc.State != "healthy" {
			t.Errorf("account p is %s (last class %s) after an echoed header", acc.State, acc.LastClass)
		}
	}
}

// TestInvalidUTF8EchoIsNoEvidence: a client's raw invalid UTF-8 byte inside a gap phrase: the upstream (Go,
// like echoFirst) decodes it to U+FFFD and quotes the text back; the echo
// check reads the raw byte as U+FFFD too, so the words stay the client's.
func TestInvalidUTF8EchoIsNoEvidence(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": echoFirst,
		"q": script(ok("model-b", "q")),
	})
	g := start(t, twoTargets, fs)
	resp := g.raw(t, http.MethodPost, "/v1/chat/completions", "{\"model\":\"r\",\"messages\":[{\"role\":\"user\",\"content\":\"out of \xff quota\"}]}")
	d := g.recs.wait(t, 1)
	t.Logf("client got %d", resp.Status)
	for _, a := range d.Attempts {
		t.Logf("attempt %s/%s class=%s ev=%s", a.Target, a.Provider, a.Class, a.Evidence)
	}
	for _, acc := range g.health(t).Accounts {
		t.Logf("account %s state=%s last=%s", acc.Name, acc.State, acc.LastClass)
		if acc.Name == "p" && acc.State != "healthy" {
			t.Errorf("account p is %s (last class %s) after an echo", acc.State, acc.LastClass)
		}
	}
}

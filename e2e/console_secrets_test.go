package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// The console shows records as the decision log has them: scrubbed. An
// upstream's unknown answer that echoes the provider's key, a key-shaped
// token, a client key and its own address reached /ui/api/decisions and
// /ui/api/unknowns as sent, while the log had them as [redacted] — on a
// console that, without admin_keys, any client can read.
func TestConsoleShowsNoSecretAnUpstreamEchoes(t *testing.T) {
	const clientKey = "client-key-abcdefgh12345"
	const shaped = "sk-proj-Zq8mN4vB7xK2pL9wR3tY6uI1oE5aS0dF"
	var fs map[string]*upstreamtest.Server
	fs = fakes(t, map[string]upstreamtest.Script{"up": func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Status: 400, Body: `{"error":{"message":"Frobnication failed at ` + fs["up"].URL +
			`/v1 with ` + secret + ` and ` + shaped + ` and ` + clientKey + `","type":"odd"}}`}
	}})
	g := start(t, `
client_keys: [`+clientKey+`]
providers:
  - {name: up, dialect: openai, base_url: "{up}", api_key: `+secret+`}
targets:
  - {name: gpt, model: gpt-4o, providers: [up]}
`, fs)
	g.post(t, "gpt", "", "Authorization", "Bearer "+clientKey).wantStatus(t, 400)
	if m := g.recs.wait(t, 1).Attempts[0].Message; !strings.Contains(m, "Frobnication failed at [provider up] with [redacted]") {
		t.Fatalf("the record's message: %q", m)
	}
	addr := strings.TrimPrefix(fs["up"].URL, "http://")
	for _, p := range []string{"/ui/api/decisions", "/ui/api/unknowns", "/ui/api/health"} {
		r := g.raw(t, http.MethodGet, p, "")
		r.wantStatus(t, 200)
		for _, s := range []string{secret, shaped, clientKey, addr} {
			if strings.Contains(string(r.Body), s) {
				t.Errorf("%s shows %q: %s", p, s, r.Body)
			}
		}
	}
	if r := g.raw(t, http.MethodGet, "/ui/api/unknowns", ""); !strings.Contains(string(r.Body), "Frobnication failed at [provider up]") {
		t.Errorf("the unknown answer is not shown scrubbed: %s", r.Body)
	}
}

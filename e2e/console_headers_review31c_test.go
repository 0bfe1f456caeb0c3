package e2e

import (
	"net/http"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// docs/console.md, Security: "Every response carries a strict
// Content-Security-Policy … Also X-Content-Type-Options: nosniff,
// Referrer-Policy: no-referrer, X-Frame-Options: DENY." The console's
// refusals do not: the 401 every browser gets before it has sent the admin
// key (the first answer anyone sees at /ui), and the front's 403s (Host,
// cross-site), are written before the console's handler sets them.
func TestEveryConsoleAnswerCarriesItsSecurityHeaders(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(ok("model-a", "a"))})
	g := start(t, "client_keys: [client-key-1]\nadmin_keys: [admin-key-1]\n"+frontCfg, fs)
	for _, c := range []struct {
		name, path string
		h          []string
		status     int
	}{
		{"no credentials", "/ui/health", nil, 401},
		{"a client key", "/ui/api/decisions", []string{"Authorization", "Bearer client-key-1"}, 401},
		{"a foreign Host", "/ui/health", []string{"Host", "rebind.evil.example", "Authorization", "Bearer admin-key-1"}, 403},
		{"a cross-site page", "/ui/health", []string{"Sec-Fetch-Site", "cross-site", "Authorization", "Bearer admin-key-1"}, 403},
		{"the admin key", "/ui/health", []string{"Authorization", "Bearer admin-key-1"}, 200},
	} {
		r := g.send(t, http.MethodGet, c.path, "", c.h...)
		if r.Status != c.status {
			t.Errorf("%s: %d, want %d", c.name, r.Status, c.status)
		}
		for _, h := range []string{"Content-Security-Policy", "X-Content-Type-Options", "X-Frame-Options", "Referrer-Policy"} {
			if r.Header.Get(h) == "" {
				t.Errorf("%s: GET %s → %d without %s", c.name, c.path, r.Status, h)
			}
		}
	}
}

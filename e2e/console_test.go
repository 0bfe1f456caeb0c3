package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// The console is served by the gateway beside /metrics, reads the records
// the gateway writes, and is gone when disabled. (e2e/browser drives it in
// a real browser.)
func TestConsoleServedAndDisabled(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"up": script(ok("gpt-4o", "hi"))})
	yaml := `
providers:
  - {name: up, dialect: openai, base_url: "{up}", api_key: ` + secret + `}
targets:
  - {name: gpt, model: gpt-4o, providers: [up]}
`
	g := start(t, yaml, fs)
	res := g.post(t, "gpt", "")
	res.wantStatus(t, 200)
	page := g.raw(t, http.MethodGet, "/ui/decisions", "")
	if page.Status != 200 || !strings.Contains(page.Header.Get("Content-Security-Policy"), "script-src 'self'") {
		t.Errorf("/ui/decisions: %d, CSP %q", page.Status, page.Header.Get("Content-Security-Policy"))
	}
	list := g.raw(t, http.MethodGet, "/ui/api/decisions", "")
	if !strings.Contains(string(list.Body), res.Header.Get("X-Detour-Decision")) || strings.Contains(string(list.Body), secret) {
		t.Errorf("the console's tail lacks the request, or shows a key: %s", list.Body)
	}

	off := start(t, yaml+"console: {enabled: false}\n", fs)
	if r := off.raw(t, http.MethodGet, "/ui/health", ""); r.Status != 404 {
		t.Errorf("a disabled console answers %d", r.Status)
	}
}

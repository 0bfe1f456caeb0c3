package browser

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// An operator opens the console with the admin key in the address
// (http://op:KEY@host/ui/health), as Basic credentials: the page loads its
// tables. Before (operator review 48b) every table stayed empty under
// "Cannot reach the gateway": a browser refuses fetch() of a relative URL
// against a page address that holds credentials, so the page's requests
// are built from location.origin, and the browser's cached credentials go
// with them.
func TestConsoleOpenedWithCredentialsInTheAddress_review48(t *testing.T) {
	b := newBrowser(t)
	up := upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o", "Hello.")}))
	t.Cleanup(up.Close)
	g := startGateway(t, `
admin_keys: [adm-console-abcdefgh]
providers:
  - {name: oai, dialect: openai, base_url: "{oai}", api_key: `+secret+`}
targets:
  - {name: gpt, model: gpt-4o, providers: [oai]}
routes:
  - {name: r, targets: [gpt]}
`, map[string]*upstreamtest.Server{"oai": up})
	g.chat(t, "r")
	url := strings.Replace(g.URL, "http://", "http://op:adm-console-abcdefgh@", 1) + "/ui/health"
	b.do(t, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(url))
	b.mustWait(t, "the endpoints table lists gpt",
		`[...document.querySelectorAll('#endpoints tbody tr')].some(r => r.cells[0].textContent === 'gpt')`)
	b.screenshot(t, "console-credentials-in-address")
}

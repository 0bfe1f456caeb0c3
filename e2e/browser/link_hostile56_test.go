package browser

import (
	"net"
	"net/http"
	"testing"

	"github.com/chromedp/chromedp"
)

// hostile 56: docs/console.md says a request's address
// (/ui/decisions?id=…) "can be shared with anyone who can open the console".
// Shared where operators share things — a web chat, a ticket, a wiki — the
// link is clicked on a page of another site (here: another port of the same
// host, which the browser calls same-site; another host is cross-site and
// meets the same rule). The browser's navigation carries no Origin and
// Sec-Fetch-Site: same-site / cross-site, and the front's guard refuses it
// with a 403 JSON that says to list "the page's origin in
// cors.allowed_origins", which cannot help: a GET navigation sends no
// Origin, and the guard refuses on Sec-Fetch-Site whatever is listed. A
// top-level GET navigation to a read-only page whose answer the other page
// cannot read (CSP frame-ancestors 'none', no CORS) is no forgery.
func TestH56SharedConsoleLinkOpensFromAnotherPage(t *testing.T) {
	b := newBrowser(t)
	g := startGateway(t, `
providers:
  - {name: p, dialect: openai, base_url: "http://127.0.0.1:1", api_key: `+secret+`}
targets:
  - {name: t, model: gpt-4o, providers: [p]}
routes:
  - {name: r, targets: [t]}
`, nil)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(`<!doctype html><p>Ticket 42: see <a id="l" href="` + g.URL + `/ui/health">the console</a></p>`))
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	b.do(t, chromedp.Navigate("http://"+ln.Addr().String()+"/"))
	eval[bool](t, b, `(document.getElementById("l").click(), true)`)
	b.waitFor(`location.href.includes('/ui/') && document.readyState === 'complete'`, 5e9)
	if !b.waitFor(`document.querySelector('h1')?.textContent === 'Health'`, 5e9) {
		t.Errorf("the console's link, clicked on another page, opens %s reading %q: want the Health page",
			eval[string](t, b, `location.href`), eval[string](t, b, `document.body.innerText.slice(0, 300)`))
	}
}

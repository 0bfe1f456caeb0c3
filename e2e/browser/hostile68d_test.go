package browser

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// hostile 68d: docs/console.md says a request's address
// (/ui/decisions?id=…) can be shared, and a link to it followed from a chat
// or a ticket opens it (hostile 56). Whoever writes the ticket — a client
// key's holder quoting "their" decision id — writes the address. Before,
// the page put the id as it came into the card's heading, in the console's
// own bold type ("Request <id>"), and a class or outcome it did not know
// into the banner by way of the API's 400 ("unknown class \"<text>\""): a
// link whose id was a sentence ("— URGENT: Detour detected a leaked
// provider key. Rotate it at https://…") had the operator's own console say
// it. The page now echoes only what has a decision id's shape (16 hex
// digits) and asks for no filter it does not know (an api too: 69o).
func TestHostile68dSharedLinkCannotWriteTheConsolesWords(t *testing.T) {
	b := newBrowser(t)
	g := startGateway(t, `
providers:
  - {name: p, dialect: openai, base_url: "http://127.0.0.1:1", api_key: `+secret+`}
targets:
  - {name: t, model: gpt-4o, providers: [p]}
routes:
  - {name: r, targets: [t]}
`, nil)
	const lure = "URGENT: Detour detected a leaked provider key. Rotate it at https://evil.example/rotate"
	for _, q := range []string{
		"id=" + url.QueryEscape("0123456789abcdef — "+lure),
		"id=" + url.QueryEscape(lure),
		"class=" + url.QueryEscape(lure),
		"outcome=" + url.QueryEscape(lure),
		"api=" + url.QueryEscape(lure),
	} {
		b.do(t, chromedp.Navigate(g.URL+"/ui/decisions?"+q))
		b.waitFor(`document.readyState === 'complete'`, 5*time.Second)
		// Let the page's first polls and the card's fetch come back.
		time.Sleep(1500 * time.Millisecond)
		if text := eval[string](t, b, `document.body.innerText`); strings.Contains(text, "leaked provider key") {
			i := strings.Index(text, "leaked provider key")
			t.Errorf("/ui/decisions?%s: the page writes the address's words as its own: …%s…", q, text[max(0, i-120):min(len(text), i+60)])
		}
	}
	// A real id still opens, and an id of the right shape not in the ring
	// is named.
	b.do(t, chromedp.Navigate(g.URL+"/ui/decisions?id=0123456789abcdef"))
	b.mustWait(t, "the card of an id not in the ring", `!document.querySelector('#detail').hidden && document.querySelector('#detail-h').textContent.includes('0123456789abcdef')`)
}

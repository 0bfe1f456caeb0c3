package browser

// Operator review 55: one client key floods at 2 am.

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// docs/console.md, Keys: "a key at a limit — its next request is refused … says which, until when
// (refused requests leave no decision record: this, and `detour_limit_refusals_total`, are where
// they show)". Observed (TestOp55Night, screenshot /work/operator55/out2/10-flood-keys.png): key
// `batch` (5 requests a minute) sent 20 in a burst; 15 were refused (429) and
// `detour_limit_refusals_total{client="batch",limit="requests_per_minute"} 15`. The Keys page
// shows "requests this minute 5 ▮ 100% of 5, resets in 40s, refused: requests_per_minute until
// 40s" — exactly what a key that sent 5 and stopped shows. How hard the key floods (15 refused, or
// 15 000) is on no page of the console, and once the minute turns the row reads as calm as
// team-a's: the operator sent to the console by the docs cannot tell a flood from a key that
// merely used its allowance. The row now says how many requests its limits refused since this
// replica started, as `detour_limit_refusals_total` counts them.
func TestConsoleKeysSayHowManyAFloodingKeyWasRefused_op55(t *testing.T) {
	b := newBrowser(t)
	fakes := keysUpstream(t)
	g := startGateway(t, `
client_keys:
  - {name: team-a, key: key-team-a-0055}
  - {name: batch, key: key-batch-00055, rate: {requests_per_minute: 5}}
providers:
  - {name: openai, dialect: openai, base_url: "{oa}/v1", api_key: `+secret+`}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai]}
routes:
  - {name: fast, targets: [gpt]}
`, fakes)
	refused := 0
	for range 20 {
		if _, st := g.chat(t, "fast", "Authorization", "Bearer key-batch-00055"); st == 429 {
			refused++
		}
	}
	if refused != 15 {
		t.Fatalf("batch (5 a minute) sent 20: %d refused, want 15", refused)
	}
	b.do(t, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(g.URL+"/ui/keys"))
	b.mustWait(t, "the keys", `document.querySelectorAll('#keys tbody tr').length >= 2`)
	b.screenshot(t, "keys-flood-op55")
	row := eval[string](t, b, `[...document.querySelectorAll('#keys tbody tr')].filter(r => r.textContent.includes('batch')).map(r => r.innerText).join(' | ')`)
	if !strings.Contains(row, "15 refused since this replica started") {
		t.Errorf("batch's 15 refused requests are on no part of its Keys row: %q", row)
	}
}

package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 36a. The translated body a request keeps is counted when its
// translation settles, without a check when it went past the allowance
// (the overdraft), on the reasoning that it is "about its own body's size"
// (docs/config.md, max_inflight_body_bytes). encoding/json writes '<', '>'
// and '&' as six-byte \u003c escapes: a Messages body of HTML or code
// (a pasted page, a diff) translates into a chat body up to six times its
// size. One such request of 900 KiB of markup ("<b>&</b>", four escapes in
// eight bytes) — under a quarter of a 4 MiB allowance — keeps 3.7 MiB
// counted, and while its answer runs every other request on the replica,
// however small, is refused 503 inflight_body_limit. The same body in
// plain letters leaves room for everyone.
func TestReview36aOneHTMLMessagesBodyLocksOutTheGateway(t *testing.T) {
	for _, tc := range []struct {
		name, unit string
	}{
		{"plain text", "xxxxxxxx"}, // control: held 1.8 MiB of 4
		{"html text", "<b>&</b>"},
	} {
		t.Run(strings.ReplaceAll(tc.name, " ", "_"), func(t *testing.T) {
			h := newHolder("model-a") // the upstream holds the first call: a long answer
			fs := fakes(t, map[string]upstreamtest.Script{"p": h.script})
			g := start(t, allowanceCfg, fs)
			text := strings.Repeat(tc.unit, (900<<10)/8)
			big := `{"model":"a","max_tokens":16,"messages":[{"role":"user","content":"` + text + `"}]}`
			go func() {
				h.first <- g.send(t, http.MethodPost, "/v1/messages", big, "Content-Type", "application/json", "X-Api-Key", "k")
			}()
			waitCalls(t, fs["p"], 1)

			small := `{"model":"a","messages":[{"role":"user","content":"hi"}]}`
			if r := g.send(t, http.MethodPost, "/v1/chat/completions", small, "Content-Type", "application/json"); r.Status != http.StatusOK {
				t.Errorf("a 60-byte request beside one 900 KiB Messages request of %s (allowance 4 MiB): %d %.200s", tc.name, r.Status, r.Body)
			}
			h.finish(t)
		})
	}
}

package e2e

import (
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// TestPlainTextAnswerReachesTheClient: when nothing answers, the client
// gets the upstream's own message, and a proxy in front of a provider often
// writes it in plain text (Envoy's 504 "upstream request timeout", from the
// corpus). It reached the client as Detour's "upstream a/p answered
// timeout (status:504)" instead; a JSON message always had.
func TestPlainTextAnswerReachesTheClient(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": script(corpus(t, "openai-upstream-request-timeout-504")),
	})
	g := start(t, oneTarget, fs)
	r := g.post(t, "r", "")
	r.wantStatus(t, 504)
	if got := r.errMessage(t); got != "upstream request timeout" {
		t.Errorf("message %q, want the upstream's own", got)
	}
}

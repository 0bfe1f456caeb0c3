package metrics

import (
	"testing"
	"time"
)

// TestFirstTokenIsItsOwnHistogram: a stream's time to its first content is
// observed apart from its time to headers (operator review 57: a provider
// whose headers came at once and whose first token took 2.5 s read 0.005 s
// in detour_upstream_ttfb_seconds); a stream that said nothing observes none.
func TestFirstTokenIsItsOwnHistogram(t *testing.T) {
	m := New()
	m.Attempt("claude", "anthropic", "ok", time.Millisecond, 3*time.Second)
	m.FirstToken("claude", "anthropic", "ok", 2500*time.Millisecond)
	m.Attempt("gpt", "openai", "timeout", time.Millisecond, 5*time.Second)
	m.FirstToken("gpt", "openai", "timeout", 0)
	f := scrape(t, m)
	h := histogram(t, f, "detour_upstream_first_token_seconds", "target=claude", "provider=anthropic")
	if h.GetSampleCount() != 1 || !near(h.GetSampleSum(), 2.5) {
		t.Errorf("first token count=%d sum=%v, want 1, 2.5", h.GetSampleCount(), h.GetSampleSum())
	}
	if s := series(f, "detour_upstream_first_token_seconds", "target=gpt", "provider=openai"); s != nil {
		t.Errorf("a stream without content observed a first token: %v", s)
	}
}

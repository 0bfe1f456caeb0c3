package alert

import (
	"testing"

	"github.com/detour-llm/detour/internal/metrics"
)

// An operator who sets alerts.min_interval: 0 (docs/config.md: "0 sends
// every one") is paged for every quota and auth verdict; the process passes
// that as a negative MinInterval (review 39h: it was the default hour, one
// page in four).
func TestReview39hNoIntervalSendsEveryVerdict(t *testing.T) {
	h := newHook(t)
	m := metrics.New()
	shared := &LocalClaimer{}
	n := New(Config{Webhook: h.URL, MinInterval: -1, Claimer: shared, Metrics: m, Backoff: noBackoff})
	for range 4 {
		n.Notify("anthropic", "quota", "phrase:credit balance is too low")
	}
	closeOK(t, n)
	if got := len(h.Posts()); got != 4 {
		t.Fatalf("%d alerts for 4 verdicts, want 4", got)
	}
	if v := alerts(t, m, "anthropic", "quota", "sent"); v != 4 {
		t.Errorf("sent = %v, want 4", v)
	}
	if !shared.Claim(t.Context(), "alert:anthropic:quota", 0) {
		t.Error("no interval claimed the key")
	}
}

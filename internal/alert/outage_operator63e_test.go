package alert

import (
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/metrics"
	"github.com/detour-llm/detour/internal/redistest"
)

// Operator review 63e: with min_interval 60s, a replica paged "anthropic
// auth" at 09:56:35 while Redis was unreachable and again at 09:57:06, when
// Redis was back: the claim asked Redis alone, where the outage's claim had
// never been. One page per provider and class per min_interval
// (docs/scale.md, "Alerts"): the page of the outage holds for its interval,
// on this replica and, written to Redis when it returns, on the others.
func TestOperator63eAPageSentDuringAnOutageIsNotSentAgainAfterIt(t *testing.T) {
	srv := redistest.Start(t)
	cut := redistest.StartProxy(t, srv.Addr())
	h := newHook(t)
	m := metrics.New()
	a := New(Config{Webhook: h.URL, MinInterval: time.Minute, Claimer: redisClaimerAt(t, cut.URL()), Metrics: m, Backoff: noBackoff})
	b := New(Config{Webhook: h.URL, MinInterval: time.Minute, Claimer: redisClaimer(t, srv), Metrics: m, Backoff: noBackoff})

	cut.Cut()
	a.Notify("anthropic", "auth", "status:401")
	waitPosts(t, h, 1) // paged on a local claim
	cut.Heal()
	time.Sleep(1100 * time.Millisecond) // the store tries a down Redis once a second
	a.Notify("anthropic", "auth", "status:401")
	a.sync()
	b.Notify("anthropic", "auth", "status:401")
	b.sync()
	closeOK(t, a)
	closeOK(t, b)
	if n := len(h.Posts()); n != 1 {
		t.Fatalf("webhook got %d pages in the minute, want 1: the outage's page holds after it", n)
	}
	if v := alerts(t, m, "anthropic", "auth", "suppressed"); v != 2 {
		t.Errorf("suppressed = %v, want 2 (A's verdict after the outage, and B's)", v)
	}
}

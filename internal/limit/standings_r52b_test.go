package limit

import (
	"context"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/health"
)

// Review 52b: the Keys page (console keysTimeout, 2s: "a Redis that does
// not answer leaves the page with this replica's counts") and the metrics
// scrape (metrics limitsTimeout, 2s: "bounds one scrape's read of the
// limits' counters") call Standings for every configured key under one
// deadline. Redis.Read drops it (context.WithoutCancel) and bounds each
// MGET by state.timeout alone, so with a Redis that answers slowly but
// within state.timeout, the page and the scrape take keys × round trip:
// here 30 keys at 100ms each, ~3s, with a 1s deadline.
func TestStandingsKeepTheCallersDeadline(t *testing.T) {
	e := newProxied(t, health.RedisConfig{})
	ctx := context.Background()
	e.l.Standings(ctx, spender(0)) // a connection made before Redis slows
	e.p.Slow(100 * time.Millisecond)
	dl, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	start := time.Now()
	for i := range 30 { // as apiKeys and App.limitUse loop over cfg.Clients
		e.l.Standings(dl, spender(i))
	}
	if took := time.Since(start); took > 1500*time.Millisecond {
		t.Errorf("30 keys' standings under a 1s deadline took %v: the deadline bounds nothing", took)
	}
}

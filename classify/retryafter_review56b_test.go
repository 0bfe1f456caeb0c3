package classify

import (
	"net/http"
	"testing"
	"time"
)

// spentWindowReset measures an Anthropic window's reset against the
// answer's Date whatever that Date says. A Date far behind the real time
// (a relay's or cache's stale Date beside a live reset, a server whose
// clock is wrong while the reset is computed elsewhere) turns a 20-second
// throttle into the 24h bound, hence quota ("retry-after>=1h"): the
// account cools for a day and the operator is paged. The Date is there to
// absorb a small skew; one a day off should be ignored (measure against
// the gateway's clock, or bound the wait by both).
func TestAnthropicResetAgainstAFarOffDate_review56b(t *testing.T) {
	now := time.Now().UTC()
	body := `{"type":"error","error":{"type":"rate_limit_error","message":"Rate limited"}}`
	v := classify56h(429, body, "",
		"anthropic-ratelimit-tokens-remaining", "0",
		"anthropic-ratelimit-tokens-reset", now.Add(20*time.Second).Format(time.RFC3339),
		"date", now.Add(-24*time.Hour).Format(http.TimeFormat))
	if v.Class != RateLimited || v.RetryAfter > time.Minute {
		t.Errorf("a reset 20s away, beside a Date a day old: got %s (%s) wait %v; want rate_limited, about 20s", v.Class, v.Evidence, v.RetryAfter)
	}
}

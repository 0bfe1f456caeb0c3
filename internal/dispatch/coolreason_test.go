package dispatch

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/testutil"
)

// An endpoint's cooldown is logged with why it began: a quota answer cools
// the account for account_cooldown, and its endpoint for cooldown only by
// failure_threshold; a log line reading "endpoint … class=quota until=+10s"
// beside the account's 30m read as if account_cooldown had been ignored
// (operator review 48, F8).
func TestEndpointCooldownLogSaysWhy(t *testing.T) {
	h := newHarness(t, "  - {name: r, targets: [one]}\n", downAt("p1", classify.Quota))
	var buf testutil.Buffer
	h.d.log = slog.New(slog.NewTextHandler(&buf, nil))
	for range 3 { // failure_threshold 3
		h.do(t, "r", 0, 0)
	}
	var endpoint, account string
	for _, l := range strings.Split(buf.String(), "\n") {
		switch {
		case strings.Contains(l, "scope=endpoint") && strings.Contains(l, "to=cooling"):
			endpoint = l
		case strings.Contains(l, "scope=account") && strings.Contains(l, "to=cooling"):
			account = l
		}
	}
	if !strings.Contains(endpoint, "reason=failure_threshold") {
		t.Errorf("endpoint line: %q", endpoint)
	}
	if account == "" || strings.Contains(account, "reason=") {
		t.Errorf("account line: %q (its class is its reason)", account)
	}
}

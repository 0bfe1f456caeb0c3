package alert

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/metrics"
)

// TestReview39iNoIntervalStormIsBounded: an operator who sets
// alerts.min_interval: 0 relies on the gateway staying up when a provider
// answers every request with a quota verdict and the webhook is slow: each
// verdict used to start its own delivery (a goroutine and a connection to
// the webhook, alive through five retries), so a storm of verdicts opened
// as many connections as it had verdicts. Deliveries in flight are bounded;
// a verdict met while they are all busy is held back and sent, counted, as
// soon as one ends: never lost.
func TestReview39iNoIntervalStormIsBounded(t *testing.T) {
	var mu sync.Mutex
	inflight, peak := 0, 0
	counts, posts := 0, 0
	hold := make(chan struct{})
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var p Payload
		_ = json.Unmarshal(b, &p)
		mu.Lock()
		inflight++
		peak = max(peak, inflight)
		counts += p.Count
		posts++
		mu.Unlock()
		<-hold
		mu.Lock()
		inflight--
		mu.Unlock()
	}))
	t.Cleanup(hook.Close)
	m := metrics.New()
	n := New(Config{Webhook: hook.URL, MinInterval: -1, Metrics: m, Backoff: noBackoff})
	const storm = 200
	for i := range storm {
		if i%10 == 9 {
			n.Notify("openai", "auth", "status:401") // another class, held back behind quota's
		} else {
			n.Notify("openai", "quota", "phrase:insufficient_quota")
		}
	}
	n.sync()
	// Every delivery started has reached the webhook (or more than the
	// bound already): the deliveries open their connections on their own
	// goroutines.
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		mu.Lock()
		over := inflight > maxDeliveries
		mu.Unlock()
		if over {
			break
		}
	}
	close(hold)
	n.Notify("openai", "quota", "phrase:insufficient_quota") // after the storm
	closeOK(t, n)
	mu.Lock()
	defer mu.Unlock()
	if peak > maxDeliveries {
		t.Errorf("%d alerts in flight at once for a storm of %d verdicts, want at most %d", peak, storm, maxDeliveries)
	}
	if counts != storm+1 {
		t.Errorf("alerts' counts sum to %d, want every one of the %d verdicts", counts, storm+1)
	}
	if sent := alerts(t, m, "openai", "quota", "sent") + alerts(t, m, "openai", "auth", "sent"); int(sent) != posts {
		t.Errorf("detour_alerts_total sent %v, the webhook got %d", sent, posts)
	}
}

package alert

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/metrics"
	"github.com/detour-llm/detour/internal/testutil"
)

// guard bounds every wait in these tests; it is a failure guard, never a
// condition the tests rely on to pass.
const guard = 10 * time.Second

// newClock returns a settable clock shared by a Notifier and a LocalClaimer.
func newClock() *testutil.Clock {
	return testutil.NewClock(time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
}

// hook is a real loopback webhook that records every POST and answers with
// the next status of statuses (the last one repeats; none means 200).
type hook struct {
	*httptest.Server
	mu       sync.Mutex
	statuses []int
	posts    []post
	got      chan post
}

type post struct {
	method, contentType string
	body                []byte
}

func newHook(t *testing.T, statuses ...int) *hook {
	h := &hook{statuses: statuses, got: make(chan post, 100)}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		p := post{method: r.Method, contentType: r.Header.Get("Content-Type"), body: b}
		h.mu.Lock()
		h.posts = append(h.posts, p)
		status := http.StatusOK
		if len(h.statuses) > 0 {
			status = h.statuses[0]
			if len(h.statuses) > 1 {
				h.statuses = h.statuses[1:]
			}
		}
		h.mu.Unlock()
		h.got <- p
		w.WriteHeader(status)
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *hook) Posts() []post {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]post(nil), h.posts...)
}

func (h *hook) Payloads(t *testing.T) []Payload {
	t.Helper()
	var out []Payload
	for _, p := range h.Posts() {
		var pl Payload
		if err := json.Unmarshal(p.body, &pl); err != nil {
			t.Fatalf("webhook body %q: %v", p.body, err)
		}
		out = append(out, pl)
	}
	return out
}

// logBuf is a goroutine-safe log sink; Logger logs to it at debug level.
type logBuf = testutil.Buffer

// noBackoff retries at once, so tests never sleep.
func noBackoff(int) time.Duration { return 0 }

func closeOK(t *testing.T, n *Notifier) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), guard)
	defer cancel()
	if err := n.Close(ctx); err != nil {
		t.Fatalf("Close: %v", err)
	}
}

// alerts reads detour_alerts_total{provider,class,result} from a real Metrics.
func alerts(t *testing.T, m *metrics.Metrics, provider, class, result string) float64 {
	t.Helper()
	fams, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fams {
		if f.GetName() != "detour_alerts_total" {
			continue
		}
		for _, s := range f.GetMetric() {
			l := map[string]string{}
			for _, lp := range s.GetLabel() {
				l[lp.GetName()] = lp.GetValue()
			}
			if l["provider"] == provider && l["class"] == class && l["result"] == result {
				return s.GetCounter().GetValue()
			}
		}
	}
	return 0
}

// blockingClaimer is the one test helper Claimer: it holds every Claim until
// released (a store that hangs), then grants all.
type blockingClaimer struct {
	entered chan struct{}
	release chan struct{}
}

func (b *blockingClaimer) Claim(ctx context.Context, _ string, _ time.Duration) bool {
	select {
	case b.entered <- struct{}{}:
	default:
	}
	select {
	case <-b.release:
		return true
	case <-ctx.Done():
		return false
	}
}

func (b *blockingClaimer) Release(context.Context, string) {}
func (b *blockingClaimer) Forget(context.Context, string)  {}

// *metrics.Metrics is what the server passes as Config.Metrics.
var (
	_ Metrics       = (*metrics.Metrics)(nil)
	_ failedMetrics = (*metrics.Metrics)(nil)
)

package alert

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// probeHook records the event of every POST it answers 200; fail decides,
// per payload, whether to answer 500 instead (not recorded).
type probeHook struct {
	mu    sync.Mutex
	order []string
	fail  func(p Payload, nth int) bool
	seen  map[string]int
}

func newProbeHook(t *testing.T, fail func(p Payload, nth int) bool) (*probeHook, string) {
	h := &probeHook{fail: fail, seen: map[string]int{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p Payload
		_ = json.NewDecoder(r.Body).Decode(&p)
		h.mu.Lock()
		h.seen[p.Event]++
		nth := h.seen[p.Event]
		bad := h.fail != nil && h.fail(p, nth)
		if !bad {
			h.order = append(h.order, p.Event)
		}
		h.mu.Unlock()
		if bad {
			http.Error(w, "unavailable", http.StatusInternalServerError)
		}
	}))
	t.Cleanup(srv.Close)
	return h, srv.URL
}

func (h *probeHook) Order() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return strings.Join(h.order, ",")
}

// A recovery whose post failed said nothing, yet its claim
// ("recovered:<provider>:<class>") is kept for MinInterval: the next
// recovery of the interval is suppressed, and the channel's last word
// is the page although the account serves. A page that is not
// delivered gives its claim back ("told once per interval, never zero
// times"); a recovery should too.
func TestRecoveryNotDeliveredKeepsItsClaim_review56b(t *testing.T) {
	h, url := newProbeHook(t, func(p Payload, nth int) bool { return p.Event == EventRecovered && nth == 1 })
	clk := newClock()
	n := New(Config{Webhook: url, MinInterval: time.Hour, MaxRetries: -1, Claimer: &LocalClaimer{Now: clk.Now},
		Now: clk.Now, Backoff: noBackoff})
	n.Notify("p", "quota", "status:429") // page
	n.sync()
	clk.Advance(time.Minute)
	n.Recovered("p", "quota", "a", time.Time{}, clk.Now()) // the hook answers 500: not said
	n.sync()
	waitFor(t, func() bool { h.mu.Lock(); defer h.mu.Unlock(); return h.seen[EventRecovered] == 1 })
	time.Sleep(50 * time.Millisecond)
	clk.Advance(time.Minute)
	n.Notify("p", "quota", "status:429") // rearmed by the recovery: pages
	n.sync()
	clk.Advance(time.Minute)
	n.Recovered("p", "quota", "a", time.Time{}, clk.Now()) // back again: should be said
	closeOK(t, n)
	if got := h.Order(); got != "page,page,recovered" {
		t.Errorf("posts delivered %q; want page,page,recovered (no recovery was ever said, the account serves)", got)
	}
}

// A page whose first try failed is retried after Backoff; a recovery
// handled meanwhile is posted at once and overtakes it, so the page
// arrives last and the channel says "down" of an account that serves.
// The fix made pages wait for a recovery being posted, not recoveries
// for a page being posted.
func TestRecoveryDoesNotOvertakeARetriedPage_review56b(t *testing.T) {
	h, url := newProbeHook(t, func(p Payload, nth int) bool { return p.Event == EventPage && nth == 1 })
	clk := newClock()
	n := New(Config{Webhook: url, MinInterval: time.Hour, MaxRetries: 2, Claimer: &LocalClaimer{Now: clk.Now},
		Now: clk.Now, Backoff: func(int) time.Duration { return 300 * time.Millisecond }})
	n.Notify("p", "quota", "status:429")
	n.sync()
	waitFor(t, func() bool { h.mu.Lock(); defer h.mu.Unlock(); return h.seen[EventPage] == 1 })
	n.Recovered("p", "quota", "a", time.Time{}, clk.Now().Add(time.Second))
	closeOK(t, n)
	if got := h.Order(); got != "page,recovered" {
		t.Errorf("posts delivered %q; want page,recovered (the account is back: the last word must be the recovery)", got)
	}
}

// An account that flaps and then stays up: page, recovery, page,
// recovery (suppressed: one was said within MinInterval). Nothing ever
// says it is back: the last word is "down" for good, the very thing the
// recovery post was added for (operator review 55).
func TestSuppressedRecoveryLeavesDownAsLastWord_review56b(t *testing.T) {
	h, url := newProbeHook(t, nil)
	clk := newClock()
	n := New(Config{Webhook: url, MinInterval: time.Hour, Claimer: &LocalClaimer{Now: clk.Now}, Now: clk.Now, Backoff: noBackoff})
	for range 2 {
		n.Notify("p", "quota", "status:429")
		n.sync()
		clk.Advance(time.Minute)
		n.Recovered("p", "quota", "a", time.Time{}, clk.Now())
		n.sync()
		clk.Advance(time.Minute)
	}
	clk.Advance(2 * time.Hour) // the account has served since; the interval is long over
	closeOK(t, n)
	got := h.Order()
	if !strings.HasSuffix(got, "recovered") {
		t.Errorf("posts delivered %q: the last word is a page, but the account has served for two hours", got)
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(guard)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

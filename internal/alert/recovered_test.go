package alert

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// An account paged for quota that answers again is said back, once, with
// since when it was out (operator review 55: no post said so), and its
// page is rearmed: the same account failing again ten minutes later
// pages at once, not an hour after the first page. The verdicts held back
// during the outage are not carried into that next page.
func TestRecoveryIsPostedAndRearmsThePage(t *testing.T) {
	clk := newClock()
	h := newHook(t)
	n := New(Config{Webhook: h.URL, MinInterval: time.Hour, Claimer: &LocalClaimer{Now: clk.Now},
		Now: clk.Now, Backoff: noBackoff})
	down := clk.Now()
	n.NotifyUntil("openai", "quota", "phrase:exceeded your current quota", "You exceeded your current quota.", down.Add(time.Hour))
	clk.Advance(time.Minute)
	n.Notify("openai", "quota", "status:429") // held back by the interval
	n.sync()
	clk.Advance(71 * time.Minute)
	back := clk.Now()
	n.Recovered("openai", "quota", "gpt", down, back)
	n.sync()
	clk.Advance(10 * time.Minute)
	again := clk.Now()
	n.Notify("openai", "quota", "status:429") // pages at once: rearmed
	n.Recovered("openai", "auth", "", time.Time{}, again)
	closeOK(t, n)

	got := h.Payloads(t)
	if len(got) != 4 {
		t.Fatalf("got %d posts, want 4 (page, recovery, page, recovery): %+v", len(got), got)
	}
	byEvent := map[string][]Payload{}
	for _, p := range got {
		byEvent[p.Event+"/"+p.Class] = append(byEvent[p.Event+"/"+p.Class], p)
	}
	rec := byEvent["recovered/quota"]
	if len(rec) != 1 {
		t.Fatalf("quota recoveries: %+v, want one", rec)
	}
	r := rec[0]
	if r.Provider != "openai" || r.Recovered != back.Format(time.RFC3339) || r.DownSince != down.Format(time.RFC3339) ||
		r.Evidence != "" || r.Count != 0 || r.TriedAgain != "" ||
		r.Target != "gpt" || !strings.Contains(r.Text, "openai is back (quota): it answered a request for target gpt") || !strings.Contains(r.Text, "(1h12m0s)") {
		t.Errorf("recovery post: %+v", r)
	}
	pages := byEvent["page/quota"]
	if len(pages) != 2 {
		t.Fatalf("quota pages: %+v, want the first and the one after the recovery", pages)
	}
	sort.Slice(pages, func(i, j int) bool { return pages[i].FirstSeen < pages[j].FirstSeen }) // delivered concurrently
	if pages[1].FirstSeen != again.Format(time.RFC3339) || pages[1].Count != 1 {
		t.Errorf("the page after the recovery carried the outage's held-back verdicts: %+v", pages[1])
	}
	if a := byEvent["recovered/auth"]; len(a) != 1 || a[0].DownSince != "" || strings.Contains(a[0].Text, "out since") {
		t.Errorf("a recovery with no known start: %+v", a)
	}
}

// With no webhook a recovery is logged, as a page is.
func TestRecoveryWithoutWebhookIsLogged(t *testing.T) {
	var logs logBuf
	n := New(Config{Logger: logs.Logger()})
	n.Recovered("anthropic", "auth", "claude", time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC), time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	closeOK(t, n)
	if s := logs.String(); !strings.Contains(s, "recovered (no webhook configured)") || !strings.Contains(s, "down_since=2026-11-30T08:00:00Z") {
		t.Errorf("log: %s", s)
	}
}

// An account that fails and serves by turns rearms its page once an
// interval: a page, its recovery (rearming), a second page, its recovery
// (saying that further changes are not posted until the interval has
// passed), then nothing (hostile 56b: a page and a recovery every
// account_cooldown). The last word said is the account's return, as the
// last change this replica posted a page for (review 56b: the last word
// was "down" for an account that served).
func TestRecoveryIsSaidOncePerInterval(t *testing.T) {
	clk := newClock()
	h := newHook(t)
	n := New(Config{Webhook: h.URL, MinInterval: time.Hour, Claimer: &LocalClaimer{Now: clk.Now},
		Now: clk.Now, Backoff: noBackoff})
	for range 3 {
		n.Notify("p", "quota", "status:429")
		clk.Advance(time.Second)
		n.Recovered("p", "quota", "a", clk.Now().Add(-time.Second), clk.Now())
		clk.Advance(time.Second)
		n.sync()
	}
	n.Notify("p", "quota", "status:429")
	closeOK(t, n)
	pages, recoveries := 0, 0
	for _, p := range h.Payloads(t) {
		switch p.Event {
		case EventPage:
			pages++
		case EventRecovered:
			recoveries++
		}
	}
	if pages != 2 || recoveries != 2 {
		t.Errorf("%d pages, %d recoveries in one interval; want 2 and 2", pages, recoveries)
	}
	texts := 0
	for _, p := range h.Payloads(t) {
		if p.Event == EventRecovered && strings.Contains(p.Text, "neither its next failure nor its next return is posted") {
			texts++
		}
	}
	if texts != 1 {
		t.Errorf("%d recoveries say that the interval holds further posts, want the second alone", texts)
	}
	clk.Advance(time.Hour)
	n2 := New(Config{Webhook: h.URL, MinInterval: time.Hour, Claimer: &LocalClaimer{Now: clk.Now}, Now: clk.Now, Backoff: noBackoff})
	n2.Recovered("p", "quota", "a", time.Time{}, clk.Now())
	closeOK(t, n2)
	if got := len(h.Payloads(t)); got != 5 {
		t.Errorf("a recovery in the next interval: %d posts in all, want 5", got)
	}
}

// A page of an account whose recovery is being posted waits for it: the
// channel's last word is the page (hostile 56b: the two raced, and the
// recovery at times arrived last, saying "back" of an account out again).
func TestPageWaitsForTheRecoveryBeingPosted(t *testing.T) {
	var mu sync.Mutex
	var order []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var p Payload
		_ = json.NewDecoder(r.Body).Decode(&p)
		if p.Event == EventRecovered {
			time.Sleep(300 * time.Millisecond) // a slow hook: the page is handled meanwhile
		}
		mu.Lock()
		order = append(order, p.Event)
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	clk := newClock()
	n := New(Config{Webhook: srv.URL, MinInterval: time.Hour, Claimer: &LocalClaimer{Now: clk.Now}, Now: clk.Now, Backoff: noBackoff})
	n.Notify("p", "quota", "status:429")
	n.sync()
	closeWait := time.Now().Add(guard)
	for {
		mu.Lock()
		k := len(order)
		mu.Unlock()
		if k == 1 || time.Now().After(closeWait) {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	n.Recovered("p", "quota", "a", time.Time{}, clk.Now())
	n.Notify("p", "quota", "status:429") // rearmed: pages at once
	closeOK(t, n)
	if got := strings.Join(order, ","); got != "page,recovered,page" {
		t.Errorf("posts arrived %s; want page,recovered,page", got)
	}
}

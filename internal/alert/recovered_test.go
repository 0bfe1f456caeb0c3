package alert

import (
	"sort"
	"strings"
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
	n.Recovered("openai", "quota", down, back)
	n.sync()
	clk.Advance(10 * time.Minute)
	again := clk.Now()
	n.Notify("openai", "quota", "status:429") // pages at once: rearmed
	n.Recovered("openai", "auth", time.Time{}, again)
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
		!strings.Contains(r.Text, "openai is back (quota)") || !strings.Contains(r.Text, "(1h12m0s)") {
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
	n.Recovered("anthropic", "auth", time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC), time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC))
	closeOK(t, n)
	if s := logs.String(); !strings.Contains(s, "recovered (no webhook configured)") || !strings.Contains(s, "down_since=2026-11-30T08:00:00Z") {
		t.Errorf("log: %s", s)
	}
}

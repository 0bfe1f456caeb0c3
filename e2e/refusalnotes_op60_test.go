package e2e

import (
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// refusalNotes are the info lines "client key refused by its limit" in
// logs.
func refusalNotes(logs *h58bLog) []string {
	var notes []string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "client key refused by its limit") {
			notes = append(notes, l)
		}
	}
	return notes
}

// Operator review 60: a budget taken away by a reload and given back by
// the next refused 148 requests and logged none of them at info (the
// first refusal before the reloads was remembered, at the same cap, until
// midnight); and max_concurrent refusals were never logged at info. A
// reload forgets the notes, and the first concurrency refusal of each
// minute is noted, with the cap.
func TestOp60RefusalNotesAfterReloadsAndForConcurrency(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"openai": func(n int, r upstreamtest.Request) upstreamtest.Step {
		s := ok("gpt-4o", "a")
		if strings.Contains(string(r.Body), "slow") {
			s.Delay = 500 * time.Millisecond
		}
		return s
	}})
	cfg := func(budget string) string {
		return strings.ReplaceAll(`
client_keys:
  - {name: team-b, key: key-team-b-0123456789`+budget+`}
  - {name: team-c, key: key-team-c-0123456789, max_concurrent: 1}
providers:
  - {name: p, dialect: openai, base_url: "{openai}", api_key: `+secret+`}
targets:
  - {name: gpt, model: gpt-4o, providers: [p], price: {input: 2.50, output: 10.00}}
routes:
  - {name: deep, targets: [gpt]}
`, "{openai}", fs["openai"].URL)
	}
	const budget = ", budget: {usd_per_day: 0.00003}"
	var logs h58bLog
	url, a := gatewaytest.Start(t, gatewaytest.Config(t, cfg(budget)), app.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	g := &gateway{URL: url, app: a}
	b := []string{"Authorization", "Bearer key-team-b-0123456789"}
	// Each answer costs 5 × $2.50/M + 2 × $10/M = $0.0000325.
	for i, want := range []int{http.StatusOK, http.StatusTooManyRequests} {
		if r := g.post(t, "deep", "", b...); r.Status != want {
			t.Fatalf("request %d: %d, want %d", i, r.Status, want)
		}
	}
	for _, c := range []string{"", budget} { // taken away, given back
		if err := a.Reload(gatewaytest.Config(t, cfg(c))); err != nil {
			t.Fatal(err)
		}
	}
	if r := g.post(t, "deep", "", b...); r.Status != http.StatusTooManyRequests {
		t.Fatalf("after the budget was given back: %d, want 429", r.Status)
	}
	if n := len(refusalNotes(&logs)); n != 2 {
		t.Errorf("team-b refused before the reloads and after them: %d info lines, want 2:\n%s", n, strings.Join(refusalNotes(&logs), "\n"))
	}

	c := []string{"Authorization", "Bearer key-team-c-0123456789"}
	var wg sync.WaitGroup
	wg.Go(func() { g.post(t, "deep", `,"user":"slow"`, c...) })
	time.Sleep(100 * time.Millisecond) // the slow one holds the key's one slot
	for range 3 {
		if r := g.post(t, "deep", "", c...); r.Status != http.StatusTooManyRequests {
			t.Errorf("a request past max_concurrent 1: %d, want 429", r.Status)
		}
	}
	wg.Wait()
	var conc []string
	for _, l := range refusalNotes(&logs) {
		if strings.Contains(l, "limit=max_concurrent") {
			conc = append(conc, l)
		}
	}
	if len(conc) != 1 || !strings.Contains(conc[0], "client=team-c") || !strings.Contains(conc[0], "cap=1") {
		t.Errorf("three max_concurrent refusals in a minute: want one info line naming team-c and its cap, got:\n%s", strings.Join(conc, "\n"))
	}
}

package console

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/query"
)

// priced is a request of client at time at that cost usd at target.
func priced(id, client, target string, at time.Time, usd float64) *decision.Decision {
	c := decision.USD(usd)
	return &decision.Decision{ID: id, Time: at, Route: "deep", Client: client, Outcome: decision.OutcomeOK, Status: 200,
		Attempts: []decision.Attempt{{Target: target, Provider: "openai", Action: decision.ActionDone, Billable: true,
			Usage: &decision.Usage{PromptTokens: 10, CompletionTokens: 5}, CostUSD: &c}}, CostUSD: &c}
}

// The Costs page sums the kept hours a window covers, by the grouping
// asked for: the last 24 hours hold this hour and the 23 before it, today
// starts at midnight UTC, and an hour older than the kept ones counts in
// neither (the ring of records is far shorter than a day, so the sums are
// kept apart from it: docs/console.md, "Costs").
func TestCostsWindows(t *testing.T) {
	now := time.Date(2026, 12, 6, 5, 30, 0, 0, time.UTC)
	c, _, srv := serve(t, now)
	c.Write(priced("1", "team-a", "gpt", now.Add(-time.Minute), 0.5))
	c.Write(priced("2", "team-a", "claude", now.Add(-3*time.Hour), 0.25))           // today
	c.Write(priced("3", "team-b", "gpt", now.Add(-10*time.Hour), 1))                // yesterday, within 24 hours
	c.Write(priced("4", "team-b", "gpt", now.Add(-23*time.Hour-20*time.Minute), 2)) // the 23rd hour before this one
	c.Write(priced("5", "team-c", "gpt", now.Add(-25*time.Hour), 4))                // older than any window

	get := func(q string) (total query.Usage, rows []query.Usage) {
		t.Helper()
		resp, body := fetch(t, srv, "/ui/api/costs"+q)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", q, resp.StatusCode, body)
		}
		var j struct {
			Rows  []query.Usage `json:"rows"`
			Total query.Usage   `json:"total"`
		}
		if err := json.Unmarshal([]byte(body), &j); err != nil {
			t.Fatal(err)
		}
		return j.Total, j.Rows
	}
	total, rows := get("")
	if total.CostUSD != 3.75 || total.Requests != 4 || len(rows) != 2 || rows[0].Key != "team-b" || rows[0].CostUSD != 3 || rows[1].Key != "team-a" {
		t.Errorf("the last 24 hours by client: total %+v, rows %+v", total, rows)
	}
	total, _ = get("?window=today")
	if total.CostUSD != 0.75 || total.Requests != 2 {
		t.Errorf("today: %+v, want $0.75 over 2 requests", total)
	}
	total, rows = get("?by=target&window=today")
	if total.Requests != -1 || len(rows) != 2 || rows[0].Key != "gpt" || rows[0].CostUSD != 0.5 || rows[1].Key != "claude" {
		t.Errorf("today by target: total %+v, rows %+v", total, rows)
	}
	for _, q := range []string{"?by=day", "?by=key", "?window=1h"} {
		if resp, body := fetch(t, srv, "/ui/api/costs"+q); resp.StatusCode != 400 || !strings.Contains(body, "must be") {
			t.Errorf("%s: %d %s, want a 400 naming what may be asked", q, resp.StatusCode, body)
		}
	}
}

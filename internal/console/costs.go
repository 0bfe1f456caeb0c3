package console

import (
	"net/http"
	"time"

	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/query"
)

// costHours is how many hours of spend the Costs page keeps: this one and
// the 23 before it.
const costHours = 24

// costGroupings are the Costs page's groupings, in its menu's order.
var costGroupings = []query.By{query.ByClient, query.ByRoute, query.ByTarget, query.ByProvider}

// costHour sums one UTC hour's records by each grouping.
type costHour struct {
	start int64 // unix hour
	sums  map[query.By]*query.Sums
}

// addCost counts d in the hour it ended, if that hour is kept. The caller
// holds c.mu.
func (c *Console) addCost(d *decision.Decision) {
	h := query.End(d).Unix() / 3600 // the hour it ended, as budgets count
	now := c.opt.Now().Unix() / 3600
	if h > now || h <= now-costHours {
		return
	}
	slot := &c.hours[h%costHours]
	if slot.start != h || slot.sums == nil {
		*slot = costHour{start: h, sums: make(map[query.By]*query.Sums, len(costGroupings))}
		for _, b := range costGroupings {
			slot.sums[b] = query.NewSums(b)
		}
	}
	for _, s := range slot.sums {
		s.Add(d)
	}
}

// costWindows name what the page can sum over.
var costWindows = map[string]string{
	"24h":   "in this hour and the 23 before it",
	"today": "today (UTC)",
}

// costs sums the kept hours from the one holding from onwards.
func (c *Console) costs(b query.By, from time.Time) []query.Usage {
	first := from.Unix() / 3600
	out := query.NewSums(b)
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.opt.Now().Unix() / 3600
	for h := max(first, now-costHours+1); h <= now; h++ {
		slot := &c.hours[h%costHours]
		if slot.start == h && slot.sums != nil {
			out.Merge(slot.sums[b])
		}
	}
	return out.Rows()
}

// apiCosts is the Costs page's table (docs/console.md, "Costs"): what the
// requests this replica served cost, by one grouping, over a window.
func (c *Console) apiCosts(w http.ResponseWriter, r *http.Request) {
	by := query.ByClient
	if s := r.URL.Query().Get("by"); s != "" {
		b, err := query.ParseBy(s)
		if err != nil || b == query.ByDay {
			badRequest(w, "by must be client, route, target or provider")
			return
		}
		by = b
	}
	window := r.URL.Query().Get("window")
	if window == "" {
		window = "24h"
	}
	if _, ok := costWindows[window]; !ok {
		badRequest(w, "window must be 24h or today")
		return
	}
	now := c.opt.Now().UTC()
	from := now.Truncate(time.Hour).Add(-(costHours - 1) * time.Hour)
	if window == "today" {
		from = time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	}
	rows := c.costs(by, from)
	writeJSON(w, map[string]any{"now": now, "replica": c.replica(), "by": by, "window": window, "window_text": costWindows[window],
		"from": from, "rows": rows, "total": query.Total(by, rows)})
}

package app

import (
	"context"
	"time"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/limit"
)

// budgetGap is what this replica's decision log said a client key had
// spent ([0] its day, [1] its month) when a reload took a budget window
// away from it, with state redis: when a later reload gives the window
// back, only what the key spent since counts again, since Redis's counter
// still holds what it counted before (hostile 58b: the window was counted
// twice).
type budgetGap struct {
	window time.Time // the day's or the month's start it was taken away in
	spent  float64
}

// gapKey names a key's window ([0] its day, [1] its month) in App.gaps:
// each window is taken away and given back on its own (review 58b).
type gapKey struct {
	name string
	w    int
}

// restoreAddedBudgets gives each client key of cfg that a reload from old
// gave a budget window it did not have (a usd_per_day or usd_per_month
// added, or a budgeted key new to the configuration) what the decision log
// says it spent in that window: only a key's budgeted windows have
// counters, so a budget added by a reload started its window at nothing,
// where a restart on the same file read the window back (operator review
// 58: the operator who added a month's budget to stop a team saw its next
// request admitted, and the Keys page say 25 % of a budget it had spent
// past). With state memory the counter may still hold what the window
// counted before its budget was taken away; only the log's spend past it
// is added. With state redis each replica adds its own log's share as it
// reloads (what a replica serves before its reload, under no budget, is
// counted by no one else), which the epoch marker then records as held
// (epoch.go); a window this replica saw taken away in this process gets
// only what was spent since (budgetGap). It reports how many keys it gave
// spend to. The caller holds a.mu.
func (a *App) restoreAddedBudgets(old, cfg *config.Config, limits *limit.Limiter, now time.Time) int {
	now = now.UTC()
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	had, has := budgets(old), budgets(cfg)
	starts := [2]time.Time{day, month}
	if a.rdb != nil {
		var gone []gapKey
		for name, b := range had {
			c := has[name]
			if b.USDPerDay > 0 && !(c.USDPerDay > 0) {
				gone = append(gone, gapKey{name, 0})
			}
			if b.USDPerMonth > 0 && !(c.USDPerMonth > 0) {
				gone = append(gone, gapKey{name, 1})
			}
		}
		if len(gone) > 0 {
			a.flushDecisions(old) // as for a budget added, below
			spent, _ := a.logSpent(old, now)
			if a.gaps == nil {
				a.gaps = map[gapKey]budgetGap{}
			}
			for _, k := range gone {
				a.gaps[k] = budgetGap{window: starts[k.w], spent: spent[k.name][k.w]}
			}
		}
	}
	var added []*config.ClientKey
	for i := range cfg.Clients {
		k := &cfg.Clients[i]
		b := had[k.Name]
		if (k.Budget.USDPerDay > 0 && !(b.USDPerDay > 0)) || (k.Budget.USDPerMonth > 0 && !(b.USDPerMonth > 0)) {
			added = append(added, k)
		}
	}
	if len(added) == 0 {
		return 0
	}
	a.flushDecisions(cfg)
	spent, _ := a.logSpent(cfg, now)
	n := 0
	for _, k := range added {
		s := spent[k.Name]
		b := had[k.Name]
		var add [2]float64
		if k.Budget.USDPerDay > 0 && !(b.USDPerDay > 0) {
			add[0] = s[0]
		}
		if k.Budget.USDPerMonth > 0 && !(b.USDPerMonth > 0) {
			add[1] = s[1]
		}
		if a.rdb == nil {
			for _, st := range limits.Standings(context.Background(), k) {
				switch st.Limit {
				case "usd_per_day":
					add[0] = max(0, add[0]-st.Used)
				case "usd_per_month":
					add[1] = max(0, add[1]-st.Used)
				}
			}
		} else {
			for w := range add {
				if add[w] == 0 {
					continue // a window this reload did not give back
				}
				g, ok := a.gaps[gapKey{k.Name, w}]
				if ok && g.window.Equal(starts[w]) {
					add[w] = max(0, add[w]-g.spent)
				}
				delete(a.gaps, gapKey{k.Name, w})
			}
		}
		if add[0] > 0 || add[1] > 0 {
			limits.Restore(context.Background(), k, add[0], add[1])
			n++
		}
	}
	if n > 0 {
		a.log.Info("client budgets: a budget added by this reload counts what its keys spent earlier in its window, read from the decision log", "keys", n)
	}
	return n
}

// budgets are cfg's client keys' budgets by name.
func budgets(cfg *config.Config) map[string]config.Budget {
	out := make(map[string]config.Budget, len(cfg.Clients))
	for i := range cfg.Clients {
		out[cfg.Clients[i].Name] = cfg.Clients[i].Budget
	}
	return out
}

// flushDecisions writes out the records still in the decision writer's
// buffer (decisions: {sync: never}) before the log is read back: they are
// spend too (review 59b). Only for a log that is read (a file), and for at
// most flushWait: a stalled output must not hold the reload, which holds
// every later one.
func (a *App) flushDecisions(cfg *config.Config) {
	if a.writer == nil || cfg.Decisions.Path == "" || cfg.Decisions.Path == "-" {
		return
	}
	if !a.writer.Flush(flushWait) {
		a.log.Warn("client budgets: the decision log did not take its buffered records in time; a reload's budgets read it without them", "waited", flushWait)
	}
}

// flushWait bounds flushDecisions.
const flushWait = 2 * time.Second

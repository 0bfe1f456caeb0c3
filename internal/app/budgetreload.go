package app

import (
	"context"
	"os"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/limit"
)

// A budget a reload adds (a usd_per_day or usd_per_month a key did not
// have, or a budgeted key new to the file) counts what the key spent
// earlier in that window, as a restart on the same file does (operator
// review 58: the reload started the window at nothing, and the Keys page
// said 25 % of a budget the team had spent past). Two parts make it up,
// each counted once:
//
//   - what this process's requests spent while the key had no budget for
//     the window, kept aside by the limiter as each request spends
//     (limit.Limiter.TakeUncounted), and taken while no request spends
//     (server.Swap): a request spends either before the swap, kept aside
//     and counted here, or after it, under the new budget. Review 59b
//     measured the earlier way, reading this process's spend back from
//     the decision log: the requests a reload caught in flight were
//     counted twice (their record filed, their spend after the swap) or
//     not at all (their record filed after the read);
//   - what the decision log says the key spent in the window before this
//     process started (priorSpent), once per key and window: a window the
//     key had at the start was counted then (state memory: restoreBudgets;
//     state redis: by Redis, across the restart).
//
// With state redis each replica counts its own share as it reloads (what a
// replica serves before its reload, under no budget, is counted by no one
// else), which the epoch marker then records as held (epoch.go). With
// state memory a window taken away keeps its counter until it turns, and
// a window given back adds only what was spent without it.

// windowKey names a key's day ([0]) or month ([1]) window.
type windowKey struct {
	name string
	w    int
}

// addedWindows are the budget windows of each key of cfg that a reload
// from old gives it: [0] its day's, [1] its month's.
func addedWindows(old, cfg *config.Config) map[*config.ClientKey][2]bool {
	had := budgets(old)
	out := map[*config.ClientKey][2]bool{}
	for i := range cfg.Clients {
		k := &cfg.Clients[i]
		b := had[k.Name]
		w := [2]bool{k.Budget.USDPerDay > 0 && !(b.USDPerDay > 0), k.Budget.USDPerMonth > 0 && !(b.USDPerMonth > 0)}
		if w[0] || w[1] {
			out[k] = w
		}
	}
	return out
}

// countAddedBudgets readies what Reload does for the budget windows cfg
// adds to its keys: take runs just before cfg is served, while no request
// spends (server.Swap), and only takes the amounts, in memory, which no
// request can then add to; apply, after the swap, gives them to the
// counters (with state redis a round trip a key: review 60a measured a
// reload that gave 100 keys a budget holding every answer 4 s while it
// did that under the swap). A request that spends meanwhile counts under
// the new budget already; counts add in any order. Both are nil when cfg
// adds no window. The decision log is read here, before, where it must
// be. The caller holds a.mu.
func (a *App) countAddedBudgets(old, cfg *config.Config) (take, apply func()) {
	added := addedWindows(old, cfg)
	if len(added) == 0 {
		return nil, nil
	}
	var prior map[string][2]float64 // read once a reload (review 60b: once a window)
	for k, w := range added {
		for i := range w {
			if w[i] && !a.priorGiven[windowKey{k.Name, i}] && prior == nil {
				prior = a.priorSpent(cfg)
			}
		}
	}
	type count struct {
		key *config.ClientKey
		add [2]float64
	}
	var counts []count
	take = func() {
		for k, w := range added {
			var add [2]float64
			add[0], add[1] = a.limits.TakeUncounted(k.Name, w[0], w[1])
			for i := range w {
				if wk := (windowKey{k.Name, i}); w[i] && !a.priorGiven[wk] {
					add[i] += prior[k.Name][i]
					a.givePrior(wk)
				}
			}
			if add[0] > 0 || add[1] > 0 {
				counts = append(counts, count{k, add})
			}
		}
	}
	apply = func() {
		for _, c := range counts {
			a.limits.Restore(context.Background(), c.key, c.add[0], c.add[1])
			attrs := []any{"client", c.key.Name}
			for i, w := range [...]string{"day_usd", "month_usd"} {
				if c.add[i] > 0 {
					attrs = append(attrs, w, c.add[i])
				}
			}
			a.log.Info("client budgets: a budget added by this reload counts what the key spent earlier in its window", attrs...)
		}
	}
	return take, apply
}

// givePrior records that the window wk has its share of the log's spend
// from before this process started: each window gets it once.
func (a *App) givePrior(wk windowKey) {
	if a.priorGiven == nil {
		a.priorGiven = map[windowKey]bool{}
	}
	a.priorGiven[wk] = true
}

// givenAtStart records the windows cfg's keys have budgets for at the
// start: their spend before it was counted then (restoreBudgets) or, with
// state redis, is in Redis's counters.
func (a *App) givenAtStart(cfg *config.Config) {
	for i := range cfg.Clients {
		k := &cfg.Clients[i]
		if k.Budget.USDPerDay > 0 {
			a.givePrior(windowKey{k.Name, 0})
		}
		if k.Budget.USDPerMonth > 0 {
			a.givePrior(windowKey{k.Name, 1})
		}
	}
}

// priorSpent is what the decision log of cfg (and its rotations) says each
// client spent in requests that ended before this process started, in the
// UTC day ([0]) and month ([1]) it is now: the start's windows' spend,
// read once (those records no longer change), and nothing for a window
// that began after the start. Nothing without a log file. A file that
// could not be read adds nothing (logged), and the windows given the rest
// are given it for good: read again, the rest would count twice; the read
// is tried again by the next reload that needs it for other windows.
func (a *App) priorSpent(cfg *config.Config) map[string][2]float64 {
	if cfg.Decisions.Path == "" || cfg.Decisions.Path == "-" {
		return map[string][2]float64{}
	}
	start := limit.Starts(a.started)
	if a.prior == nil {
		spent, ok := map[string][2]float64{}, true
		c := &spentCache{until: a.started}
		for _, path := range logFiles(cfg.Decisions.Path, start[1]) {
			if err := c.add(spent, path, start[1], start[0]); err != nil && !os.IsNotExist(err) {
				a.log.Warn("client budgets: a decision log could not be read; its spend is not counted", "path", path, "err", err)
				ok = false
			}
		}
		if !ok {
			return spent
		}
		a.prior = spent
	}
	now := limit.Starts(a.limits.Now())
	out := make(map[string][2]float64, len(a.prior))
	for name, s := range a.prior {
		if !now[0].Equal(start[0]) {
			s[0] = 0
		}
		if !now[1].Equal(start[1]) {
			s[1] = 0
		}
		out[name] = s
	}
	return out
}

// budgets are cfg's client keys' budgets by name.
func budgets(cfg *config.Config) map[string]config.Budget {
	out := make(map[string]config.Budget, len(cfg.Clients))
	for i := range cfg.Clients {
		out[cfg.Clients[i].Name] = cfg.Clients[i].Budget
	}
	return out
}

package limit

import "time"

// What a key spends in a window it has no budget for is kept aside here,
// per key name and window, for a reload that gives the key the budget
// (internal/app, budgetreload.go; docs/config.md, client_keys): no counter
// holds it, and reading it back from the decision log miscounted the
// requests a reload caught in flight (review 59b).

// tally is spend no counter holds, in the window that began at start.
type tally struct {
	start time.Time
	usd   float64
}

// Starts are the beginnings of the UTC day ([0]) and month ([1]) t is in:
// the budget windows' starts.
func Starts(t time.Time) [2]time.Time {
	t = t.UTC()
	return [2]time.Time{time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC),
		time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)}
}

// keepUncounted adds usd to name's uncounted spend in its day's window
// (day) and month's (month); a window that has turned starts again.
func (l *Limiter) keepUncounted(name string, day, month bool, usd float64) {
	st := Starts(l.now())
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.uncounted == nil {
		l.uncounted = make(map[string]*[2]tally)
	}
	if !l.swept.Equal(st[0]) {
		// Once a day, what is kept for windows that have turned goes: a
		// key that never gets a budget, or was renamed, keeps nothing
		// past its windows (review 60a).
		l.swept = st[0]
		for n, t := range l.uncounted {
			for i := range t {
				if !t[i].start.Equal(st[i]) {
					t[i] = tally{}
				}
			}
			if t[0] == (tally{}) && t[1] == (tally{}) {
				delete(l.uncounted, n)
			}
		}
	}
	t := l.uncounted[name]
	if t == nil {
		t = new([2]tally)
		l.uncounted[name] = t
	}
	for i, keep := range [2]bool{day, month} {
		if !keep {
			continue
		}
		if !t[i].start.Equal(st[i]) {
			t[i] = tally{start: st[i]}
		}
		t[i].usd += usd
	}
}

// TakeUncounted returns what the requests of the key name spent in the
// current UTC day and month while it had no budget for that window, for
// the windows asked (day, month), and forgets it: the caller counts it
// (Restore). With state redis it is this process's share alone. The
// caller makes sure no Spend of the key runs meanwhile under the
// configuration it is leaving (server.Swap), or a request's spend could
// be kept aside after it was taken, and counted by no one.
func (l *Limiter) TakeUncounted(name string, day, month bool) (dayUSD, monthUSD float64) {
	st := Starts(l.now())
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.uncounted[name]
	if t == nil {
		return 0, 0
	}
	var got [2]float64
	for i, take := range [2]bool{day, month} {
		if take && t[i].start.Equal(st[i]) {
			got[i] = t[i].usd
		}
		if take || !t[i].start.Equal(st[i]) {
			t[i] = tally{}
		}
	}
	if t[0] == (tally{}) && t[1] == (tally{}) {
		delete(l.uncounted, name)
	}
	return got[0], got[1]
}

package server

import (
	"strconv"
	"sync"
	"time"
)

// refusalNotes picks the client-limit refusals worth a line at info level:
// the first of each key and limit in each window of that limit (a minute
// for max_concurrent, which has none), so that the log says when a key was first refused, by which
// limit and at what standing — a refusal leaves no decision record, and its
// debug line is off by default, so "we were refused but had budget left"
// could not be answered the next day (operator review 58). A key hammering
// its limit writes one such line a window, not one a request. The zero
// value is ready to use.
type refusalNotes struct {
	mu   sync.Mutex
	next map[string]time.Time // key name, NUL, limit → when the next may be noted
}

// maxNotes bounds the keys and limits remembered: past it, those whose
// window has turned are forgotten.
const maxNotes = 4096

// first reports whether the refusal of client by limit, at its cap, at
// now, whose window turns after wait, is the first of its window at that
// cap, and remembers it until then: a reload that raises the cap makes the next
// refusal the first at the new one (hostile 58b: the log said a key was
// refused once, at the old cap).
func (n *refusalNotes) first(client, limit string, cap float64, now time.Time, wait time.Duration) bool {
	k := client + "\x00" + limit + "\x00" + strconv.FormatFloat(cap, 'g', -1, 64)
	n.mu.Lock()
	defer n.mu.Unlock()
	if now.Before(n.next[k]) {
		return false
	}
	if n.next == nil {
		n.next = map[string]time.Time{}
	}
	if len(n.next) >= maxNotes {
		for k, t := range n.next {
			if !now.Before(t) {
				delete(n.next, k)
			}
		}
		if len(n.next) >= maxNotes {
			return false // a flood of names: the metrics count them
		}
	}
	// Until the window turns, not a minute from now at least: the next
	// minute's first rate refusal was noted up to a minute late, and
	// called the first of its window (operator review 60).
	n.next[k] = now.Add(wait)
	return true
}

// reset forgets every refusal noted: after a reload (a budget taken away
// and given back, a key renamed) the first refusal is noted again
// (operator review 60: none of 148 refusals was).
func (n *refusalNotes) reset() {
	n.mu.Lock()
	defer n.mu.Unlock()
	clear(n.next)
}

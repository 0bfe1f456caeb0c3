package route

import (
	"slices"
	"strconv"
	"time"
)

// Strategy orders a route's targets. The zero value is Ordered.
type Strategy uint8

// The strategies (docs/behaviour.md#routing).
const (
	Ordered Strategy = iota // targets in the listed order
	Fastest                 // never-measured targets first, then by measured latency
	Pool                    // spread by load: fewest requests in flight first
)

// Strategies lists every strategy, in the order of the constants.
func Strategies() []Strategy { return []Strategy{Ordered, Fastest, Pool} }

// String is the strategy's name in the configuration and the decision record.
func (s Strategy) String() string {
	switch s {
	case Ordered:
		return "ordered"
	case Fastest:
		return "fastest"
	case Pool:
		return "pool"
	}
	return "strategy(" + strconv.Itoa(int(s)) + ")"
}

// ParseStrategy returns the strategy named name ("ordered", "fastest", "pool").
func ParseStrategy(name string) (Strategy, bool) {
	for _, s := range Strategies() {
		if s.String() == name {
			return s, true
		}
	}
	return Ordered, false
}

// Candidate is what ordering needs to know about one target or endpoint.
type Candidate struct {
	// Cooling: every way to reach it is cooling; it goes last.
	Cooling bool
	// Until is when it stops cooling (meaningful when Cooling).
	Until time.Time
	// Measured: a latency sample exists.
	Measured bool
	// Latency is the smoothed time to first byte (meaningful when Measured).
	Latency time.Duration
	// InFlight is how many requests it is serving now (pool).
	InFlight int64
}

// Order returns the indexes of cs in the order to try them under strategy s.
// rotate breaks ties in a pool (pass a per-request counter) so equal loads
// spread evenly. Cooling candidates always come last, soonest to recover
// first; the order is stable otherwise.
func Order(s Strategy, cs []Candidate, rotate uint64) []int {
	idx := make([]int, len(cs))
	n := len(cs)
	for i := range idx {
		idx[i] = i
		if s == Pool && n > 0 {
			idx[i] = (i + int(rotate%uint64(n))) % n
		}
	}
	if n < 2 {
		return idx
	}
	less := func(x, y Candidate) bool {
		if x.Cooling != y.Cooling {
			return !x.Cooling
		}
		if x.Cooling {
			return x.Until.Before(y.Until)
		}
		switch s {
		case Fastest:
			if x.Measured != y.Measured {
				return !x.Measured
			}
			return x.Measured && x.Latency < y.Latency
		case Pool:
			return x.InFlight < y.InFlight
		case Ordered:
		}
		return false
	}
	// A stable sort of the indices by their candidates, without the
	// reflection (and allocations) of sort.SliceStable.
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case less(cs[a], cs[b]):
			return -1
		case less(cs[b], cs[a]):
			return 1
		}
		return 0
	})
	return idx
}

// Endpoints orders a target's endpoints: the listed order, cooling ones last,
// soonest to recover first.
func Endpoints(cs []Candidate) []int {
	return Order(Ordered, cs, 0)
}

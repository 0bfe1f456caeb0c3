package policy

import (
	"slices"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/route"
)

// Tail is whether a class may reach a route's guarded tail.
type Tail uint8

// The ways a class may reach the tail.
const (
	// TailNone: the route has no tail.
	TailNone Tail = iota
	// TailNo: the route has a tail, and this class does not reach it.
	TailNo
	// TailYes: this class reaches the tail (tail_on lists it).
	TailYes
)

// Row is everything one class does in one route: the class's Rule and what
// the route's strategy, fallback_on and tail_on add to it.
type Row struct {
	Class classify.Class
	Rule
	// NextTarget: the class moves the request to the route's next target
	// (fallback_on as written, else the strategy's default).
	NextTarget bool
	// LargerWindow: a move to another target (the next one, or the next one
	// within the tail) skips every target whose declared context_window is
	// not larger than the failed one's (context_length). The walk applies
	// it, as only the walk knows the targets.
	LargerWindow bool
	// Tail: whether the class may reach the route's guarded tail.
	Tail Tail
}

// Cooling is the configured health settings a Row's cooling refers to.
type Cooling struct {
	Durations
	// FailureThreshold is how many counted failures in a row cool an endpoint.
	FailureThreshold int
	// MaxCooldown caps an endpoint's doubling cooldown.
	MaxCooldown time.Duration
}

// Spec is what a route says about failover, as the configuration wrote it.
type Spec struct {
	Strategy route.Strategy
	// FallbackOn replaces the strategy's default next-target classes when
	// FallbackSet (an empty list written as [] never moves on).
	FallbackOn  []classify.Class
	FallbackSet bool
	// HasTail: the route has a guarded tail. TailOn names the classes that
	// reach it; empty means DefaultTail (only a route built in code).
	HasTail bool
	TailOn  []classify.Class
}

// Table is one route's failover resolved for every class, once. Dispatch and
// `detour check` both read it (docs/design.md, "One table per route"). The
// zero Table is not usable; build one with NewTable.
type Table struct {
	Strategy route.Strategy
	Cooling  Cooling
	// FallbackSet: the route wrote its own fallback_on, which NextTarget
	// follows; false, the strategy's default (what a record's reason for a
	// target not moved to names: review 64h).
	FallbackSet bool
	rows        []Row // indexed by class
}

// NewTable resolves spec for every class.
func NewTable(spec Spec, cooling Cooling) *Table {
	classes := classify.Classes()
	n := 0
	for _, c := range classes {
		n = max(n, int(c)+1)
	}
	t := &Table{Strategy: spec.Strategy, Cooling: cooling, FallbackSet: spec.FallbackSet, rows: make([]Row, n)}
	for _, c := range classes {
		row := Row{Class: c, Rule: For(c)}
		next := DefaultNextTarget(spec.Strategy, c)
		if spec.FallbackSet {
			next = slices.Contains(spec.FallbackOn, c)
		}
		row.NextTarget = next
		row.LargerWindow = c == classify.ContextLength
		if spec.HasTail {
			tail := DefaultTail(c)
			if len(spec.TailOn) > 0 {
				tail = slices.Contains(spec.TailOn, c)
			}
			row.Tail = TailNo
			if tail {
				row.Tail = TailYes
			}
		}
		t.rows[c] = row
	}
	return t
}

// Row returns class c's row.
func (t *Table) Row(c classify.Class) Row {
	if int(c) >= len(t.rows) {
		panic("policy: invalid class " + c.String())
	}
	return t.rows[c]
}

// Rows returns every class's row, in the order of classify.Classes.
func (t *Table) Rows() []Row {
	out := make([]Row, 0, len(t.rows))
	for _, c := range classify.Classes() {
		out = append(out, t.rows[c])
	}
	return out
}

// CoolFor returns how long a failure of class c cools at once (0 for none),
// given the upstream's Retry-After (Rule.CoolFor).
func (t *Table) CoolFor(c classify.Class, retryAfter time.Duration) time.Duration {
	return t.Row(c).CoolFor(t.Cooling.Durations, retryAfter)
}

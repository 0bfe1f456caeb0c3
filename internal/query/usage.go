package query

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/detour-llm/detour/internal/decision"
)

// By names what usage is grouped by: `detour usage --by` and the console's
// Costs page take the same names.
type By string

// The groupings. By client, route or day each request counts once, with
// its own usage and cost; by target or provider each attempt counts where
// it was made, so a request that failed over appears under both.
const (
	ByClient   By = "client"
	ByRoute    By = "route"
	ByTarget   By = "target"
	ByProvider By = "provider"
	ByDay      By = "day"
)

// ParseBy returns the grouping named s, or an error naming the known ones.
func ParseBy(s string) (By, error) {
	switch b := By(s); b {
	case ByClient, ByRoute, ByTarget, ByProvider, ByDay:
		return b, nil
	}
	return "", fmt.Errorf("must be client, route, target, provider or day, not %q", s)
}

// ParseGroups returns the grouping named s, or several joined by commas
// (client,target: each client's spend by model), each once.
func ParseGroups(s string) (By, error) {
	parts := strings.Split(s, ",")
	for i, p := range parts {
		if _, err := ParseBy(p); err != nil {
			return "", err
		}
		if slices.Contains(parts[:i], p) {
			return "", fmt.Errorf("%q is named twice", p)
		}
	}
	return By(s), nil
}

// Groups are the groupings b joins, in order (one for a plain grouping).
func (b By) Groups() []By {
	var out []By
	for p := range strings.SplitSeq(string(b), ",") {
		out = append(out, By(p))
	}
	return out
}

// KeySep joins a row's keys when b joins several groupings
// (ParseGroups): Usage.Key is then each grouping's key in order, joined
// by it.
const KeySep = "\x00"

// PerAttempt reports whether b counts attempts where they were made (target,
// provider) rather than requests: a total's request count then means
// nothing, since a request may count under several rows.
func (b By) PerAttempt() bool {
	return slices.ContainsFunc(b.Groups(), func(g By) bool { return g == ByTarget || g == ByProvider })
}

// key is d's (and, per attempt, a's) key under b.
func (b By) key(d *decision.Decision, a *decision.Attempt) string {
	one := func(g By) string {
		switch g {
		case ByRoute:
			return d.Route
		case ByDay:
			return End(d).UTC().Format("2006-01-02")
		case ByTarget:
			return a.Target
		case ByProvider:
			return a.Provider
		case ByClient:
		}
		return d.Client
	}
	if !strings.Contains(string(b), ",") {
		return one(b)
	}
	var k strings.Builder
	for i, g := range b.Groups() {
		if i > 0 {
			k.WriteString(KeySep)
		}
		v := one(g)
		if v == "" {
			v = "-"
		}
		// A NUL in a name (no configuration holds one; a log from
		// elsewhere may) would move the rest of it into the next
		// column: written as U+FFFD (review 58b).
		k.WriteString(strings.ReplaceAll(v, KeySep, "\ufffd"))
	}
	return k.String()
}

// Usage is one group's sums (docs/config.md, "Usage and cost"). Input is
// the input neither read from the prompt cache (Cached) nor written to it
// (CacheWrite); each is in CostUSD at its own price.
type Usage struct {
	Key        string `json:"key"`
	Requests   int    `json:"requests"`
	Input      int    `json:"input_tokens"`
	Cached     int    `json:"cached_tokens"`
	CacheWrite int    `json:"cache_write_tokens"`
	Output     int    `json:"output_tokens"`
	// CostUSD sums the known costs, a cut stream's lower bound included.
	CostUSD float64 `json:"cost_usd"`
	// Priced: an attempt had a price (a cost, known or not); without one
	// CostUSD is no cost of 0 but none configured.
	Priced bool `json:"priced"`
	// Unknown counts billable attempts whose cost is not known in full, so
	// a sum with unknowns is a lower bound, never a silent zero.
	Unknown int `json:"cost_unknown"`
	// EstimatedUSD is what client budgets counted for those attempts beyond
	// CostUSD (their recorded estimate).
	EstimatedUSD float64 `json:"estimated_usd"`
	// Failovers counts moves to another endpoint or target (next_endpoint,
	// next_target, tail) after an upstream's failure (not past an attempt
	// Detour did not send); by target or provider, the moves away from it.
	Failovers int `json:"failovers"`
}

// sat is a + b for counts of 0 or more, stopping at the largest int
// rather than wrapping (hostile 54b: 1,025 answers a hostile upstream said
// held 2^53 tokens each wrapped the sums negative).
func sat(a, b int) int {
	if b > 0 && a > math.MaxInt-b {
		return math.MaxInt
	}
	return a + max(b, 0)
}

// add adds o's sums to u.
func (u *Usage) add(o *Usage) {
	u.Requests += o.Requests
	u.Input = sat(u.Input, o.Input)
	u.Cached = sat(u.Cached, o.Cached)
	u.CacheWrite = sat(u.CacheWrite, o.CacheWrite)
	u.Output = sat(u.Output, o.Output)
	u.CostUSD += o.CostUSD
	u.Priced = u.Priced || o.Priced
	u.Unknown += o.Unknown
	u.EstimatedUSD += o.EstimatedUSD
	u.Failovers += o.Failovers
}

// addAttempt adds one attempt's tokens and cost to u.
func (u *Usage) addAttempt(a *decision.Attempt) {
	if x := a.Usage; x != nil && a.Billable { // the tokens billed: an overload before any content reports its input, unbilled
		in, cached, written := x.Input()
		u.Input = sat(u.Input, in)
		u.Cached = sat(u.Cached, cached)
		u.CacheWrite = sat(u.CacheWrite, written)
		u.Output = sat(u.Output, x.CompletionTokens)
	}
	if isFailover(a.Action) && !decision.Unsent(a.Evidence) { // a pass-over is no failover: no upstream failed
		u.Failovers++
	}
	if !a.CostUnknown && a.CostUSD == nil {
		return
	}
	u.Priced = true
	known := 0.0
	if a.CostUSD.Known() {
		known = float64(*a.CostUSD)
		u.CostUSD += known
	}
	if !a.CostInFull() {
		u.Unknown++
		if e := a.Estimate; e != nil {
			u.EstimatedUSD += max(float64(e.USD)-known, 0)
		}
	}
}

func isFailover(action decision.Action) bool {
	return action == decision.ActionNextEndpoint || action == decision.ActionNextTarget || action == decision.ActionTail
}

// Sums sums decision records into one Usage per group. The zero value is
// not ready: use NewSums.
type Sums struct {
	by   By
	rows map[string]*Usage
}

// NewSums returns empty sums grouped by b.
func NewSums(b By) *Sums { return &Sums{by: b, rows: map[string]*Usage{}} }

func (s *Sums) row(k string) *Usage {
	if k == "" {
		k = "-"
	}
	r := s.rows[k]
	if r == nil {
		r = &Usage{Key: k}
		s.rows[k] = r
	}
	return r
}

// Add counts d. It holds nothing of d past the call, so a month of records
// sums in the memory of its groups (hostile 52c: a month of ids held grew
// with the log).
func (s *Sums) Add(d *decision.Decision) {
	if s.by.PerAttempt() {
		var counted []*Usage // a request counts once per row its attempts reached
		for i := range d.Attempts {
			a := &d.Attempts[i]
			r := s.row(s.by.key(d, a))
			if !slices.Contains(counted, r) {
				counted = append(counted, r)
				r.Requests++
			}
			r.addAttempt(a)
		}
		return
	}
	r := s.row(s.by.key(d, nil))
	r.Requests++
	for i := range d.Attempts {
		r.addAttempt(&d.Attempts[i])
	}
}

// End is when d's request ended: its Time (when it began) and its MS.
// Client budgets count a request in the UTC day it ended, and so do the
// windows that are said to be theirs (operator review 54: a request begun
// at 23:59:40 and answered 40 s later was today's spend on the Keys page
// and yesterday's in `detour usage --since today`).
func End(d *decision.Decision) time.Time {
	return d.Time.Add(time.Duration(d.MS * float64(time.Millisecond)))
}

// Merge adds o's sums to s; both must group alike.
func (s *Sums) Merge(o *Sums) {
	for k, r := range o.rows {
		s.row(k).add(r)
	}
}

// Rows returns a copy of the groups: by day in date order, otherwise the
// costliest first (then by name).
func (s *Sums) Rows() []Usage {
	out := make([]Usage, 0, len(s.rows))
	for _, r := range s.rows {
		out = append(out, *r)
	}
	slices.SortFunc(out, func(a, b Usage) int {
		if s.by != ByDay && a.CostUSD != b.CostUSD {
			if a.CostUSD > b.CostUSD {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Key, b.Key)
	})
	return out
}

// Total sums rows under the key "TOTAL". By target or provider its
// Requests is -1: a request may count under several rows.
func Total(b By, rows []Usage) Usage {
	t := Usage{Key: "TOTAL"}
	for i := range rows {
		t.add(&rows[i])
	}
	if b.PerAttempt() {
		t.Requests = -1
	}
	return t
}

package dispatch

import (
	"context"

	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/route"
)

// statusView is a request's view of its route's health: sts[i] is the
// status of keys[i] (the route's keys, a handful). A pair of slices rather
// than a map, because the walk holds it for a stream's whole life and a map
// of even one entry takes a 1 KiB group (docs/benchmarks.md, round 3). A key
// listed twice has the same status at both places, and cooled changes both.
type statusView struct {
	keys []health.Key
	sts  []health.Status
}

// of returns k's status; the zero Status (healthy) for a key not in view.
func (v statusView) of(k health.Key) health.Status {
	for i := range v.keys {
		if v.keys[i] == k && i < len(v.sts) {
			return v.sts[i]
		}
	}
	return health.Status{}
}

// waiting reports whether an endpoint should go last: it is cooling, or
// another request holds its one probe.
func waiting(st health.Status) bool {
	return st.Phase == health.Cooling || st.ProbeHeld
}

// sinkWaiting stably moves the targets whose every endpoint now waits
// (cooling, or its probe held elsewhere) after the others, in place.
func sinkWaiting(ts []*targetRT, status statusView) {
	usable := func(t *targetRT) bool {
		for _, e := range t.endpoints {
			if !waiting(status.of(e.key)) {
				return true
			}
		}
		return false
	}
	out := make([]*targetRT, 0, len(ts))
	for _, t := range ts {
		if usable(t) {
			out = append(out, t)
		}
	}
	for _, t := range ts {
		if !usable(t) {
			out = append(out, t)
		}
	}
	copy(ts, out)
}

// clientLeft ends the walk for a client that went away between attempts.
func (w *walk) clientLeft() *Result {
	if n := len(w.rec.Attempts); n > 0 {
		w.rec.Attempts[n-1].Action = decision.ActionStop
	}
	res := &Result{Canceled: true}
	if w.lastEP != nil {
		res.Target, res.Provider = w.lastEP.key.Target, w.lastEP.key.Provider
	}
	return res
}

// faster makes c's sample st's when st is measured and faster than c's.
func faster(c *route.Candidate, st health.Status) {
	if st.Measured && (!c.Measured || st.Latency < c.Latency) {
		c.Measured, c.Latency = true, st.Latency
	}
}

// orderTargets orders targets by strategy s; a target is cooling when every
// endpoint is. Under fastest, a target measured long ago is measured again
// (remeasure).
func (w *walk) orderTargets(ctx context.Context, ts []*targetRT, s route.Strategy) []*targetRT {
	if len(ts) <= 1 {
		return ts
	}
	cs := make([]route.Candidate, len(ts))
	for i, t := range ts {
		c := route.Candidate{Cooling: true, InFlight: t.inflight.Load()}
		// A target is as fast as the endpoints that will serve it: while
		// any is usable, a cooling one's sample is not its speed (operator
		// review 68e: a retired or key-rejected endpoint's fast sample kept
		// its target first while a slow backup served it). usable is the
		// fastest usable endpoint's sample, all the fastest of any.
		var usable, all route.Candidate
		for _, e := range t.endpoints {
			st := w.status.of(e.key)
			if !waiting(st) {
				c.Cooling = false
				faster(&usable, st)
			} else if c.Until.IsZero() || st.Until.Before(c.Until) {
				c.Until = st.Until
			}
			faster(&all, st)
		}
		if c.Cooling {
			usable = all
		}
		c.Measured, c.Latency = usable.Measured, usable.Latency
		cs[i] = c
	}
	var rot uint64
	switch s {
	case route.Pool:
		rot = w.d.rr.Add(1)
	case route.Fastest:
		w.remeasure(ctx, ts, cs)
	}
	idx := route.Order(s, cs, rot)
	out := make([]*targetRT, len(idx))
	for i, j := range idx {
		out[i] = ts[j]
	}
	return out
}

// remeasure picks at most one usable target whose latency samples are all
// stale (older than health.remeasure_after) while another usable target's
// is fresh, and whose measuring it wins (Tracker.ClaimMeasure: one request
// per endpoint and interval, across replicas): that target orders as never
// measured, so this request measures it again. Without it a target measured
// slow once (a brownout, one client's long answer) was never tried again
// while another served, and the route never learned that it recovered
// (review 38b). When no target's sample is fresh (a quiet route) the old
// samples order the route as they are: the one that serves is measured.
func (w *walk) remeasure(ctx context.Context, ts []*targetRT, cs []route.Candidate) {
	var stale [][]health.Key // per target: its stale endpoints, when it has no fresh one
	busy := false
	for i, t := range ts {
		var st []health.Key
		fresh := false
		for _, e := range t.endpoints {
			s := w.status.of(e.key)
			switch {
			case waiting(s) && !cs[i].Cooling:
				// not what serves the target: its sample ranks nothing
			case !s.Measured:
			case s.Stale:
				st = append(st, e.key)
			default:
				fresh = true
			}
		}
		if cs[i].Cooling {
			st = nil
		} else if fresh {
			busy, st = true, nil
		}
		stale = append(stale, st)
	}
	if !busy {
		return
	}
	for i, keys := range stale {
		won := false
		for _, k := range keys {
			if w.d.opt.Health.ClaimMeasure(ctx, k) {
				won = true
			}
		}
		if won {
			cs[i].Measured = false
			return
		}
	}
}

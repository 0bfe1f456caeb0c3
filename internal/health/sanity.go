package health

import (
	"context"
	"time"
)

// Records are shared by replicas, survive reloads that shorten cooldowns,
// and sit in a store anyone with its password can write. Every record a
// Tracker reads is bounded before it decides anything (docs/behaviour.md,
// "Bounded by the reader"), and a record found out of bounds is written
// back bounded, so the bound is anchored once instead of sliding with
// every read:
//   - no cooldown longer than the longest the served configuration can
//     start (Retirements.Serve; every generation's tracker reads the newest
//     one, so a tracker still serving an older configuration cannot cut a
//     longer cooldown the newer one started);
//   - on the shared clock only (clock.go): no cooldown ending later than
//     its length from now or starting after now, no probe lease ending
//     later than ProbeLease from now, each past clockSlack. A replica whose
//     clock is its own (Redis's not yet measured) cannot tell a writer
//     ahead from itself behind, and bounding by it would cut every other
//     replica's cooldowns and leases short (review 35b): it takes records
//     as written;
//   - on the shared clock only, likewise: no latency sample taken after
//     now, no measuring lease ending later than RemeasureAfter from now;
//   - no negative count or latency.

// sane bounds r at now and reports whether it changed anything.
func (t *Tracker) sane(r *Record, now time.Time) bool {
	if !t.insane(r, now) {
		return false
	}
	if r.LastCooldown < 0 {
		r.LastCooldown = 0
	}
	if l := t.longest(); l > 0 && r.LastCooldown > l {
		// Clock-free: the cooldown ends its excess earlier (a record with
		// no end keeps none: shifted, it would fall before year 0, which
		// no JSON encoder writes, and never be repaired).
		if !r.CoolUntil.IsZero() {
			r.CoolUntil = r.CoolUntil.Add(l - r.LastCooldown)
		}
		r.LastCooldown = l
	}
	if t.sharedClock() {
		if end := now.Add(r.LastCooldown); r.CoolUntil.After(end.Add(clockSlack)) {
			r.CoolUntil = end
		}
		if r.CoolFrom.After(now.Add(clockSlack)) {
			r.CoolFrom = now
		}
		if end := now.Add(t.s.ProbeLease); r.ProbeUntil.After(end.Add(clockSlack)) {
			r.ProbeUntil = end
		}
		if r.SampledAt > now.Add(clockSlack).UnixNano() {
			r.SampledAt = now.UnixNano()
		}
		if end := now.Add(t.s.RemeasureAfter); r.MeasureUntil > end.Add(clockSlack).UnixNano() {
			r.MeasureUntil = end.UnixNano()
		}
	}
	if r.Failures < 0 {
		r.Failures = 0
	}
	if r.Samples <= 0 || r.LatencyEWMA < 0 {
		r.Samples, r.LatencyEWMA = 0, 0
	}
	return true
}

// insane reports whether sane would change r: the hot path's check, a few
// comparisons.
func (t *Tracker) insane(r *Record, now time.Time) bool {
	if r.Failures < 0 || r.Samples < 0 || r.LatencyEWMA < 0 || (r.Samples == 0 && r.LatencyEWMA != 0) {
		return true
	}
	if r.MeasureUntil != 0 || r.Samples > 0 {
		// A sample's time, or a measuring lease, written ahead of the
		// shared clock would hold off measuring again for as long.
		if t.sharedClock() && (r.SampledAt > now.Add(clockSlack).UnixNano() || r.MeasureUntil > now.Add(t.s.RemeasureAfter+clockSlack).UnixNano()) {
			return true
		}
	}
	if r.LastCooldown == 0 && r.CoolUntil.IsZero() && r.CoolFrom.IsZero() && r.ProbeUntil.IsZero() {
		return false // never cooled, or closed: most records
	}
	if l := t.longest(); r.LastCooldown < 0 || (l > 0 && r.LastCooldown > l) {
		return true
	}
	return t.sharedClock() && (r.CoolUntil.After(now.Add(r.LastCooldown+clockSlack)) ||
		r.CoolFrom.After(now.Add(clockSlack)) || r.ProbeUntil.After(now.Add(t.s.ProbeLease+clockSlack)))
}

// bound bounds r, a copy of the record at key read at now, and writes the
// bounded record back when r was out of bounds (rare: the common path is
// insane's few comparisons). A store error leaves it for the next read.
// It returns r.
func (t *Tracker) bound(ctx context.Context, r *Record, key string, now time.Time) *Record {
	if t.sane(r, now) {
		_ = t.store.Update(ctx, key, func(r *Record) { t.sane(r, now) }, nil)
	}
	return r
}

// peek is the phase at now of r, a copy of the record at key read for a
// decision, once it is def's and bounded.
func (t *Tracker) peek(ctx context.Context, r *Record, key, def string, now time.Time) Phase {
	own(r, def)
	return t.bound(ctx, r, key, now).PhaseAt(now)
}

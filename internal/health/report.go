package health

// Report: an attempt's outcome applied to its endpoint's record and its
// provider account's, in the store, with the transitions it caused.

import (
	"context"
	"time"
)

// Report records the outcome of one attempt on endpoint k and returns the
// phase changes it caused (or first observed).
func (t *Tracker) Report(ctx context.Context, k Key, r Report) []Transition {
	return t.ReportSeen(ctx, k, r, nil)
}

// Seen is what a report's update found in the store once it was applied:
// the end of the endpoint's cooldown, and of its account's where the
// update wrote the account (a report that cools it, a release, a probing
// account's close). Zero where none runs or the update did not read it.
//
// A report that finds a scope cooling already, because another request
// (or replica) cooled it a moment before, causes no transition; Seen still
// tells the caller it cools, so the caller's view of health matches the
// store's (dispatch's retry advice reads it: docs/behaviour.md#api).
type Seen struct {
	EndpointUntil, AccountUntil time.Time
}

// ReportSeen is Report that also fills seen (nil: Report) with the state
// its update left.
func (t *Tracker) ReportSeen(ctx context.Context, k Key, r Report, seen *Seen) []Transition {
	if t.ret.retired(k, t.gen) {
		return nil // a later reload changed what k is: this attempt was the old one's
	}
	// Two functions, one after the other: one frame holding both parts'
	// records and closures took a request's handler goroutine past 8 KiB
	// of stack, which a relayed stream keeps for its life
	// (docs/benchmarks.md, "Round 6").
	now := t.now()
	n := t.names(k)
	if a, ok := t.store.(alongUpdater); ok && r.OK {
		return t.reportAlong(ctx, a, k.Provider, &n, r, now, seen)
	}
	tr := t.reportEndpoint(ctx, &n, r, now, seen)
	return t.reportAccount(ctx, k.Provider, &n, r, now, tr, nil, seen)
}

// see sets at, a field of a Seen, to rec's cooldown end if rec cools at now.
func see(at *time.Time, rec *Record, now time.Time) {
	if rec.PhaseAt(now) == Cooling {
		*at = rec.CoolUntil
	}
}

// alongUpdater is a store that reads a second record, of the same hash tag,
// in the round trip of an update (RedisStore.UpdateAlong).
type alongUpdater interface {
	UpdateAlong(ctx context.Context, key, along string, fn func(*Record), ch *Change, other *Record) bool
}

// reportAlong is Report of a success on a store that reads the account
// with the endpoint's update: one round trip where the update and then
// the account's read took two.
//
//go:noinline
func (t *Tracker) reportAlong(ctx context.Context, a alongUpdater, provider string, n *names, r Report, now time.Time, seen *Seen) []Transition {
	var ch Change
	var acct Record
	ok := a.UpdateAlong(ctx, n.ep, n.acct, func(rec *Record) { t.updateEndpoint(rec, n.epDef, &r, now) }, &ch, &acct)
	own(&ch.Before, n.epDef) // a record about something else was nothing to this definition
	own(&ch.After, n.epDef)  // nor is one a success left as it was (yields)
	if seen != nil {
		see(&seen.EndpointUntil, &ch.After, now)
	}
	tr := transitions(nil, ScopeEndpoint, n.name, &ch.Before, &ch.After, now, r.Class)
	if !ok {
		return t.reportAccount(ctx, provider, n, r, now, tr, nil, seen)
	}
	return t.reportAccount(ctx, provider, n, r, now, tr, &acct, seen)
}

// reportEndpoint is Report's part for the endpoint itself.
func (t *Tracker) reportEndpoint(ctx context.Context, n *names, r Report, now time.Time, seen *Seen) []Transition {
	var ch Change
	var err error
	if m, ok := t.store.(*Memory); ok { // its own closure: this one stays on the stack
		err = m.Update(ctx, n.ep, func(rec *Record) { t.updateEndpoint(rec, n.epDef, &r, now) }, &ch)
	} else {
		err = t.store.Update(ctx, n.ep, func(rec *Record) { t.updateEndpoint(rec, n.epDef, &r, now) }, &ch)
	}
	if err != nil {
		return nil
	}
	own(&ch.Before, n.epDef) // a record about something else was nothing to this definition
	own(&ch.After, n.epDef)  // nor is one a success left as it was (yields)
	if seen != nil {
		see(&seen.EndpointUntil, &ch.After, now)
	}
	if r.Words != nil && r.Cool == ScopeEndpoint {
		t.explain(ctx, n.ep, n.epDef, &ch.Before, &ch.After, &r, now)
	}
	return transitions(nil, ScopeEndpoint, n.name, &ch.Before, &ch.After, now, r.Class)
}

// updateEndpoint is the endpoint record's update for r: a success leaves a
// record another definition of the name cools as it is (yields). r is a
// pointer so that the closures calling it copy no Report on a stream
// handler's stack (internal/server TestDoorStreamHandlerStackStays8KiB).
func (t *Tracker) updateEndpoint(rec *Record, def string, r *Report, now time.Time) {
	if !yields(rec, def, r.OK, now) {
		adopt(rec, def)
		t.applyEndpoint(rec, r, now)
	}
}

// explain writes the upstream's words (Report.Words) into the record at
// key when the update from before to after started its cooldown's cause:
// it cools now for r's class, and did not for that class before. Words
// runs here, outside the store's lock and transaction, since it may take
// time (it reads the client's request), and only then: once per cause,
// not once per failure while a cooldown runs. The words are written only
// while the record still cools for that class without words.
//
//go:noinline
func (t *Tracker) explain(ctx context.Context, key, def string, before, after *Record, r *Report, now time.Time) {
	if after.PhaseAt(now) != Cooling || after.CoolClass != r.Class || after.CoolWords != "" ||
		before.PhaseAt(now) == Cooling && before.CoolClass == after.CoolClass {
		return
	}
	w := r.Words()
	if w == "" {
		return
	}
	class := r.Class
	_ = t.store.Update(ctx, key, func(rec *Record) {
		if def != "" && rec.Def != "" && rec.Def != def {
			return // about something else now (define.go)
		}
		if rec.PhaseAt(now) == Cooling && rec.CoolClass == class && rec.CoolWords == "" {
			rec.CoolWords = w
		}
	}, nil)
}

// reportAccount is Report's part for the endpoint's account: tr, the
// endpoint's transitions, with the account's appended. read, when not nil,
// is the account's record as the store read it with the endpoint's update
// (reportAlong): a success then reads it no more.
func (t *Tracker) reportAccount(ctx context.Context, provider string, n *names, r Report, now time.Time, tr []Transition, read *Record, seen *Seen) []Transition {
	var fn func(*Record)
	switch {
	case r.OK:
		// A success through the account closes the account's probe. Look
		// first: most successes find the account healthy and write nothing.
		if m, ok := t.store.(*Memory); ok {
			if acct := m.get(n.acct); t.peek(ctx, &acct, n.acct, n.acctDef, now) != Probing {
				return tr
			}
		} else if read != nil {
			if t.peek(ctx, read, n.acct, n.acctDef, now) != Probing {
				return tr
			}
		} else if recs, err := t.store.Load(ctx, []string{n.acct}); err != nil || len(recs) != 1 || t.peek(ctx, &recs[0], n.acct, n.acctDef, now) != Probing {
			return tr
		}
		// Only a probing account closes on a success: a cooling one may be
		// cooling for one model's spent allowance (a per-model daily cap
		// is quota), which another model's success says nothing about
		// (review 32h).
		fn = func(rec *Record) {
			adopt(rec, n.acctDef)
			t.sane(rec, now)
			rec.Announced = rec.PhaseAt(now)
			if rec.Announced == Probing {
				closeRecord(rec)
				// This update announces the close (probing→healthy):
				// left at probing, the next update of the account
				// announced it again (review 39h).
				rec.Announced = rec.PhaseAt(now)
			}
		}
	case r.Release && r.Cool != ScopeAccount:
		fn = func(rec *Record) {
			adopt(rec, n.acctDef)
			t.sane(rec, now)
			rec.Announced = rec.PhaseAt(now)
			if rec.Announced == Probing {
				release(rec, r.Lease)
			}
		}
	case r.Cool == ScopeAccount && r.CoolFor > 0:
		fn = func(rec *Record) {
			adopt(rec, n.acctDef)
			t.sane(rec, now)
			rec.Announced = rec.PhaseAt(now)
			if r.Class != "" {
				rec.LastClass = r.Class
			}
			t.cool(rec, t.coolFor(&r), now, !r.Hinted, r.Class)
			rec.Announced = rec.PhaseAt(now)
		}
	default:
		return tr
	}
	var ch Change
	if err := t.store.Update(ctx, n.acct, fn, &ch); err == nil {
		own(&ch.Before, n.acctDef)
		if seen != nil {
			see(&seen.AccountUntil, &ch.After, now)
		}
		if r.Words != nil && r.Cool == ScopeAccount {
			t.explain(ctx, n.acct, n.acctDef, &ch.Before, &ch.After, &r, now)
		}
		tr = transitions(tr, ScopeAccount, provider, &ch.Before, &ch.After, now, r.Class)
	}
	return tr
}

package health

import (
	"context"
	"strings"
	"sync"
	"time"
)

// ewmaAlpha is the weight of a new latency sample.
const ewmaAlpha = 0.3

// sampleStep bounds one latency sample's rise: at most this many times the
// smoothed latency it joins (sample, transition.go).
const sampleStep = 4

// Tracker is the health state machine over a Store. It is safe for
// concurrent use; all shared state lives in the store.
type Tracker struct {
	store    Store
	s        Settings
	now      func() time.Time
	idx      map[Key]names // precomputed store keys of the configured endpoints
	eps      []Key         // configured endpoints, in order (Snapshot)
	accounts []string      // their providers, first-seen order (Snapshot)
	// ret and gen: the reloads that retired endpoints (Retirements), and
	// the generation of this tracker's configuration.
	ret *Retirements
	gen uint64
	// acctDefs: what each account is (Define), for Snapshot.
	acctDefs map[string]string

	// AccountForgotten, when set, is called after ForgetAccount cleared an
	// account (an operator's reset, a reload that changed its key): the
	// app rearms its alerts there. Nil calls nothing.
	AccountForgotten func(ctx context.Context, provider string)
}

type names struct {
	ep, acct       string // store keys
	name           string // "target/provider"
	epDef, acctDef string // what each is (Define); "" matches any
}

// namesOf lays out an endpoint's store keys. Both start with the provider
// as a hash tag, "{provider}:", so an endpoint and its account always share
// a Redis Cluster slot (see doc.go, Store keys).
func namesOf(k Key) names {
	return names{ep: tagOf(k.Provider) + "ep:" + k.Target, acct: acctKey(k.Provider), name: k.Target + "/" + k.Provider}
}

// acctKey is the store key of a provider account.
func acctKey(provider string) string { return tagOf(provider) + "acct" }

// tagOf is "{provider}:" with the characters that would end or open the tag
// early, and "%", escaped, so the tag is the whole provider name and two
// providers never share a key.
func tagOf(provider string) string {
	return "{" + tagEscaper.Replace(provider) + "}:"
}

var tagEscaper = strings.NewReplacer("%", "%25", "{", "%7B", "}", "%7D")

// New returns a Tracker over store. endpoints are the configured endpoints
// (Snapshot lists them and their accounts; other keys work too). now nil
// means the store's clock: Redis's for a RedisStore (clock.go), else
// time.Now.
func New(store Store, s Settings, endpoints []Key, now func() time.Time) *Tracker {
	if now == nil {
		now = clockOf(store) // clock.go
	}
	t := &Tracker{store: store, s: s.withDefaults(), now: now, idx: make(map[Key]names, len(endpoints))}
	seen := make(map[string]bool)
	for _, k := range endpoints {
		if _, dup := t.idx[k]; dup {
			continue
		}
		t.idx[k] = namesOf(k)
		t.eps = append(t.eps, k)
		if !seen[k.Provider] {
			seen[k.Provider] = true
			t.accounts = append(t.accounts, k.Provider)
		}
	}
	return t
}

func (t *Tracker) names(k Key) names {
	if n, ok := t.idx[k]; ok {
		return n
	}
	return namesOf(k)
}

// View returns the effective status of each endpoint, in order, with one
// Load for all of them and their accounts. It never fails: on a store error
// every endpoint reads healthy. It only reports; ordering is the caller's job.
func (t *Tracker) View(ctx context.Context, keys []Key) []Status {
	out := make([]Status, len(keys))
	if len(keys) == 0 {
		return out
	}
	var recs []Record
	if m, ok := t.store.(*Memory); ok && len(keys) <= viewPooled {
		// The one-replica store, read in place: no key slice, and records
		// from a pool. Not an array on the stack: 3 KiB there would take
		// a request's handler goroutine past 8 KiB of stack, which a
		// relayed stream keeps for its life (docs/benchmarks.md, "Round 6").
		rb := viewScratch.Get().(*[2 * viewPooled]Record)
		defer viewScratch.Put(rb)
		recs = rb[:2*len(keys)]
		m.loadWith(len(keys), func(i int) (string, string) { n := t.names(keys[i]); return n.ep, n.acct }, recs)
	} else {
		sk := make([]string, 2*len(keys))
		for i, k := range keys {
			n := t.names(k)
			sk[2*i], sk[2*i+1] = n.ep, n.acct
		}
		var err error
		if recs, err = t.store.Load(ctx, sk); err != nil || len(recs) != len(sk) {
			return out
		}
	}
	now := t.now()
	for i := range out {
		ep, acct := &recs[2*i], &recs[2*i+1]
		if ep.Def != "" || acct.Def != "" {
			n := t.names(keys[i])
			own(ep, n.epDef)
			own(acct, n.acctDef)
		}
		if t.insane(ep, now) || t.insane(acct, now) {
			n := t.names(keys[i])
			t.bound(ctx, ep, n.ep, now)
			t.bound(ctx, acct, n.acct, now)
		}
		out[i] = combine(ep, acct, now)
		out[i].Stale = t.stale(ep, now)
	}
	return out
}

// stale reports whether rec's latency sample is older than RemeasureAfter
// with no request measuring it again.
func (t *Tracker) stale(rec *Record, now time.Time) bool {
	ns := now.UnixNano()
	return rec.Samples > 0 && ns-rec.SampledAt > int64(t.s.RemeasureAfter) && ns >= rec.MeasureUntil
}

// ClaimMeasure takes the one right to measure endpoint k's stale latency
// sample again: true for exactly one caller (across replicas, with a
// shared store) per RemeasureAfter while the sample stays stale. The
// caller sends its request there first; if that request brings no sample
// (it failed, the client left), the old one is measured again after
// another RemeasureAfter. On a store error: false (the order stays).
func (t *Tracker) ClaimMeasure(ctx context.Context, k Key) bool {
	now := t.now()
	n := t.names(k)
	var won bool
	err := t.store.Update(ctx, n.ep, func(r *Record) {
		won = false
		adopt(r, n.epDef)
		t.sane(r, now)
		if t.stale(r, now) {
			r.MeasureUntil = now.Add(t.s.RemeasureAfter).UnixNano()
			won = true
		}
	}, nil)
	return err == nil && won
}

// viewPooled is the most endpoints View reads from the memory store
// without allocating its keys and records (a route has a handful).
const viewPooled = 8

// viewScratch holds View's records for the memory store; loadWith
// overwrites every one it hands out.
var viewScratch = sync.Pool{New: func() any { return new([2 * viewPooled]Record) }}

// combine is the effective status of an endpoint record and its account's.
func combine(ep, acct *Record, now time.Time) Status {
	st := Status{
		Failures:  ep.Failures,
		LastClass: ep.LastClass,
		Measured:  ep.Samples > 0,
		Latency:   ep.LatencyEWMA,
	}
	pe, pa := ep.PhaseAt(now), acct.PhaseAt(now)
	switch {
	case pe == Cooling || pa == Cooling:
		st.Phase = Cooling
		if pe == Cooling {
			st.Until = ep.CoolUntil
		}
		if pa == Cooling && acct.CoolUntil.After(st.Until) {
			st.Until = acct.CoolUntil
		}
	case pe == Probing || pa == Probing:
		st.Phase = Probing
		for _, r := range []*Record{ep, acct} {
			if r.PhaseAt(now) == Probing && now.Before(r.ProbeUntil) {
				st.ProbeHeld = true
				if r.ProbeUntil.After(st.Until) {
					st.Until = r.ProbeUntil
				}
			}
		}
	}
	if pa != Healthy && (pe == Healthy || (pa == Cooling && pe != Cooling)) && acct.LastClass != "" {
		st.LastClass = acct.LastClass
	}
	if st.Phase != Healthy {
		// The cause is the record that holds the endpoint back longest:
		// a cooling one over a probing one, of two cooling the one whose
		// cooldown ends last, of two probing the endpoint's own.
		src := ep
		if pa == Cooling && (pe != Cooling || acct.CoolUntil.After(ep.CoolUntil)) || pa == Probing && pe == Healthy {
			src = acct
		}
		st.CoolClass, st.CoolWords = causeOf(src), src.CoolWords
	}
	return st
}

// TryProbe asks to send the one probe request to an endpoint whose cooldown
// (its own or its account's) has passed but that has not closed. It takes
// the probe lease of each such record atomically through the store; false
// means another request or replica holds it, or a cooldown is still
// running. A healthy endpoint needs no probe: true. On a store error: true.
func (t *Tracker) TryProbe(ctx context.Context, k Key) (ok bool, tr []Transition) {
	ok, _, tr = t.TryProbeLease(ctx, k)
	return ok, tr
}

// TryProbeLease is TryProbe that also returns the lease taken (zero when
// none was: the endpoint and its account were not probing). A Report that
// gives the slot back (Release) names it as Lease, so it frees only its
// own: another request may hold the slot by then, once this lease ran out.
func (t *Tracker) TryProbeLease(ctx context.Context, k Key) (ok bool, lease time.Time, tr []Transition) {
	now := t.now()
	n := t.names(k)
	recs, err := t.store.Load(ctx, []string{n.ep, n.acct})
	if err != nil || len(recs) != 2 {
		return true, time.Time{}, nil
	}
	own(&recs[0], n.epDef)
	own(&recs[1], n.acctDef)
	t.bound(ctx, &recs[0], n.ep, now)
	t.bound(ctx, &recs[1], n.acct, now)
	pe, pa := recs[0].PhaseAt(now), recs[1].PhaseAt(now)
	if pe == Cooling || pa == Cooling {
		return false, time.Time{}, nil
	}
	lease = now.Add(t.s.ProbeLease)
	if pa == Probing {
		won, trs := t.lease(ctx, ScopeAccount, n.acct, n.acctDef, k.Provider, now, lease)
		tr = append(tr, trs...)
		if !won {
			return false, time.Time{}, tr
		}
	}
	if pe == Probing {
		won, trs := t.lease(ctx, ScopeEndpoint, n.ep, n.epDef, n.name, now, lease)
		tr = append(tr, trs...)
		if !won {
			if pa == Probing { // give back the account's slot we just took
				_ = t.store.Update(ctx, n.acct, func(r *Record) {
					if r.ProbeUntil.Equal(lease) {
						r.ProbeUntil = time.Time{}
					}
				}, nil)
			}
			return false, time.Time{}, tr
		}
	}
	if pe != Probing && pa != Probing {
		lease = time.Time{} // nothing taken
	}
	return true, lease, tr
}

// lease takes the probe slot of one record if it is free.
func (t *Tracker) lease(ctx context.Context, sc Scope, key, def, name string, now, until time.Time) (bool, []Transition) {
	var won bool
	var ch Change
	err := t.store.Update(ctx, key, func(r *Record) {
		won = false
		adopt(r, def)
		t.sane(r, now)
		switch r.PhaseAt(now) {
		case Healthy: // closed meanwhile: nothing to probe
			won = true
		case Probing:
			if !now.Before(r.ProbeUntil) {
				r.ProbeUntil = until
				won = true
			}
		}
		r.Announced = r.PhaseAt(now)
	}, &ch)
	if err != nil {
		return true, nil
	}
	own(&ch.Before, def) // a record about something else was nothing to this definition
	return won, transitions(nil, sc, name, &ch.Before, &ch.After, now, "")
}

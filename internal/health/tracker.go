package health

import (
	"context"
	"strings"
	"sync"
	"time"
)

// ewmaAlpha is the weight of a new latency sample.
const ewmaAlpha = 0.3

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
	_, _, err := t.store.Update(ctx, n.ep, func(r *Record) {
		won = false
		adopt(r, n.epDef)
		t.sane(r, now)
		if t.stale(r, now) {
			r.MeasureUntil = now.Add(t.s.RemeasureAfter).UnixNano()
			won = true
		}
	})
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
				_, _, _ = t.store.Update(ctx, n.acct, func(r *Record) {
					if r.ProbeUntil.Equal(lease) {
						r.ProbeUntil = time.Time{}
					}
				})
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
	before, after, err := t.store.Update(ctx, key, func(r *Record) {
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
	})
	if err != nil {
		return true, nil
	}
	own(&before, def) // a record about something else was nothing to this definition
	return won, transitions(nil, sc, name, &before, &after, now, "")
}

// Report records the outcome of one attempt on endpoint k and returns the
// phase changes it caused (or first observed).
func (t *Tracker) Report(ctx context.Context, k Key, r Report) []Transition {
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
		return t.reportAlong(ctx, a, k.Provider, &n, r, now)
	}
	tr := t.reportEndpoint(ctx, &n, r, now)
	return t.reportAccount(ctx, k.Provider, &n, r, now, tr, nil)
}

// alongUpdater is a store that reads a second record, of the same hash tag,
// in the round trip of an update (RedisStore.UpdateAlong).
type alongUpdater interface {
	UpdateAlong(ctx context.Context, key, along string, fn func(*Record)) (before, after, other Record, ok bool)
}

// reportAlong is Report of a success on a store that reads the account
// with the endpoint's update: one round trip where the update and then
// the account's read took two.
//
//go:noinline
func (t *Tracker) reportAlong(ctx context.Context, a alongUpdater, provider string, n *names, r Report, now time.Time) []Transition {
	before, after, acct, ok := a.UpdateAlong(ctx, n.ep, n.acct, func(rec *Record) { adopt(rec, n.epDef); t.applyEndpoint(rec, r, now) })
	own(&before, n.epDef) // a record about something else was nothing to this definition
	tr := transitions(nil, ScopeEndpoint, n.name, &before, &after, now, r.Class)
	if !ok {
		return t.reportAccount(ctx, provider, n, r, now, tr, nil)
	}
	return t.reportAccount(ctx, provider, n, r, now, tr, &acct)
}

// reportEndpoint is Report's part for the endpoint itself.
func (t *Tracker) reportEndpoint(ctx context.Context, n *names, r Report, now time.Time) []Transition {
	var before, after Record
	var err error
	if m, ok := t.store.(*Memory); ok { // its own closure: this one stays on the stack
		before, after, err = m.Update(ctx, n.ep, func(rec *Record) { adopt(rec, n.epDef); t.applyEndpoint(rec, r, now) })
	} else {
		before, after, err = t.store.Update(ctx, n.ep, func(rec *Record) { adopt(rec, n.epDef); t.applyEndpoint(rec, r, now) })
	}
	if err != nil {
		return nil
	}
	own(&before, n.epDef) // a record about something else was nothing to this definition
	if r.Words != nil && r.Cool == ScopeEndpoint {
		t.explain(ctx, n.ep, n.epDef, &before, &after, &r, now)
	}
	return transitions(nil, ScopeEndpoint, n.name, &before, &after, now, r.Class)
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
	_, _, _ = t.store.Update(ctx, key, func(rec *Record) {
		if def != "" && rec.Def != "" && rec.Def != def {
			return // about something else now (define.go)
		}
		if rec.PhaseAt(now) == Cooling && rec.CoolClass == class && rec.CoolWords == "" {
			rec.CoolWords = w
		}
	})
}

// reportAccount is Report's part for the endpoint's account: tr, the
// endpoint's transitions, with the account's appended. read, when not nil,
// is the account's record as the store read it with the endpoint's update
// (reportAlong): a success then reads it no more.
func (t *Tracker) reportAccount(ctx context.Context, provider string, n *names, r Report, now time.Time, tr []Transition, read *Record) []Transition {
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
			t.cool(rec, t.coolFor(r), now, !r.Hinted, r.Class)
			rec.Announced = rec.PhaseAt(now)
		}
	default:
		return tr
	}
	before, after, err := t.store.Update(ctx, n.acct, fn)
	if err == nil {
		own(&before, n.acctDef)
		if r.Words != nil && r.Cool == ScopeAccount {
			t.explain(ctx, n.acct, n.acctDef, &before, &after, &r, now)
		}
		tr = transitions(tr, ScopeAccount, provider, &before, &after, now, r.Class)
	}
	return tr
}

// applyEndpoint is the endpoint's state machine for one outcome.
func (t *Tracker) applyEndpoint(rec *Record, r Report, now time.Time) {
	t.sane(rec, now)
	phase := rec.PhaseAt(now)
	rec.Announced = phase
	if r.OK {
		rec.Failures = 0
		if servedSince(rec, phase, r, now) {
			closeRecord(rec)
		}
		if r.Latency > 0 {
			sample(rec, r, now, t.s.RemeasureAfter)
		}
		rec.Announced = rec.PhaseAt(now)
		return
	}
	if r.Class != "" {
		rec.LastClass = r.Class
	}
	var base time.Duration
	if r.Cool == ScopeEndpoint && r.CoolFor > 0 {
		base = t.coolFor(r)
	}
	if r.Count {
		rec.Failures++
		if rec.Failures >= t.s.FailureThreshold || phase == Probing {
			base = max(base, t.s.Cooldown)
		}
	}
	if base > 0 {
		t.cool(rec, base, now, !r.Hinted, r.Class)
	} else if r.Release {
		release(rec, r.Lease)
	}
	rec.Announced = rec.PhaseAt(now)
}

// sample feeds success r's latency into rec's. A sample older than
// remeasure says little of the endpoint now (it may have been a brownout,
// or one client's long answer), and whole answers' say little beside a
// stream's (their first byte is their whole generation): the new one
// replaces such a sample. A whole answer's is dropped while a stream's is
// recent, so one client's long answers do not rank the endpoint.
func sample(rec *Record, r Report, now time.Time, remeasure time.Duration) {
	stale := rec.Samples == 0 || now.UnixNano()-rec.SampledAt > int64(remeasure)
	switch {
	case r.Whole && !stale && !rec.WholeOnly:
		return
	case stale || rec.WholeOnly && !r.Whole:
		rec.LatencyEWMA = r.Latency
	default:
		rec.LatencyEWMA = time.Duration(ewmaAlpha*float64(r.Latency) + (1-ewmaAlpha)*float64(rec.LatencyEWMA))
	}
	rec.WholeOnly = r.Whole
	rec.Samples++
	rec.SampledAt = now.UnixNano()
}

// coolFor is how long r asks to cool: an upstream's hint is capped at
// MaxCooldown.
func (t *Tracker) coolFor(r Report) time.Duration {
	if r.Hinted {
		return min(r.CoolFor, t.s.MaxCooldown)
	}
	return r.CoolFor
}

// cool starts (or extends) a cooldown of at least base. A failure while
// probing doubles the last cooldown, up to max(MaxCooldown, base), unless
// double is false: base is the upstream's own wait (Retry-After), and a
// request that waited out the first and met the same answer again is told
// the same, not twice it (review 32e). A running longer cooldown is never
// shortened. class is the cooldown's cause (Record.CoolClass) when it
// starts the cooldown, or makes a running one end later and is another
// class; a failure that leaves the end where it was leaves the cause.
func (t *Tracker) cool(rec *Record, base time.Duration, now time.Time, double bool, class string) {
	d := base
	phase := rec.PhaseAt(now)
	if phase == Probing && double {
		d = max(base, min(2*rec.LastCooldown, max(t.s.MaxCooldown, base)))
	}
	if until := now.Add(d); until.After(rec.CoolUntil) {
		rec.CoolUntil = until
		if phase != Cooling || rec.CoolClass != class {
			rec.CoolClass, rec.CoolWords = class, ""
		}
	}
	if phase == Cooling {
		rec.LastCooldown = max(rec.LastCooldown, d)
	} else {
		rec.LastCooldown = d
	}
	rec.CoolFrom = now
	rec.ProbeUntil = time.Time{}
}

// servedSince reports whether a success r closes the endpoint record rec,
// in phase at now: a probing record, or a cooling one whose cooldown began
// before the attempt did (Report.Took). (An account closes only from
// probing: Report.) A cooling endpoint is still tried when nothing else
// serves; its success is the evidence the cooldown was wrong, or is over
// (review 32e: one 404 "No endpoints found" kept a serving endpoint last
// for a day). The cooldown's start is the last failure that cooled it
// (CoolFrom: a success begun before a failure that extended a running
// cooldown closes nothing, review 32h), or, in a record written before
// CoolFrom was kept, CoolUntil − LastCooldown.
func servedSince(rec *Record, phase Phase, r Report, now time.Time) bool {
	switch phase {
	case Probing:
		return true
	case Cooling:
		from := rec.CoolFrom
		if from.IsZero() {
			from = rec.CoolUntil.Add(-rec.LastCooldown)
		}
		return r.Took > 0 && !now.Add(-r.Took).Before(from)
	}
	return false
}

func closeRecord(rec *Record) {
	rec.CoolUntil, rec.CoolFrom = time.Time{}, time.Time{}
	rec.LastCooldown = 0
	rec.ProbeUntil = time.Time{}
	rec.CoolClass, rec.CoolWords = "", ""
}

// transitions appends the phase changes between two versions of a record:
// first the change time made (from the last announced phase to the phase at
// now, e.g. cooling→probing, with the class of the cooldown), then the change
// the update made (with class, or the record's cooldown's class when class
// is "" and the record did not close).
func transitions(tr []Transition, sc Scope, name string, before, after *Record, now time.Time, class string) []Transition {
	mid := before.PhaseAt(now)
	if before.Announced != mid {
		tr = append(tr, Transition{Scope: sc, Name: name, From: before.Announced, To: mid, Class: causeOf(before)})
	}
	if to := after.PhaseAt(now); to != mid {
		if class == "" && to != Healthy {
			class = causeOf(after)
		}
		t := Transition{Scope: sc, Name: name, From: mid, To: to, Class: class}
		if to == Cooling {
			t.Until = after.CoolUntil
		}
		tr = append(tr, t)
	}
	return tr
}

// release gives back rec's probe slot if it holds lease (any lease when
// lease is zero): a lease that ran out may have been taken over since.
func release(rec *Record, lease time.Time) {
	if lease.IsZero() || rec.ProbeUntil.Equal(lease) {
		rec.ProbeUntil = time.Time{}
	}
}

// causeOf is the class a record's phase is about: its cooldown's, or its
// last failure's in a record written before the cooldown's was kept.
func causeOf(r *Record) string {
	if r.CoolClass != "" {
		return r.CoolClass
	}
	return r.LastClass
}

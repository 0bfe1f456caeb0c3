package health

// The state machine of one record: what an outcome does to an endpoint's
// or account's record (cooling, latency samples, probes' leases), and the
// transitions a change of phase reports. Pure functions of the record and
// the time; Report (report.go) reads and writes the store around them.

import "time"

// applyEndpoint is the endpoint's state machine for one outcome.
func (t *Tracker) applyEndpoint(rec *Record, r *Report, now time.Time) {
	t.sane(rec, now)
	phase := rec.PhaseAt(now)
	rec.Announced = phase
	if r.OK {
		if r.Whole && rec.StreamFails && phase != Probing {
			// A whole answer says nothing of the streams that failed:
			// the count and a cooldown they began stand (a probe's
			// success, whatever it was, still closes).
			if r.Latency > 0 {
				sample(rec, r, now, t.s.RemeasureAfter)
			}
			rec.Announced = rec.PhaseAt(now)
			return
		}
		rec.Failures, rec.StreamFails = 0, false
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
		rec.StreamFails = rec.StreamFails || r.Stream
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
func sample(rec *Record, r *Report, now time.Time, remeasure time.Duration) {
	stale := rec.Samples == 0 || now.UnixNano()-rec.SampledAt > int64(remeasure)
	lat := r.Latency
	if rec.Samples > 0 && rec.LatencyEWMA > 0 && rec.WholeOnly == r.Whole {
		// One sample moves the latency up by at most sampleStep times what
		// it was: a stream's time to first content is also its request's
		// (a long prompt, a model told to reason), and one client's slow
		// request, made the sample after a stale one, took a target out of
		// a fastest route for remeasure_after (hostile 57b). A provider
		// that is slow for everyone is ranked so within a few requests.
		lat = min(lat, sampleStep*rec.LatencyEWMA)
	}
	switch {
	case r.Whole && !stale && !rec.WholeOnly:
		return
	case stale || rec.WholeOnly && !r.Whole:
		rec.LatencyEWMA = lat
	default:
		rec.LatencyEWMA = time.Duration(ewmaAlpha*float64(lat) + (1-ewmaAlpha)*float64(rec.LatencyEWMA))
	}
	rec.WholeOnly = r.Whole
	rec.Samples++
	rec.SampledAt = now.UnixNano()
}

// coolFor is how long r asks to cool: an upstream's hint is capped at
// MaxCooldown.
func (t *Tracker) coolFor(r *Report) time.Duration {
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
	if rec.LastCooldown == 0 {
		rec.OpenSince = now.UnixNano() // it opens
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
func servedSince(rec *Record, phase Phase, r *Report, now time.Time) bool {
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
	rec.StreamFails = false
	rec.OpenSince = 0
}

// transitions appends the phase changes between two versions of a record:
// first the change time made (from the last announced phase to the phase at
// now, e.g. cooling→probing, with the class of the cooldown), then the change
// the update made (with class; when class is "", the record's cooldown's
// class, or on a close the class it came back from and since when it was
// out).
func transitions(tr []Transition, sc Scope, name string, before, after *Record, now time.Time, class string) []Transition {
	mid := before.PhaseAt(now)
	if before.Announced != mid {
		tr = append(tr, Transition{Scope: sc, Name: name, From: before.Announced, To: mid, Class: causeOf(before)})
	}
	if to := after.PhaseAt(now); to != mid {
		switch {
		case class != "":
		case to == Healthy:
			class = causeOf(before) // what it came back from
		default:
			class = causeOf(after)
		}
		t := Transition{Scope: sc, Name: name, From: mid, To: to, Class: class}
		switch {
		case to == Cooling:
			t.Until = after.CoolUntil
		case to == Healthy:
			if s := since(before.OpenSince, now); s != nil {
				t.Since = *s
			}
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

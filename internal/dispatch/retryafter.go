package dispatch

import (
	"slices"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/policy"
)

// When to come back (docs/behaviour.md#api, "When to come back"). A
// request that ends with a rate limit or a provider's overload whose
// answer named its wait tells the client when to ask again (the front
// writes it as Retry-After), so an SDK waits that long instead of retrying
// on its own short backoff into the same limit. The wait is the soonest
// moment any endpoint the request tried, or had left to try when a budget
// stopped it, may serve it again, read from the decision record:
//
//   - an endpoint whose last attempt was a rate_limited or server_error
//     answer naming its wait (Retry-After, retry-after-ms, a retry time the
//     classifier read in the body, such as Gemini's RetryInfo; never one
//     the client's own text could have put there): the end of that attempt
//     plus the wait, at most health.max_cooldown — by then Detour tries the
//     endpoint again itself, whatever the upstream said;
//   - an endpoint whose last attempt failed otherwise in a way that may
//     pass at any moment (a timeout, a server error or rate limit naming no
//     wait, an unplaced answer), or that the budget left untried and is
//     not cooling: now — a retry may be served at once, so no wait is sent;
//   - an untried endpoint that is cooling: the end of its cooldown;
//   - an endpoint of a target the route's rules did not move on to, once
//     the endpoint the walk stopped at is cooling (an ordered route stops
//     at a gone model or a rejected key, which cool at once): as one a
//     budget left, since the next request skips what stopped this one;
//   - an endpoint that cannot serve this request soon whatever the wait
//     (the request is at fault there, the account is spent or rejected,
//     the model gone, the access denied, a translation refused, an answer
//     it cannot relay and would give again: outcome.settled): left out.
//
// The walk's order is why the soonest and not the last failure's wait: the
// client's next request walks the route again, and any endpoint that may
// serve it then may answer it.
//
// Whether to retry (docs/behaviour.md#api). The SDKs built by Stainless
// (openai-go and the OpenAI SDKs, the Anthropic SDKs) retry a 408, 409,
// 429 or 5xx on their own, twice by default, unless the answer says
// x-should-retry: false. Detour has already retried and failed over as
// the route allows, so it says so when another try cannot help soon or
// would pay again: when no endpoint left above will serve the request soon
// (within RetryHorizon: a longer wait the SDKs either sleep through
// or ignore for a short backoff into the same limit),
// when the request itself is at fault (policy.Rule.Faulty), and when its
// billable budget is spent (a retry is a new request, with a new budget),
// by a budget stop or by the walk's last attempt alike.

// RetryHorizon is the longest wait after which a client's own retry of a
// refused or failed request is still worth it (docs/behaviour.md#api,
// "Whether to retry"). The official SDKs differ past it: Anthropic's and
// OpenAI's Python and TypeScript SDKs ignore a longer Retry-After and retry
// on their own short backoff, into the same limit; openai-go gives up past
// two minutes; anthropic-sdk-go sleeps however long it is told. An answer
// whose wait is longer says x-should-retry: false (Failure.NoRetry; the
// front's own refusals too), and keeps its Retry-After for whoever
// schedules the next try.
const RetryHorizon = time.Minute

// comeBack is when the client may ask again for a request that ended
// (now), not committed: after wait (0: at once), or never, when no
// endpoint the request tried or had left to try will serve it soon.
func (w *walk) comeBack(now time.Time) (wait time.Duration, never bool) {
	var eps []ready
	set := func(r ready) {
		for i := range eps {
			if eps[i].k == r.k {
				eps[i] = r // the later attempt at it knows better
				return
			}
		}
		eps = append(eps, r)
	}
	maxCool := w.d.opt.Config.Health.MaxCooldown
	for i := range w.rec.Attempts {
		a := &w.rec.Attempts[i]
		c, err := classify.ParseClass(a.Class)
		if err != nil { // a success or a canceled attempt: not how this request ended
			continue
		}
		r := ready{k: health.Key{Target: a.Target, Provider: a.Provider}, at: now}
		switch wait, soon := waitOf(c, a); {
		case !soon, slices.Contains(w.settled, i): // a settled failure answers the same again, billed
			r.none = true
		case wait > 0:
			end := w.start.Add(time.Duration((a.StartMS + a.MS) * float64(time.Millisecond)))
			if maxCool > 0 {
				wait = min(wait, maxCool)
			}
			r.at = end.Add(wait)
		}
		set(r)
	}
	if w.stopped != stopNone {
		budget := w.reason(w.stopped)
		for _, s := range w.rec.Skipped {
			k := health.Key{Target: s.Target, Provider: s.Provider}
			if s.Reason != budget || w.attempted(k) {
				continue
			}
			set(w.untried(k, now))
		}
	}
	// Targets the rules did not move on to (an ordered route stops at a
	// gone model or a rejected key): once the endpoint it stopped at is
	// cooling — cooled by this request, or found cooling by its report
	// (tell) — the client's next request skips it and reaches them.
	if w.stopEP != nil && w.status.of(w.stopEP.key).Phase == health.Cooling {
		for _, t := range w.unwalked {
			for _, e := range t.endpoints {
				if !w.attempted(e.key) {
					set(w.untried(e.key, now))
				}
			}
		}
	}
	var soonest time.Time
	for _, r := range eps {
		if !r.none && (soonest.IsZero() || r.at.Before(soonest)) {
			soonest = r.at
		}
	}
	if soonest.IsZero() {
		return 0, len(eps) > 0
	}
	return max(soonest.Sub(now), 0), false
}

// ready is when an endpoint may serve a request again (comeBack).
type ready struct {
	k    health.Key
	at   time.Time
	none bool // this endpoint will not serve the request soon
}

// untried is when endpoint k, which the request did not try, may serve it:
// now, or the end of its cooldown. The cooldown's end is on health's clock
// (Redis's, over Redis: internal/health/clock.go), now on this process's:
// what is left of it is measured on health's.
func (w *walk) untried(k health.Key, now time.Time) ready {
	r := ready{k: k, at: now}
	if st := w.status.of(k); st.Phase == health.Cooling {
		if left := st.Until.Sub(w.d.opt.Health.Now()); left > 0 {
			r.at = now.Add(left)
		}
	}
	return r
}

// advise sets what f tells the client of asking again (docs/behaviour.md#api,
// "When to come back" and "Whether to retry"): RetryAfter for a rate limit
// or an overload whose wait is known, and NoRetry when a retry cannot help
// soon or would pay again.
func (w *walk) advise(f *Failure, now time.Time) {
	wait, never := w.comeBack(now)
	if f.Class == classify.RateLimited || f.Class == classify.ServerError {
		f.RetryAfter = wait
	}
	f.NoRetry = never || wait > RetryHorizon || policy.For(f.Class).Faulty || w.spent()
}

// spent reports whether the request's max_billable_attempts is spent,
// whether the budget stopped the walk or its last attempt spent it as the
// walk ran out of endpoints: either way another request would pay again.
func (w *walk) spent() bool { return w.maxBill > 0 && w.billable >= w.maxBill }

// attempted reports whether the record holds an attempt at k.
func (w *walk) attempted(k health.Key) bool {
	for i := range w.rec.Attempts {
		if a := &w.rec.Attempts[i]; a.Target == k.Target && a.Provider == k.Provider {
			return true
		}
	}
	return false
}

// waitOf says what an attempt a that failed with class c tells of when its
// endpoint may serve the request again: after wait (0: at any moment), or,
// when soon is false, not soon whatever the wait.
func waitOf(c classify.Class, a *decision.Attempt) (wait time.Duration, soon bool) {
	switch {
	case policy.For(c).Lasting:
		return 0, false // the account, the endpoint or this request, for longer than a retry waits
	case c == classify.RateLimited, c == classify.ServerError:
		// The classifier gives these a wait only from the answer's own
		// headers or, for a rate limit, a body hint the client did not
		// write (docs/behaviour.md, "Echo rule").
		return time.Duration(a.RetryAfterMS) * time.Millisecond, true
	case c == classify.Unknown:
		// A request this dialect cannot express, or whose translation costs
		// more than any may, never will be.
		return 0, a.Evidence != decision.EvidenceUntranslated && a.Evidence != decision.EvidenceTooCostly
	}
	return 0, true // a timeout: it may pass at any moment
}

package dispatch

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/policy"
	"github.com/detour-llm/detour/internal/route"
)

// target tries t's endpoints in order. It returns a Result when the request
// is over (answered, committed or canceled); otherwise the table row of the
// last failure, for the route to decide whether to move on.
//
// A stream is relayed under target's frame: what it needs only now and then
// lives in the functions it calls, so the frame stays small
// (docs/benchmarks.md, "Round 6").
func (w *walk) target(ctx context.Context, t *targetRT) (*Result, policy.Row) {
	queue := w.endpointQueue(t, make([]*endpointRT, 0, 4))
	var deferred []*endpointRT // rare: a slice, not a map in this frame (docs/benchmarks.md, "Round 6")
	var row policy.Row
	for i := 0; i < len(queue); i++ {
		e := queue[i]
		if errors.Is(ctx.Err(), context.Canceled) {
			return w.clientLeft(), row
		}
		if w.unserved(e) {
			continue
		}
		if s := w.budget(ctx); s != stopNone {
			w.stopRest(s, queue[i:])
			return nil, row
		}
		probe, later := w.probeTurn(w.limit(ctx), e, deferred) // a continuation's deadline restarts at the cut
		if later {
			// Another request (or replica) holds the one probe: try the
			// others first, and this one last rather than never.
			deferred = append(deferred, e)
			queue = append(queue, e)
			continue
		}
		w.rest = queue[i+1:]
		res, o := w.endpoint(ctx, e, probe)
		if res != nil {
			return res, row
		}
		row = o.row
		if w.stopped != stopNone || !row.NextEndpoint || o.sameModel || i+1 >= len(queue) {
			return nil, row
		}
		w.setAction(decision.ActionNextEndpoint)
	}
	return nil, row
}

// endpointQueue appends t's endpoints to queue in the order target tries
// them: the cooling ones last.
func (w *walk) endpointQueue(t *targetRT, queue []*endpointRT) []*endpointRT {
	if len(t.endpoints) < 2 { // nothing to order: no candidates to build, no order to allocate
		return append(queue, t.endpoints...)
	}
	cs := make([]route.Candidate, len(t.endpoints))
	for i, e := range t.endpoints {
		st := w.status.of(e.key)
		cs[i] = route.Candidate{Cooling: waiting(st), Until: st.Until}
	}
	for _, i := range route.Endpoints(cs) {
		queue = append(queue, t.endpoints[i])
	}
	return queue
}

// stopRest stops the walk for s, recording the endpoints not tried.
func (w *walk) stopRest(s stop, rest []*endpointRT) {
	w.stopped = s
	for _, e := range rest {
		w.skip(e, w.reason(s))
	}
}

// probeTurn says whether the attempt at e is its cooling's probe, or, when
// another request holds that probe, that e goes last (later). A probe held
// elsewhere was ordered last: reaching it means every other candidate is
// spent, and health never denies service; an e deferred once is tried
// without the probe.
func (w *walk) probeTurn(ctx context.Context, e *endpointRT, deferred []*endpointRT) (probe, later bool) {
	st := w.status.of(e.key)
	if st.Phase != health.Probing || st.ProbeHeld || slices.Contains(deferred, e) {
		return false, false
	}
	ok, lease, tr := w.d.opt.Health.TryProbeLease(ctx, e.key)
	w.transitions(e.key, tr, nil)
	if ok && !lease.IsZero() {
		w.leases = append(w.leases, probeLease{e.key, lease})
	}
	return ok, !ok
}

// endpoint makes one attempt at e and the same-endpoint retries its class
// allows. It returns a Result when the request is over, else the failure.
func (w *walk) endpoint(ctx context.Context, e *endpointRT, probe bool) (*Result, *outcome) {
	// retried: the class's one same-endpoint retry was spent (again); a
	// resend by replay or without a refused member spends none (review 48c).
	for retried := false; ; {
		ctx := w.limit(ctx)
		w.cont.begin(e)
		o := w.attempt(ctx, e, probe)
		w.cont.note(w)
		w.stopEP = e
		if w.last == nil || o.verdict.Evidence != decision.EvidenceTooCostly && o.verdict.Evidence != decision.EvidenceUntranslated {
			// An attempt skipped as too costly, or at a target whose
			// dialect cannot express the request, is no one's answer: an
			// earlier failure (a 503 with its Retry-After, a rate limit at
			// the responses: true target before it) stays the one the
			// client is told (reviews 36c, 43f).
			w.last, w.lastEP = o, e
		}
		switch {
		case o.canceled:
			return &Result{Canceled: true, Committed: o.committed, Target: e.key.Target, Provider: e.key.Provider}, o
		case o.ok:
			w.rec.Attempts[len(w.rec.Attempts)-1].Action = decision.ActionDone
			return &Result{Body: o.body, Native: o.native, Committed: o.committed, Target: e.key.Target, Provider: e.key.Provider}, o
		case o.committed && w.continueCut(o):
			return nil, o // the walk continues the stream, as the table says for the cut's class
		case o.committed:
			w.rec.Attempts[len(w.rec.Attempts)-1].Action = decision.ActionStop
			return &Result{Committed: true, Failure: &Failure{Status: o.status, Class: o.verdict.Class, Message: o.message},
				Target: e.key.Target, Provider: e.key.Provider}, o
		}
		if sampling := w.refusedSampling(e, o) || w.refusedSignature(e, o) || w.refusedEncoding(e, o); sampling || w.refusedPrefill(e, o) { // the same endpoint again: without the member or the signatures, or by replay
			if s := w.budget(ctx); s != stopNone {
				w.stopped = s
				// Nothing is sent again: the refusal is the answer, and
				// not one Detour handled (review 65h: the record said
				// resent_without, and the console's Unknowns and last
				// failure left out the client's answer).
				w.resentWithout("")
				if probe { // finish kept the probe for the resend that is not made (a replay's too: review 65k)
					w.giveBackProbe(e)
				}
				return nil, o
			}
			w.setAction(decision.ActionRetry)
			continue
		}
		wait, again := w.again(ctx, o, retried, probe)
		if !again {
			w.coolDeferred(e, o)
			return nil, o
		}
		w.setAction(decision.ActionRetry)
		if !sleep(ctx, wait) {
			w.coolDeferred(e, o)
			if errors.Is(ctx.Err(), context.Canceled) {
				return w.clientLeft(), o
			}
			w.setAction(decision.ActionStop) // the deadline passed while waiting
			return nil, o
		}
		w.upstream += wait
		retried = true
	}
}

// again says whether the failure o is tried again on the same endpoint, and
// after how long: its class allows it (retryWait), the upstream did not
// settle it (outcome.settled), it is the first try and not a probe (a
// failed probe is not retried: the endpoint has just cooled again, and it
// takes one probe request, not two), it did not cool the endpoint while
// the walk has somewhere else to go (the failure_threshold-th failure in a
// row: one more there would push the cooldown out; with nowhere else, the
// retry is the request's last chance, and health never denies service),
// the budget allows another attempt (else the walk stops: w.stopped), and
// the route's deadline is further off than the wait.
func (w *walk) again(ctx context.Context, o *outcome, retried, probe bool) (time.Duration, bool) {
	wait, ok := w.retryWait(o)
	if retried || !ok || probe || o.settled || o.tripped && w.elsewhere(o.row) {
		return 0, false
	}
	if s := w.budget(ctx); s != stopNone {
		w.stopped = s
		return 0, false
	}
	if dl, has := ctx.Deadline(); has && time.Until(dl) <= wait {
		return 0, false
	}
	return wait, true
}

// elsewhere reports whether, after a failure of row's class at the
// endpoint being tried, the walk would move to another endpoint of the
// target or to another target (a cooling one included: it is still tried).
func (w *walk) elsewhere(row policy.Row) bool {
	if row.NextEndpoint {
		for _, e := range w.rest {
			if servesOp(e, w.call.Op) {
				return true
			}
		}
	}
	p := &w.pos
	if p.ti >= len(p.list) {
		return false
	}
	if w.nextTarget(p.list, p.ti, row, p.inTail) >= 0 {
		return true
	}
	return !p.inTail && len(p.tail) > 0 && row.Tail == policy.TailYes && w.firstUsable(p.list[p.ti], p.tail, row) >= 0
}

// coolDeferred cools e at once for the wait o's upstream named (health
// caps it at max_cooldown) now that the request will not wait it out there
// itself: no retry follows (again), or the one that was to follow is not
// made after all (the client left, or the deadline passed, during the wait).
// The next requests must not pile onto an endpoint that said when to come
// back. Nothing is counted again: finish counted the failure.
func (w *walk) coolDeferred(e *endpointRT, o *outcome) {
	if o.deferred > 0 {
		w.tell(e.key, health.Report{Class: o.verdict.Class.String(), Cool: health.ScopeEndpoint, CoolFor: o.deferred, Hinted: true})
		o.deferred = 0
	}
}

// retryWait says whether o's class is retried on the same endpoint, and after
// how long.
func (w *walk) retryWait(o *outcome) (time.Duration, bool) {
	switch o.row.Retry {
	case policy.RetryOnce:
		if ra := o.verdict.RetryAfter; ra > 0 { // the upstream named its wait
			return ra, ra <= w.d.maxWait
		}
		return w.d.opt.Backoff(), true
	case policy.RetryAfterWait:
		ra := o.verdict.RetryAfter
		return ra, ra > 0 && ra <= w.d.maxWait
	case policy.RetryNever:
	}
	return 0, false
}

// budget returns why no further attempt may be made, or stopNone.
func (w *walk) budget(ctx context.Context) stop {
	ctx = w.limit(ctx)
	if n := len(w.rec.Attempts) - w.unsent; n >= w.maxAtt {
		return stopMaxAttempts
	}
	if w.spent() {
		return stopMaxBillable
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return stopDeadline
	}
	return stopNone
}

// stop is why a walk ended before its plan ran out.
type stop uint8

// The reasons a walk stops early.
const (
	stopNone        stop = iota // it did not
	stopMaxAttempts             // max_attempts attempts were made
	stopMaxBillable             // max_billable_attempts billable attempts were made
	stopDeadline                // the route's deadline passed
)

// reason is why s left an endpoint untried, as the decision record's skip
// says it.
func (w *walk) reason(s stop) string {
	switch s {
	case stopMaxAttempts:
		return fmt.Sprintf("budget spent: max_attempts %d", w.maxAtt)
	case stopMaxBillable:
		return fmt.Sprintf("budget spent: max_billable_attempts %d", w.maxBill)
	case stopDeadline:
		return "deadline passed"
	case stopNone:
	}
	return ""
}

func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

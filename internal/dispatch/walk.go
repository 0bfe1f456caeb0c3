package dispatch

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/policy"
	"github.com/detour-llm/detour/internal/route"
)

// walk is the state of one request's way through its plan.
type walk struct {
	d        *Dispatcher
	r        *routeRT
	call     *Call
	rec      *decision.Decision
	status   statusView
	maxAtt   int
	maxBill  int
	billable int
	upstream time.Duration // time spent in attempts and waits, for the overhead metric
	start    time.Time     // when Run began, with its monotonic reading (rec.Time has none)
	// tried lists the endpoints attempted or skipped, each once: a
	// handful, so a slice, not a map (a map's first entry allocates a
	// whole group, held for a stream's life).
	tried []health.Key
	// leases are the probe leases this walk took (probeTurn), given back
	// by name (leaseOf): rare, and a handful at most.
	leases  []probeLease
	last    *outcome    // the failure the client is told of (not an attempt skipped as too costly or untranslatable, after another)
	lastEP  *endpointRT // whose it is
	stopEP  *endpointRT // the endpoint of the latest attempt, where an ordered walk stopped
	stopped stop        // why the walk stopped early (a budget), if it did
	unsent  int         // attempts never sent (outcome.unsent): max_attempts does not count them
	settled []int       // indices in rec.Attempts of settled failures (outcome.settled): no retry helps there (comeBack)
	// unwalked are the route's own targets after the one where its rules
	// stopped the walk (retryafter.go, comeBack); not its tail, which only
	// the classes in tail_on reach.
	unwalked []*targetRT
	// partial: a stream was cut after its commit point, so the request's
	// usage is a lower bound (usage.incomplete in the record).
	partial bool
	// bg outlives the client: health reports still land when it leaves.
	bg context.Context
	// base is the client's context without the route's deadline: attempts
	// run under it, and the deadline applies until the commit point only.
	base context.Context
	// usageReq is the request that asks openai-dialect streams for usage.
	usageReq usageRequest
	// cont continues a stream cut after its commit point (continue.go);
	// nil when the route does not.
	cont *continuation
	// dropped are the sampling members an endpoint refused in a door's
	// translation, and the encoding_format base64 it refused in an
	// embeddings request, left out of what it is sent again (sampling.go,
	// embedformat.go).
	dropped map[health.Key][]string
	// unsealed are the endpoints sent the request again without the
	// thought signatures a client handed back (signature.go).
	unsealed map[*endpointRT]bool
	// member is the walk's place among the requests the end of the
	// shutdown grace period ends (shutdown.go).
	member member
	// pos is where the walk is among the route's targets; rest the
	// endpoints of the current target after the one being tried (read by
	// elsewhere).
	pos  walkPos
	rest []*endpointRT
}

// probeLease is the probe lease a walk took at an endpoint.
type probeLease struct {
	k  health.Key
	at time.Time
}

// leaseOf is the probe lease the walk took at k (zero: none), which a
// report that gives the slot back names (health.Report.Lease).
func (w *walk) leaseOf(k health.Key) time.Time {
	for i := len(w.leases) - 1; i >= 0; i-- {
		if w.leases[i].k == k {
			return w.leases[i].at
		}
	}
	return time.Time{}
}

// Do serves one call and files its decision record: Run, then Record.
func (d *Dispatcher) Do(ctx context.Context, call *Call) *Result {
	res := d.Run(ctx, call)
	d.Record(ctx, res)
	return res
}

// Record files res's decision record with the decision sinks; ctx is the
// request's (a trace context the HTTP front put there). A caller of Run
// records once it has answered the client, so that encoding, scrubbing and
// exporting the record never delay the answer.
func (d *Dispatcher) Record(ctx context.Context, res *Result) {
	decision.Emit(ctx, d.dec, res.Decision)
}

// Run serves one call, without filing its record (Record). ctx carries the
// client's cancellation; the route's deadline is applied here.
//
// A stream is relayed under Run's frame: the walk is set up (newWalk) and
// concluded (conclude) in functions of their own, so that what only the
// start or the end needs takes no stack for the stream's whole life
// (docs/benchmarks.md, "Round 6").
func (d *Dispatcher) Run(ctx context.Context, call *Call) *Result {
	w, cancelBase := d.newWalk(ctx, call)
	defer cancelBase(nil)
	rctx := newRouteCtx(w.base, time.Now().Add(w.r.cfg.Deadline)) // context.WithTimeout, made only if waited on
	defer rctx.release()
	if d.opt.Stop != nil {
		w.member.cancel = cancelBase
		d.inflight.join(d.opt.Stop, &w.member)
		defer d.inflight.leave(&w.member)
	}
	return w.conclude(w.run(rctx))
}

// newWalk starts the walk of call, under ctx, the client's.
func (d *Dispatcher) newWalk(ctx context.Context, call *Call) (*walk, context.CancelCauseFunc) {
	start := time.Now()
	r := d.routes[call.Model]
	rec := &decision.Decision{ID: call.ID, Time: start.UTC(), Route: r.name, Strategy: r.strategy.String(),
		API: call.api(), Stream: call.Stream, Attempts: []decision.Attempt{}, Transitions: []decision.Transition{}, Client: call.Client, ClientKey: call.ClientKey}
	bg := context.WithoutCancel(ctx)
	base, cancelBase := context.WithCancelCause(ctx)
	w := &walk{d: d, r: r, call: call, rec: rec, bg: bg, base: base, start: start,
		maxAtt: lower(r.cfg.MaxAttempts, call.MaxAttempts), maxBill: lower(r.cfg.MaxBillableAttempts, call.MaxBillable)}
	w.cont = newContinuation(r, call)
	return w, cancelBase
}

// conclude completes the walk's result and record once the walk is over.
func (w *walk) conclude(res *Result) *Result {
	d, r, call, rec, start := w.d, w.r, w.call, w.rec, w.start
	res = w.settle(res)
	if f := res.Failure; f != nil { // the message leaves the process: no secret in it
		f.scrub(d.opt.ScrubForClient, call.sent())
	}
	w.skipWaiting()
	res.Decision, res.Attempts = rec, len(rec.Attempts)
	elapsed := time.Since(start)
	rec.MS = decision.Millis(elapsed)
	shutdown := res.Canceled && w.shuttingDown()
	if shutdown && !res.Committed {
		// Not the client's doing: it is still there and gets an answer.
		res.Canceled, res.Failure = false, shutdownFailure()
		// Its attempt may have been sent: with the billable budget spent,
		// another replica's try would pay again (retryafter.go, advise).
		res.Failure.NoRetry = w.spent()
	}
	if f := res.Failure; f != nil && !res.Committed && !shutdown {
		w.advise(f, time.Now()) // retryafter.go
	}
	switch {
	case shutdown && res.Committed:
		// A stream the grace period cut: its client got 200, its words so
		// far and the shutdown error event (operator review 52: recorded
		// as a 503 it never got).
		rec.Outcome, rec.Status = decision.OutcomeShutdown, http.StatusOK
	case shutdown:
		rec.Outcome, rec.Status = decision.OutcomeShutdown, http.StatusServiceUnavailable
	case res.Canceled:
		rec.Outcome = decision.OutcomeCanceled
		rec.Status = 499
	case res.Failure != nil:
		rec.Outcome, rec.Status, rec.Class = decision.OutcomeError, res.Failure.Status, res.Failure.Class.String()
	default:
		rec.Outcome, rec.Status = decision.OutcomeOK, http.StatusOK
	}
	totals(rec, w.partial)
	d.opt.Metrics.Request(r.name, rec.Outcome, rec.Status, elapsed)
	d.opt.Metrics.Overhead(elapsed - w.upstream)
	return res
}

// errShutdown is the cause of a request's context when the shutdown grace
// period ended it.
var errShutdown = errors.New("detour is shutting down")

// shuttingDown reports whether the end of the shutdown grace period, not
// the client, ended the request.
func (w *walk) shuttingDown() bool {
	return errors.Is(context.Cause(w.base), errShutdown)
}

// lower applies a request's limit: it may only lower the route's (0 = none).
func lower(route, req int) int {
	if req > 0 && (route == 0 || req < route) {
		return req
	}
	return route
}

func (w *walk) run(ctx context.Context) *Result {
	p := &w.pos
	w.order(ctx, p)
	for p.ti < len(p.list) {
		res, row := w.target(ctx, p.list[p.ti])
		if res != nil {
			return res
		}
		if res := w.move(ctx, p, &row); res != nil {
			return res
		}
	}
	return w.fail()
}

// order reads the route's health and sets p at the start of the walk.
func (w *walk) order(ctx context.Context, p *walkPos) {
	w.status = statusView{keys: w.r.keys, sts: w.d.opt.Health.View(ctx, w.r.keys)}
	p.list = w.served(w.orderTargets(ctx, w.r.targets, w.r.strategy))
	p.tail = w.served(w.orderTargets(ctx, w.r.tail, route.Ordered))
}

// walkPos is where the walk is: list[ti] is the target tried last; inTail
// once list is the route's tail.
type walkPos struct {
	list, tail []*targetRT
	ti         int
	inTail     bool
}

// move moves p on after list[ti] failed with the class of row; it returns
// the Result when the walk is over. It is a function of its own because a
// stream is relayed under run's frame (docs/benchmarks.md, "Round 6").
func (w *walk) move(ctx context.Context, p *walkPos, row *policy.Row) *Result {
	list, ti, inTail, tail := p.list, p.ti, p.inTail, p.tail
	rest := [][]*targetRT{list[ti+1:]}
	if !inTail {
		rest = append(rest, tail)
	}
	if w.stopped != stopNone {
		return w.fail(rest...)
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return w.clientLeft()
	}
	// What this target's failure cooled (an account after quota or
	// auth) goes after the targets still usable.
	sinkWaiting(list[ti+1:], w.status)
	if next := w.nextTarget(list, ti, *row, inTail); next >= 0 {
		w.setAction(actionFor(inTail))
		p.ti = next
		return nil
	}
	if !inTail && len(tail) > 0 && row.Tail == policy.TailYes {
		if first := w.firstUsable(list[ti], tail, *row); first >= 0 {
			w.setAction(decision.ActionTail)
			p.list, p.ti, p.inTail = tail, first, true
			return nil
		}
	}
	if !inTail {
		w.unwalked = list[ti+1:]
	}
	w.skipUnmoved(list[ti+1:], tail, *row, inTail)
	return w.fail(rest...)
}

// skipUnmoved records why the walk, stopped by its last failure's class
// (not a budget, not the deadline), did not go on to the targets left:
// the class does not move to the next target on this route, or is not in
// its tail_on (operator review 61f: a request stopped at a gone model on
// an ordered route named neither the healthy backup nor the tail).
func (w *walk) skipUnmoved(next, tail []*targetRT, row policy.Row, inTail bool) {
	if w.stopped != stopNone || w.last == nil {
		return
	}
	c := w.last.verdict.Class.String()
	notTail := "not moved to: " + c + " is not in the route's tail_on"
	switch {
	case inTail:
		// Within the tail the walk moves by tail_on (nextTarget), not by
		// fallback_on (review 61h).
		if row.Tail != policy.TailYes {
			skipAll(w, next, notTail)
		}
		return
	case !row.NextTarget && w.r.table.FallbackSet:
		skipAll(w, next, "not moved to: "+c+" is not in the route's fallback_on")
	case !row.NextTarget:
		skipAll(w, next, "not moved to: "+c+" does not move to the next target by default on this route (strategy "+w.r.table.Strategy.String()+"; list it in the route's fallback_on to move on)")
	}
	if row.Tail != policy.TailYes {
		skipAll(w, tail, notTail)
	}
}

// skipAll records every endpoint of ts as skipped for reason.
func skipAll(w *walk, ts []*targetRT, reason string) {
	for _, t := range ts {
		for _, e := range t.endpoints {
			w.skip(e, reason)
		}
	}
}

// actionFor names a move to the next target: within the tail it is "tail".
func actionFor(inTail bool) decision.Action {
	if inTail {
		return decision.ActionTail
	}
	return decision.ActionNextTarget
}

// nextTarget returns the index in list of the target to try after list[ti]
// failed with the class of row, or -1. context_length (row.LargerWindow)
// moves only to a target whose declared context window is larger.
func (w *walk) nextTarget(list []*targetRT, ti int, row policy.Row, inTail bool) int {
	allowed := row.NextTarget
	if inTail {
		allowed = row.Tail == policy.TailYes
	}
	if !allowed {
		return -1
	}
	if j := w.firstUsable(list[ti], list[ti+1:], row); j >= 0 {
		return ti + 1 + j
	}
	return -1
}

// firstUsable returns the index in cands of the first target a failure of
// row at cur may move to, or -1. With LargerWindow (context_length) only a
// target whose declared context window is larger qualifies, whether the
// move is to the next target, into the tail or within it; the others are
// recorded as skipped.
func (w *walk) firstUsable(cur *targetRT, cands []*targetRT, row policy.Row) int {
	for j, t := range cands {
		if row.LargerWindow {
			c, n := cur.cfg.ContextWindow, t.cfg.ContextWindow
			if c == 0 || n <= c {
				for _, e := range t.endpoints {
					w.skip(e, fmt.Sprintf("context window %d is not larger than %d", n, c))
				}
				continue
			}
		}
		return j
	}
	return -1
}

// setAction records what follows the last attempt. The failover metric
// counts the move when the next attempt starts (see attempt), so a move a
// budget then stops is never counted.
func (w *walk) setAction(a decision.Action) {
	if n := len(w.rec.Attempts); n > 0 {
		w.rec.Attempts[n-1].Action = a
	}
}

func (w *walk) skip(e *endpointRT, reason string) { w.skipKey(e.key, reason) }

func (w *walk) skipKey(k health.Key, reason string) {
	if w.wasTried(k) {
		return
	}
	w.tried = append(w.tried, k)
	w.rec.Skipped = append(w.rec.Skipped, decision.Skip{Target: k.Target, Provider: k.Provider, Reason: reason})
}

// wasTried reports whether k was attempted or skipped.
func (w *walk) wasTried(k health.Key) bool {
	for _, t := range w.tried {
		if t == k {
			return true
		}
	}
	return false
}

// markTried notes that k was attempted.
func (w *walk) markTried(k health.Key) {
	if !w.wasTried(k) {
		w.tried = append(w.tried, k)
	}
}

// skipWaiting records, for every endpoint of the route that was not tried,
// why it waited: the reason a request went elsewhere. A cooling endpoint
// is tried last, never skipped for cooling: the reason says it was not
// reached (operator review 48: "cooling until …" alone read as a skip).
func (w *walk) skipWaiting() {
	for _, k := range w.r.keys {
		if w.wasTried(k) {
			continue
		}
		switch st := w.status.of(k); {
		case st.Phase == health.Cooling:
			w.skipKey(k, "cooling until "+st.Until.UTC().Format(time.RFC3339)+": not reached (a cooling endpoint is tried last)")
		case st.ProbeHeld:
			w.skipKey(k, "probe in flight until "+st.Until.UTC().Format(time.RFC3339))
		}
	}
}

// fail ends the walk with the last attempt's answer and records why the
// endpoints in the lists were not tried.
func (w *walk) fail(rest ...[]*targetRT) *Result {
	if w.stopped != stopNone {
		for _, list := range rest {
			for _, t := range list {
				for _, e := range t.endpoints {
					w.skip(e, w.reason(w.stopped))
				}
			}
		}
	}
	// A budget that stopped the walk may have come after a move was
	// recorded: nothing followed the last attempt, so it is a stop.
	if n := len(w.rec.Attempts); n > 0 && (w.rec.Attempts[n-1].Action == "" || w.stopped != stopNone) {
		w.rec.Attempts[n-1].Action = decision.ActionStop
	}
	o := w.last
	if o == nil { // the deadline passed before any attempt
		return &Result{Failure: &Failure{Status: 504, Class: classify.Timeout, Message: "the route's deadline passed before any attempt"}}
	}
	f := &Failure{Status: o.status, Class: o.verdict.Class, Message: o.message, Code: o.code, Param: w.call.clientParam(o, o.param), UpstreamCode: o.upCode,
		UpstreamOpenAICode: o.oaCode, UpstreamParam: w.call.upstreamParam(o, o.oaParam), UpstreamDetails: o.upDetails}
	if o.verdict.Evidence == decision.EvidenceAllowance {
		// The gateway's own memory was full: as the front answers a body
		// that does not fit, with its code and a second's wait.
		f.Code, f.RetryAfter = "inflight_body_limit", time.Second
	}
	if o.verdict.Evidence == decision.EvidenceTooCostly {
		f.Code = "translation_too_costly"
	}
	if f.Status < 400 || f.Status > 599 { // no HTTP answer, a 2xx that carried a failure, a redirect, or no HTTP status at all
		f.Status = statusFor(f.Class)
		if o.meant != 0 {
			f.Status = o.meant // what the error inside the 2xx said it was
		}
	}
	f.Status = toldStatus(f.Class, f.Status)
	if f.Message == "" {
		f.Message = fmt.Sprintf("upstream %s answered %s (%s)", w.lastEP.key, f.Class, o.verdict.Evidence)
	}
	if f.Class == classify.Auth {
		// The key refused is the gateway's, never the client's, though
		// the status (401, 403) reads as the client's: said first, or an
		// SDK user concludes their own key is wrong (operator review 48;
		// docs/behaviour.md#api).
		f.Message = "provider " + w.lastEP.key.Provider + " refused the gateway's own credential for it (not the client's key): " + f.Message
	}
	return &Result{Failure: f, Target: w.lastEP.key.Target, Provider: w.lastEP.key.Provider}
}

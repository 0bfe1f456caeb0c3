package dispatch

import (
	"time"

	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/policy"
)

// finish records the attempt, reports it to health, pages and counts it.
func (w *walk) finish(e *endpointRT, o *outcome, probe bool, total time.Duration) {
	w.upstream += total
	if w.call.advisory() {
		o.billable = false // counting tokens is free, however the count ended
	}
	if o.billable {
		w.billable++
	}
	a := decision.Attempt{Target: e.key.Target, Provider: e.key.Provider, Model: e.ep.Model, Status: o.status, UpstreamRequestID: o.upstreamID,
		Billable: o.billable, Probe: probe, MS: decision.Millis(total), TTFBMS: decision.Millis(o.ttfb), FirstTokenMS: decision.Millis(o.firstToken),
		Malformed: o.malformed, Evidence: o.verdict.Evidence, StartMS: decision.Millis(time.Since(w.start) - total), Batches: o.batches}
	var body []byte // the request as it went, which bounds its usage (ceiling.go)
	switch {
	case o.batches != nil: // only the calls that ran (embedbatch.go)
		body = o.input
	case o.native: // the client's own body went: a passthrough may have no translation at all
		body = w.call.sent()
	default:
		body = w.call.Body
	}
	if o.unread {
		o.sentLimit = w.unreadLimit(e, o)
	}
	sent := body // read only for an estimate a client's limits count
	if !w.call.Metered {
		sent = nil
	}
	account(&a, e.target.cfg, o, sent, body)
	if a.Usage != nil && a.Usage.Capped {
		w.noteCapped(e)
	}
	w.partial = w.partial || cutStream(o)
	if o.unsent() {
		w.unsent++ // no upstream call: no attempt of the budget (walk.budget), a count's included
	}
	class := "ok"
	switch {
	case w.call.advisory():
		// A count_tokens call: its own endpoint, with limits of its own,
		// answering about a body the client wrote. Whatever it answers says
		// nothing about the endpoint's messages: no health report (a probe
		// gives its slot back), no page; the class is still recorded.
		if !o.ok && !o.canceled {
			class = o.verdict.Class.String()
			a.Class = class
			o.row = w.r.table.Row(o.verdict.Class)
		}
		if probe {
			w.tell(e.key, health.Report{Release: true, Lease: w.leaseOf(e.key)})
		}
	case o.canceled:
		class = "canceled"
		a.Action = decision.ActionStop
		if probe { // the client left: the probe learned nothing, give the slot back
			w.tell(e.key, health.Report{Release: true, Lease: w.leaseOf(e.key)})
		}
	case o.ok && o.late.Failed:
		e.answers.Add(1)
		w.lateError(e, o, &a, total)
	case o.ok:
		e.answers.Add(1)
		w.tell(e.key, health.Report{OK: true, Latency: o.latency(), Whole: !o.streamed, Took: total})
	case o.ownLimit:
		// The request's own time limit ran out: recorded as a timeout, but
		// nobody's fault: no count, no cooldown, no page; a probe learned
		// nothing and gives its slot back. The table still routes it.
		o.row = w.r.table.Row(o.verdict.Class)
		class = o.verdict.Class.String()
		a.Class = class
		if probe {
			w.tell(e.key, health.Report{Release: true, Lease: w.leaseOf(e.key)})
		}
	default:
		c := o.verdict.Class
		class = c.String()
		a.Class = class
		switch {
		case o.unsent():
			// Detour's own reason, for an attempt no upstream answered:
			// status 0, as the record says of every such attempt (review
			// 64h: a 400 with no message read as the provider's answer);
			// what the client sent, masked. The client is still told the
			// status the outcome carries.
			a.Status = 0
			a.Message = decision.UpstreamMessage(recordWords(o.message, w.call.evidence(true)))
		case o.status != 0 && o.verdict.Evidence != evUntranslatable:
			// The upstream's own words: why it failed, for the operator
			// (operator review 50), and an unknown's for --suggest; what
			// the client sent, masked (recordWords).
			a.Message = attemptMessage(c, o.message, w.call.evidence(true))
		}
		a.RetryAfterMS = o.verdict.RetryAfter.Milliseconds()
		o.row = w.r.table.Row(c)
		rule := o.row
		a.Counted = rule.Counted
		rep := w.report(rule, o)
		if rep.Count && o.heldBack {
			// The client's slowness, not the endpoint's: an upstream that
			// stops sending to a gateway the client keeps from reading
			// (nginx's send_timeout) must not let a client cool it for
			// everyone (hostile 52).
			rep.Count, a.Counted = false, false
			a.Evidence += evHeldBack
		} else if rep.Count && w.lengthy(e, o, c) {
			rep.Count, a.Counted = false, false
			a.Evidence += evLengthy
			if w.call.Stream {
				a.Evidence = o.verdict.Evidence + evThinking
			}
		}
		if rule.Cool == policy.CoolThreshold {
			// A wait the upstream named cools the endpoint at once, but
			// not before the walk knows whether this request waits it out
			// and tries the endpoint again itself (coolDeferred): cooled
			// first, that retry would find it probing, and its failure
			// would cool it past the hint.
			o.deferred = w.r.table.CoolFor(rule.Class, o.verdict.RetryAfter)
		}
		// A probe that ends in the request's own fault says nothing about
		// the endpoint: the next request may probe it.
		rep.Release = probe && (!rule.Counted && rule.Cool == policy.CoolNone || a.Counted != rule.Counted) &&
			w.samplingRefusal(e, o) == "" && !w.signatureRefusal(e, o) && !w.encodingRefusal(e, o) && // a resend without the member or the signatures keeps the probe,
			!w.prefillRefusal(o) // and so does a replay after a refused prefill (review 65k)
		if rep.Release {
			rep.Lease = w.leaseOf(e.key)
		}
		if o.unsent() {
			// No upstream was asked: the endpoint said nothing, so health
			// hears of it only to give a probe's slot back (review 65i:
			// every /v1/completions request passing a chat-only endpoint
			// over set its last_class to unknown).
			if probe {
				w.tell(e.key, health.Report{Release: true, Lease: w.leaseOf(e.key)})
			}
			break
		}
		o.tripped = w.tell(e.key, rep) && rule.Cool == policy.CoolThreshold
		if rule.Page && w.d.opt.Alerts != nil {
			w.d.opt.Alerts.NotifyUntil(e.key.Provider, class, o.verdict.Evidence, a.Message, w.coolsUntil(e.key.Provider, rule.Class, o))
		}
	}
	if o.settled {
		w.settled = append(w.settled, len(w.rec.Attempts))
	}
	w.rec.Attempts = append(w.rec.Attempts, a)
	if !o.unsent() { // upstream attempts only: one Detour did not send is in the record alone (review 65i)
		w.d.opt.Metrics.Attempt(e.key.Target, e.key.Provider, class, o.ttfb, total)
		w.d.opt.Metrics.FirstToken(e.key.Target, e.key.Provider, class, o.firstToken)
	}
	w.meter(e, &a)
}

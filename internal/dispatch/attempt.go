package dispatch

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/policy"
	"github.com/detour-llm/detour/internal/provider"
)

// maxAnswer bounds a non-stream upstream answer held in memory.
const maxAnswer = 64 << 20

// outcome is what one attempt came to.
type outcome struct {
	ok        bool
	canceled  bool // the client went away
	committed bool // stream bytes reached the client
	status    int
	verdict   classify.Verdict
	message   string
	billable  bool
	sent      atomic.Bool // the request was written to the upstream
	ttfb      time.Duration
	body      []byte
	usage     *provider.Usage
	malformed int
}

func (o *outcome) failWith(v classify.Verdict, msg string) {
	o.verdict, o.message = v, msg
	o.verdict.Failed = true
}

// watchdog cancels an attempt when its current phase (headers, first token,
// idle gap) outlasts its timeout, and remembers which phase it was.
type watchdog struct {
	mu     sync.Mutex
	t      *time.Timer
	phase  string
	fired  string
	cancel context.CancelFunc
}

func (wd *watchdog) arm(phase string, d time.Duration) {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	wd.phase = phase
	if wd.t == nil {
		wd.t = time.AfterFunc(d, wd.fire)
		return
	}
	wd.t.Reset(d)
}

func (wd *watchdog) fire() {
	wd.mu.Lock()
	if wd.fired == "" {
		wd.fired = wd.phase
	}
	wd.mu.Unlock()
	wd.cancel()
}

// pause stops the clock until the next arm.
func (wd *watchdog) pause() { wd.stop() }

func (wd *watchdog) stop() {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	if wd.t != nil {
		wd.t.Stop()
	}
}

// expired returns the phase whose timeout fired, or "".
func (wd *watchdog) expired() string {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	return wd.fired
}

// attempt makes one call to e and records it.
func (w *walk) attempt(ctx context.Context, e *endpointRT, probe bool) *outcome {
	start := time.Now()
	if n := len(w.rec.Attempts); n > 0 { // the move to this attempt happens now
		prev := &w.rec.Attempts[n-1]
		w.d.opt.Metrics.Failover(w.r.name, prev.Action, prev.Class)
	}
	w.tried[e.key] = true
	e.target.inflight.Add(1)
	defer e.target.inflight.Add(-1)
	actx, cancel := context.WithCancel(ctx)
	defer cancel()
	wd := &watchdog{cancel: cancel}
	defer wd.stop()
	o := &outcome{}
	defer func() { w.finish(e, o, probe, time.Since(start)) }()

	hreq, err := e.prov.adapter.NewRequest(httptrace.WithClientTrace(actx, &httptrace.ClientTrace{
		WroteRequest: func(httptrace.WroteRequestInfo) { o.sent.Store(true) },
	}), e.ep, w.call.Req)
	if err != nil {
		o.status = http.StatusBadRequest
		// This dialect cannot express the request (an audio or file part for
		// Anthropic, say); another target may take it as is. unknown moves
		// on and cools nothing; the upstream that is asked judges the input.
		o.failWith(classify.Verdict{Class: classify.Unknown, Evidence: "translate"}, "Detour could not translate the request for "+e.key.Provider+": "+err.Error())
		return o
	}
	for k, v := range e.prov.cfg.Headers {
		hreq.Header.Set(k, v)
	}
	wd.arm("headers", e.prov.cfg.Timeout)
	resp, err := e.prov.client.Do(hreq)
	if err != nil {
		w.transportFailure(ctx, o, err, wd.expired())
		return o
	}
	o.ttfb = time.Since(start)
	o.status = resp.StatusCode
	if w.call.Req.Stream && resp.StatusCode/100 == 2 && isEventStream(resp.Header) {
		w.stream(ctx, e, resp, wd, o)
		return o
	}
	w.plain(ctx, e, resp, wd, o)
	return o
}

func isEventStream(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mt == "text/event-stream"
}

// transportFailure files an attempt that ended without a usable answer.
func (w *walk) transportFailure(ctx context.Context, o *outcome, err error, expired string) {
	switch {
	case errors.Is(ctx.Err(), context.Canceled):
		o.canceled = true
		o.verdict = classify.Verdict{Evidence: "client canceled"}
		o.billable = o.sent.Load()
	case expired != "":
		o.failWith(classify.Verdict{Class: classify.Timeout, Evidence: "timeout:" + expired},
			"the upstream did not answer within its "+expired+" timeout")
		o.billable = o.sent.Load()
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		o.failWith(classify.Verdict{Class: classify.Timeout, Evidence: "timeout:deadline"}, "the route's deadline passed")
		o.billable = o.sent.Load()
	default:
		v := classify.Transport(err)
		o.failWith(v, "upstream connection failed: "+err.Error())
		// A connection lost after the request was written may have run it.
		o.billable = o.sent.Load()
	}
}

// plain reads a whole (non-stream) answer.
func (w *walk) plain(ctx context.Context, e *endpointRT, resp *http.Response, wd *watchdog, o *outcome) {
	defer resp.Body.Close()
	limit := int64(maxAnswer)
	if resp.StatusCode/100 != 2 {
		limit = classify.MaxBody
	}
	wd.arm("body", e.prov.cfg.Timeout)
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		w.transportFailure(ctx, o, err, wd.expired())
		return
	}
	if int64(len(body)) > limit && resp.StatusCode/100 == 2 {
		o.failWith(classify.Verdict{Class: classify.ServerError, Evidence: "answer:too large"}, "the upstream answer exceeds 64 MiB")
		o.billable = true
		return
	}
	v := w.d.cls.Classify(classify.Response{Status: resp.StatusCode, Header: resp.Header, Body: body,
		Dialect: e.prov.cfg.Dialect, Provider: e.prov.cfg.Name})
	if resp.StatusCode/100 != 2 {
		if !v.Failed {
			v = classify.Verdict{Class: classify.Unknown, Evidence: "status:" + strconv.Itoa(resp.StatusCode)}
		}
		o.failWith(v, classify.Message(body))
		return
	}
	switch {
	case v.Failed:
		o.failWith(v, classify.Message(body))
	default:
		out, err := e.prov.adapter.Response(body, e.ep)
		o.billable = true
		if err != nil {
			o.failWith(classify.Verdict{Class: classify.ServerError, Evidence: "decode"}, "the upstream's answer could not be read: "+err.Error())
			return
		}
		if w.call.Req.Stream {
			// A whole answer to a stream request: it ran and was billed, so
			// the client gets it, as a stream.
			w.streamWhole(e, out, o)
			return
		}
		o.ok, o.body, o.usage = true, out, answerUsage(out)
	}
}

// finish records the attempt, reports it to health, pages and counts it.
func (w *walk) finish(e *endpointRT, o *outcome, probe bool, total time.Duration) {
	w.upstream += total
	if o.billable {
		w.billable++
	}
	a := decision.Attempt{Target: e.key.Target, Provider: e.key.Provider, Model: e.ep.Model, Status: o.status,
		Billable: o.billable, Probe: probe, MS: decision.Millis(total), TTFBMS: decision.Millis(o.ttfb),
		Malformed: o.malformed, Evidence: o.verdict.Evidence, StartMS: decision.Millis(time.Since(w.rec.Time) - total)}
	if o.usage != nil {
		a.Usage = &decision.Usage{PromptTokens: o.usage.PromptTokens, CompletionTokens: o.usage.CompletionTokens, TotalTokens: o.usage.TotalTokens}
	}
	class := "ok"
	switch {
	case o.canceled:
		class = "canceled"
		a.Action = decision.ActionStop
		if probe { // the client left: the probe learned nothing, give the slot back
			w.transitions(w.d.opt.Health.Report(w.bg, e.key, health.Report{Release: true}))
		}
	case o.ok:
		w.transitions(w.d.opt.Health.Report(w.bg, e.key, health.Report{OK: true, Latency: o.ttfb}))
	default:
		c := o.verdict.Class
		class = c.String()
		a.Class = class
		if c == classify.Unknown { // what an operator needs to write a rule for it
			a.Message = decision.TruncateMessage(redact(o.message, e.ep.APIKey))
		}
		a.RetryAfterMS = o.verdict.RetryAfter.Milliseconds()
		rule := policy.For(c)
		a.Counted = rule.Counted
		rep := w.report(rule, o)
		// A probe that ends in the request's own fault says nothing about
		// the endpoint: the next request may probe it.
		rep.Release = probe && !rule.Counted && rule.Cool == policy.CoolNone
		w.transitions(w.d.opt.Health.Report(w.bg, e.key, rep))
		if rule.Page && w.d.opt.Alerts != nil {
			w.d.opt.Alerts.Notify(e.key.Provider, class, o.verdict.Evidence)
		}
	}
	w.rec.Attempts = append(w.rec.Attempts, a)
	w.d.opt.Metrics.Attempt(e.key.Target, e.key.Provider, class, o.ttfb, total)
}

// report turns a failure into what health must do, by the policy table.
func (w *walk) report(rule policy.Rule, o *outcome) health.Report {
	// Count follows the rule, so the endpoint's failures in /v1/health agree
	// with the attempt's "counted" (unavailable, quota and auth count and
	// also cool at once).
	r := health.Report{Class: o.verdict.Class.String(), Count: rule.Counted}
	switch rule.Cool {
	case policy.CoolThreshold:
	case policy.CoolRetryAfter, policy.CoolUnavailable:
		r.Cool, r.CoolFor = health.ScopeEndpoint, rule.CoolFor(w.d.cooling, o.verdict.RetryAfter)
	case policy.CoolAccount:
		r.Cool, r.CoolFor = health.ScopeAccount, rule.CoolFor(w.d.cooling, o.verdict.RetryAfter)
	case policy.CoolNone:
	}
	return r
}

// transitions records health changes in the decision, the log and metrics.
func (w *walk) transitions(trs []health.Transition) {
	for _, tr := range trs {
		if tr.To == health.Cooling {
			w.cooled(tr)
		}
		w.rec.Transitions = append(w.rec.Transitions, decision.Transition{Scope: tr.Scope.String(), Name: tr.Name,
			From: tr.From.String(), To: tr.To.String(), Class: tr.Class})
		args := []any{"scope", tr.Scope.String(), "name", tr.Name, "from", tr.From.String(), "to", tr.To.String(), "class", tr.Class}
		if !tr.Until.IsZero() {
			args = append(args, "until", tr.Until.UTC().Format(time.RFC3339))
		}
		w.d.log.Info("health transition", args...)
		if tr.Scope == health.ScopeAccount {
			w.d.opt.Metrics.AccountState(tr.Name, tr.To.String())
		} else if t, p, ok := splitKey(tr.Name); ok {
			w.d.opt.Metrics.EndpointState(t, p, tr.To.String())
		}
	}
}

// cooled marks what a transition just cooled in this request's view of
// health, so the rest of the walk puts those endpoints last too: after a
// quota or auth verdict, the account's endpoints in later targets.
func (w *walk) cooled(tr health.Transition) {
	for k, st := range w.status {
		if tr.Scope == health.ScopeAccount && k.Provider == tr.Name ||
			tr.Scope == health.ScopeEndpoint && k.Target+"/"+k.Provider == tr.Name {
			st.Phase = health.Cooling
			if tr.Until.After(st.Until) {
				st.Until = tr.Until
			}
			w.status[k] = st
		}
	}
}

func splitKey(name string) (target, provider string, ok bool) {
	for i := len(name) - 1; i >= 0; i-- {
		if name[i] == '/' {
			return name[:i], name[i+1:], true
		}
	}
	return "", "", false
}

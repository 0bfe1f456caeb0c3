package dispatch

import (
	"time"

	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/policy"
)

// report turns a failure into what health must do, by the policy table
// (but for a server error's named wait: coolDeferred).
func (w *walk) report(rule policy.Row, o *outcome) health.Report {
	// Count follows the rule, so the endpoint's failures in /v1/health agree
	// with the attempt's "counted" (unavailable, quota and auth count and
	// also cool at once).
	r := health.Report{Class: o.verdict.Class.String(), Count: rule.Counted}
	switch rule.Cool {
	case policy.CoolThreshold:
	case policy.CoolRetryAfter:
		// The upstream's hint, which health caps at max_cooldown.
		r.Cool, r.CoolFor = health.ScopeEndpoint, w.r.table.CoolFor(rule.Class, o.verdict.RetryAfter)
		r.Hinted = o.verdict.RetryAfter > 0
	case policy.CoolUnavailable:
		r.Cool, r.CoolFor = health.ScopeEndpoint, w.r.table.CoolFor(rule.Class, o.verdict.RetryAfter)
	case policy.CoolAccount:
		r.Cool, r.CoolFor = health.ScopeAccount, w.r.table.CoolFor(rule.Class, o.verdict.RetryAfter)
	case policy.CoolNone:
	}
	return r
}

// tell reports an attempt's outcome at endpoint k to health, and whether
// the report cooled k.
func (w *walk) tell(k health.Key, r health.Report) (cooled bool) {
	return w.transitions(k, w.d.opt.Health.Report(w.bg, k, r))
}

// transitions records health changes in the decision, the log and metrics,
// and reports whether one of them cooled k. trs came from a call about
// endpoint k: an endpoint transition is k's, an account transition is k's
// provider's (health touches nothing else).
func (w *walk) transitions(k health.Key, trs []health.Transition) (cooled bool) {
	for _, tr := range trs {
		if tr.To == health.Cooling {
			w.cooled(k, tr)
			cooled = true
		}
		w.rec.Transitions = append(w.rec.Transitions, decision.Transition{Scope: tr.Scope.String(), Name: tr.Name,
			From: tr.From.String(), To: tr.To.String(), Class: tr.Class})
		args := []any{"scope", tr.Scope.String(), "name", tr.Name, "from", tr.From.String(), "to", tr.To.String(), "class", tr.Class}
		if !tr.Until.IsZero() {
			args = append(args, "until", tr.Until.UTC().Format(time.RFC3339))
		}
		w.d.log.Info("health transition", args...)
		if tr.Scope == health.ScopeAccount {
			w.d.opt.Metrics.AccountState(k.Provider, tr.To.String())
		} else {
			w.d.opt.Metrics.EndpointState(k.Target, k.Provider, tr.To.String())
		}
	}
	return cooled
}

// cooled marks what a transition just cooled in this request's view of
// health, so the rest of the walk puts those endpoints last too: after a
// quota or auth verdict, the account's endpoints in later targets.
func (w *walk) cooled(k health.Key, tr health.Transition) {
	for i, o := range w.status.keys {
		if i >= len(w.status.sts) {
			break
		}
		if tr.Scope == health.ScopeAccount && o.Provider == k.Provider ||
			tr.Scope == health.ScopeEndpoint && o == k {
			st := &w.status.sts[i]
			st.Phase = health.Cooling
			if tr.Until.After(st.Until) {
				st.Until = tr.Until
			}
		}
	}
}

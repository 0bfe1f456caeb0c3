package metrics

import "github.com/prometheus/client_golang/prometheus"

// Stream continuations (docs/behaviour.md#streams): one count per cut of a
// stream on a route with on_stream_cut: continue, by how it ended, and one
// per prefill a target refused.
var (
	continuationModes    = newVocab("prefill", "replay", "none")
	continuationOutcomes = newVocab("ok", "diverged", "refused", "budget", "unsplicable", "native", "failed", "canceled")
)

func (m *Metrics) registerContinuations() {
	m.continuations = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "detour_continuations_total",
		Help: "Cuts of committed streams on routes with on_stream_cut: continue, by route, mode (prefill|replay; none when no continuation was attempted) and outcome: ok (a continuation resumed the stream), diverged (a replay did not reproduce the delivered text), refused (a target refused a prefill; the continuation falls back to replay), budget (max_continuations, max_attempts, max_billable_attempts, the deadline or max_stream_duration forbade it), unsplicable (cut inside a tool call, n > 1, a non-text delta or logprobs), native (a stream relayed as the upstream's own events), failed (no endpoint or target left resumed it), canceled (the client left).",
	}, []string{"route", "mode", "outcome"})
	m.reg.MustRegister(m.continuations)
}

// Continuation records one continuation outcome for a route; mode is
// prefill, replay or none.
func (m *Metrics) Continuation(route, mode, outcome string) {
	if m == nil {
		return
	}
	m.continuations.WithLabelValues(m.routes.of(route), continuationModes.of(mode), continuationOutcomes.of(outcome)).Inc()
}

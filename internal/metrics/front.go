package metrics

import "github.com/prometheus/client_golang/prometheus"

// doors and frontCodes are the values of detour_front_refusals_total's
// labels: the door a request came to, and the gateway's own error code
// for why it refused the request before any routing (never a client's
// words: a code outside the set counts as "other").
var (
	doors = newVocab("chat", "completions", "responses", "messages", "count_tokens", "embeddings", "models",
		"gemini", "gemini_count_tokens", "gemini_embeddings") // the Gemini door's (operator review 69l: "other")
	frontCodes = newVocab("method_not_allowed", "invalid_api_key", "unsupported_media_type", "invalid_request",
		"request_too_large", "request_timeout", "inflight_body_limit", "model_not_found", "translation_too_costly",
		"client_rate_limit_exceeded", "client_budget_exceeded", "client_concurrency_limit_exceeded",
		"unsupported_parameter", "invalid_value", "client_key_disabled", "websocket_not_supported", "api_not_served", "not_found")
)

func (m *Metrics) registerFront() {
	m.front = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "detour_front_refusals_total",
		Help: "Requests the gateway answered itself before routing them, by door (chat|completions|responses|messages|count_tokens|embeddings|models|gemini|gemini_count_tokens|gemini_embeddings) and code (invalid_api_key, model_not_found, invalid_request, request_too_large, client_rate_limit_exceeded, …): they reach no upstream and leave no decision record.",
	}, []string{"door", "code"})
	m.reg.MustRegister(m.front)
}

func (m *Metrics) registerStateLost() {
	m.stateLost = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "detour_state_lost_total",
		Help: "Times this replica found that Redis had lost Detour's state (restarted empty, failed over to an empty replica, flushed) and gave the client budgets its decision log's share back (docs/scale.md, \"Redis restarted empty\").",
	})
	m.reg.MustRegister(m.stateLost)
}

// StateLost counts one loss of Redis's state this replica restored from.
func (m *Metrics) StateLost() {
	if m != nil {
		m.stateLost.Inc()
	}
}

// FrontRefused counts one request refused at door with code before any
// routing.
func (m *Metrics) FrontRefused(door, code string) {
	if m == nil {
		return
	}
	m.front.WithLabelValues(doors.of(door), frontCodes.of(code)).Inc()
}

// CountDecisionsDropped registers detour_decisions_dropped_total, read
// from dropped (the decision log writer's count) at each scrape; called
// once, when the gateway writes its own decision log.
func (m *Metrics) CountDecisionsDropped(dropped func() int64) {
	if m == nil {
		return
	}
	m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
		Name: "detour_decisions_dropped_total",
		Help: "Decision records this replica could not write: its output stalled (a pipe nobody reads), a write failed (a full disk: the records not written whole), or the record came after shutdown. Each is a request missing from the decision log, its usage and its budgets' replay.",
	}, func() float64 { return float64(dropped()) }))
}

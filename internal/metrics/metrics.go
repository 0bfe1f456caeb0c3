package metrics

import (
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Histogram buckets. LLM calls take from a few milliseconds (a cached or
// rejected answer) to minutes (a long generation), so latency buckets span
// 5ms to 120s; the gateway's own overhead should stay far below that, so its
// buckets span 10µs to 10ms.
var (
	LatencyBuckets  = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 20, 30, 60, 120}
	OverheadBuckets = []float64{0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01}
)

// Metrics holds Detour's collectors on a registry of their own. The zero value
// is not usable; use New. A nil *Metrics is valid and does nothing.
type Metrics struct {
	reg *prometheus.Registry

	requests      *prometheus.CounterVec   // route, outcome, status
	requestDur    *prometheus.HistogramVec // route
	attempts      *prometheus.CounterVec   // target, provider, class
	ttfb          *prometheus.HistogramVec // target, provider
	firstToken    *prometheus.HistogramVec // target, provider
	upstreamDur   *prometheus.HistogramVec // target, provider
	failovers     *prometheus.CounterVec   // route, action, class
	endpointState *prometheus.GaugeVec     // target, provider, state
	accountState  *prometheus.GaugeVec     // provider, state
	stateShared   *prometheus.GaugeVec     // store
	reloadOK      prometheus.Gauge
	reloadAt      prometheus.Gauge
	overhead      prometheus.Histogram
	alerts        *prometheus.CounterVec // provider, class, result
	cooldowns     *prometheus.CounterVec // scope, target, provider, class
	continuations *prometheus.CounterVec // route, mode, outcome (continuation.go)

	routes, targets, providers names
	usage                      usage                  // usage.go
	front                      *prometheus.CounterVec // door, code (front.go)
	stateLost                  prometheus.Counter     // front.go
	hot                        atomic.Pointer[hot]    // hot.go
	// endpoints, once set by Retain, are the configured (target, provider)
	// pairs: a state for another pair (an attempt in flight on a pair a
	// reload took apart) is not recorded.
	endpoints atomic.Pointer[map[Endpoint]bool]
}

// New returns a Metrics with every collector registered on a fresh registry,
// together with the Go runtime and process collectors.
func New() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.hot.Store(new(hot))
	m.requests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "detour_requests_total",
		Help: "Client requests by route, outcome (ok|error|canceled|shutdown) and status class of the answer (2xx, 4xx, 5xx; none when nothing was written).",
	}, []string{"route", "outcome", "status"})
	m.requestDur = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "detour_request_duration_seconds",
		Help:    "Whole client request time, all attempts included, by route.",
		Buckets: LatencyBuckets,
	}, []string{"route"})
	m.attempts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "detour_attempts_total",
		Help: "Upstream attempts by target, provider and class (ok on success, canceled when the client left, else one of the twelve failure classes).",
	}, []string{"target", "provider", "class"})
	m.ttfb = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "detour_upstream_ttfb_seconds",
		Help:    "Time from sending an upstream request to its response headers, by target and provider (attempts that got no answer are not observed).",
		Buckets: LatencyBuckets,
	}, []string{"target", "provider"})
	m.firstToken = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "detour_upstream_first_token_seconds",
		Help:    "Time from sending an upstream request to a stream's first content (what its client waits for; its headers may come long before), by target and provider (streams that said nothing are not observed).",
		Buckets: LatencyBuckets,
	}, []string{"target", "provider"})
	m.upstreamDur = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "detour_upstream_duration_seconds",
		Help:    "Whole upstream attempt time, by target and provider.",
		Buckets: LatencyBuckets,
	}, []string{"target", "provider"})
	m.failovers = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "detour_failovers_total",
		Help: "Moves after a failed attempt, by route, action (next_endpoint|next_target|tail|retry) and the class that caused it.",
	}, []string{"route", "action", "class"})
	m.cooldowns = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "detour_cooldowns_total",
		Help: "Cooldowns begun, by scope (endpoint|account), target (none for an account), provider and the class that began it: why detour_endpoint_state or detour_account_state went to cooling.",
	}, []string{"scope", "target", "provider", "class"})
	m.endpointState = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "detour_endpoint_state",
		Help: "1 for the current health state of each endpoint (healthy|cooling|probing), 0 for the others.",
	}, []string{"target", "provider", "state"})
	m.accountState = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "detour_account_state",
		Help: "1 for the current health state of each provider account (healthy|cooling|probing), 0 for the others.",
	}, []string{"provider", "state"})
	m.stateShared = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "detour_state_shared",
		Help: "1 while this replica reads and writes the health every replica shares (store redis, answering); 0 with store memory, or while Redis does not answer and the replica serves from its own state.",
	}, []string{"store"})
	m.overhead = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "detour_overhead_seconds",
		Help:    "The gateway's own time per request: total time minus time spent waiting on upstreams.",
		Buckets: OverheadBuckets,
	})
	m.alerts = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "detour_alerts_total",
		Help: "Operator alerts by provider, class and result: sent (a webhook delivered it), logged (due, no webhook configured: the log alone), suppressed (de-duplicated), failed (not delivered).",
	}, []string{"provider", "class", "result"})

	m.reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		m.requests, m.requestDur, m.attempts, m.ttfb, m.firstToken, m.upstreamDur,
		m.failovers, m.cooldowns, m.endpointState, m.accountState, m.stateShared, m.overhead, m.alerts,
	)
	m.registerUsage()
	m.registerFront()
	m.registerStateLost()
	m.registerReload()
	m.registerContinuations()
	return m
}

// Registry returns the registry behind m, for callers that add collectors of
// their own. It is nil for a nil m.
func (m *Metrics) Registry() *prometheus.Registry {
	if m == nil {
		return nil
	}
	return m.reg
}

// Handler serves the registry in the Prometheus exposition formats, for
// GET /metrics. A nil m serves 404.
func (m *Metrics) Handler() http.Handler {
	if m == nil {
		return http.NotFoundHandler()
	}
	return promhttp.InstrumentMetricHandler(m.reg, promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		Registry:          m.reg,
		ErrorHandling:     promhttp.ContinueOnError,
		EnableOpenMetrics: true,
	}))
}

// Request records one finished client request: outcome is ok, error or
// canceled; status is the HTTP status written to the client (0 if none) and
// is recorded by class ("2xx", "4xx", "5xx") to keep cardinality low; d is the
// whole request time. For a model nobody configured, pass route "" (recorded
// as "none"), never the client's string.
func (m *Metrics) Request(route, outcome string, status int, d time.Duration) {
	if m == nil {
		return
	}
	s := m.requestSeries(route, outcome, status)
	s.count.Inc()
	s.dur.Observe(d.Seconds())
}

// Attempt records one upstream attempt: class is "ok" on success, else one of
// the twelve class names; ttfb is the time to response headers (0 when none
// came, then not observed); total is the whole attempt time.
func (m *Metrics) Attempt(target, provider, class string, ttfb, total time.Duration) {
	if m == nil {
		return
	}
	s := m.attemptSeries(target, provider, class)
	s.count.Inc()
	if ttfb > 0 {
		s.observe(&s.ttfb, m.ttfb, ttfb.Seconds())
	}
	s.dur.Observe(total.Seconds())
}

// FirstToken records a stream attempt's time to its first content (0: none
// came), beside the Attempt of the same labels.
func (m *Metrics) FirstToken(target, provider, class string, d time.Duration) {
	if m == nil || d <= 0 {
		return
	}
	s := m.attemptSeries(target, provider, class)
	s.observe(&s.first, m.firstToken, d.Seconds())
}

// Failover records one move after a failed attempt: action is next_endpoint,
// next_target, tail or retry (same endpoint again); class caused it.
func (m *Metrics) Failover(route, action, class string) {
	if m == nil {
		return
	}
	m.failovers.WithLabelValues(m.routes.of(route), actions.of(action), classes.of(class)).Inc()
}

// EndpointState sets the health state of the endpoint (target, provider):
// the series for state becomes 1 and those of the other states 0. A state
// outside healthy|cooling|probing is recorded as "other".
func (m *Metrics) EndpointState(target, provider, state string) {
	if m == nil || !m.targets.configured(target) || !m.providers.configured(provider) {
		return // removed by a reload: its series stay gone
	}
	if eps := m.endpoints.Load(); eps != nil && !(*eps)[Endpoint{target, provider}] {
		return // the pair a reload took apart: its series stay gone too
	}
	setState(m.endpointState, state, m.targets.of(target), m.providers.of(provider))
}

// AccountState sets the health state of a provider account, like
// EndpointState.
func (m *Metrics) AccountState(provider, state string) {
	if m == nil || !m.providers.configured(provider) {
		return
	}
	setState(m.accountState, state, m.providers.of(provider))
}

// Cooldown records a cooldown that began: scope is "endpoint" (of target
// at provider) or "account" (of provider; target is not recorded), class
// the verdict that began it.
func (m *Metrics) Cooldown(scope, target, provider, class string) {
	if m == nil || !m.providers.configured(provider) {
		return
	}
	t := labelNone
	if scope == "endpoint" {
		if !m.targets.configured(target) {
			return
		}
		t = m.targets.of(target)
	} else {
		scope = "account"
	}
	m.cooldowns.WithLabelValues(scope, t, m.providers.of(provider), classes.of(class)).Inc()
}

// StateShared sets whether this replica's health is the state every
// replica shares (health.Tracker.Sharing): store is "memory" or "redis".
func (m *Metrics) StateShared(store string, shared bool) {
	if m == nil {
		return
	}
	v := 0.0
	if shared {
		v = 1
	}
	m.stateShared.WithLabelValues(store).Set(v)
}

// setState sets the one-hot state gauges of the object named by labels (the
// state label comes last). "other" only exists while it is the current state.
func setState(g *prometheus.GaugeVec, state string, labels ...string) {
	known := false
	for _, s := range states {
		v := 0.0
		if s == state {
			v, known = 1, true
		}
		g.WithLabelValues(append(labels, s)...).Set(v)
	}
	if known {
		g.DeleteLabelValues(append(labels, labelOther)...)
	} else {
		g.WithLabelValues(append(labels, labelOther)...).Set(1)
	}
}

// Overhead records the gateway's own time for one request: total time minus
// the time spent waiting on upstreams. Negative values are recorded as 0.
func (m *Metrics) Overhead(d time.Duration) {
	if m == nil {
		return
	}
	m.overhead.Observe(max(d, 0).Seconds())
}

// Alert records one alert-worthy verdict: sent when a webhook delivered it,
// suppressed when de-duplication held it back.
func (m *Metrics) Alert(provider, class string, sent bool) {
	result := "suppressed"
	if sent {
		result = "sent"
	}
	m.alert(provider, class, result)
}

// AlertLogged records an alert that was due and, with no webhook
// configured, went to the log alone.
func (m *Metrics) AlertLogged(provider, class string) { m.alert(provider, class, "logged") }

// AlertFailed records an alert that was due but could not be delivered (the
// webhook kept failing, or the queue was full).
func (m *Metrics) AlertFailed(provider, class string) { m.alert(provider, class, "failed") }

func (m *Metrics) alert(provider, class, result string) {
	if m == nil {
		return
	}
	m.alerts.WithLabelValues(m.providers.of(provider), classes.of(class), result).Inc()
}

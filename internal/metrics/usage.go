package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
)

// usage holds the series of tokens, cost and limit refusals by client.
type usage struct {
	tokens      *prometheus.CounterVec // client, route, target, provider, kind
	cost        *prometheus.CounterVec // client, route, target, provider
	costUnknown *prometheus.CounterVec // client, route, target, provider
	refused     *prometheus.CounterVec // client, limit
	clients     names
}

// limits are the values of the limit label.
var limits = newVocab("max_concurrent", "requests_per_minute", "tokens_per_minute", "usd_per_day", "usd_per_month")

func (m *Metrics) registerUsage() {
	by := []string{"client", "route", "target", "provider"}
	m.usage.tokens = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "detour_tokens_total",
		Help: "Tokens the upstreams reported, by client key name (none without client keys), route, target, provider and kind (input: input neither read from nor written to the prompt cache; cached_input; cache_write_input: input written to the cache; output).",
	}, append(by, "kind"))
	m.usage.cost = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "detour_cost_usd_total",
		Help: "Cost in USD of attempts whose target has a price and whose usage is known, by client, route, target and provider.",
	}, by)
	m.usage.costUnknown = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "detour_cost_unknown_total",
		Help: "Billable attempts at a priced target whose cost is not known in full, by client, route, target and provider: no usage (a timeout, a client that left), or a cut stream's partial count, whose lower-bound cost detour_cost_usd_total holds.",
	}, by)
	m.usage.refused = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "detour_limit_refusals_total",
		Help: "Requests refused by a client key's limit, by client and limit (requests_per_minute|tokens_per_minute|usd_per_day|usd_per_month|max_concurrent).",
	}, []string{"client", "limit"})
	m.reg.MustRegister(m.usage.tokens, m.usage.cost, m.usage.costUnknown, m.usage.refused)
}

// Usage records one attempt's tokens: input neither read from nor written
// to the prompt cache, cached input, input written to the cache, and output
// (the kinds docs/config.md prices apart).
func (m *Metrics) Usage(client, route, target, provider string, input, cachedInput, cacheWrite, output int) {
	if m == nil {
		return
	}
	if input <= 0 && cachedInput <= 0 && cacheWrite <= 0 && output <= 0 {
		return
	}
	s := m.tokensSeries(client, route, target, provider) // hot.go
	for i, n := range [len(tokenKinds)]int{input, cachedInput, cacheWrite, output} {
		if n > 0 {
			s.add(m, i, n)
		}
	}
}

// Cost records one priced attempt's cost in USD and, when !known, that it
// is not known in full (usd is then 0, or a cut stream's lower bound).
func (m *Metrics) Cost(client, route, target, provider string, usd float64, known bool) {
	if m == nil {
		return
	}
	client, route = m.usage.clients.of(client), m.routes.of(route)
	target, provider = m.targets.of(target), m.providers.of(provider)
	if known || usd > 0 {
		m.usage.cost.WithLabelValues(client, route, target, provider).Add(max(usd, 0))
	}
	if !known {
		m.usage.costUnknown.WithLabelValues(client, route, target, provider).Inc()
	}
}

// Refused records a request refused by limit for client.
func (m *Metrics) Refused(client, limit string) {
	if m == nil {
		return
	}
	m.usage.refused.WithLabelValues(m.usage.clients.of(client), limits.of(limit)).Inc()
}

// usageVecs are the usage series, for Retain.
func (m *Metrics) usageVecs() []*prometheus.MetricVec {
	return []*prometheus.MetricVec{m.usage.tokens.MetricVec, m.usage.cost.MetricVec, m.usage.costUnknown.MetricVec}
}

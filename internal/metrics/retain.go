package metrics

import "github.com/prometheus/client_golang/prometheus"

// Served names what one configuration serves.
type Served struct {
	// Routes are the names clients may send (routes and targets).
	Routes    []string
	Targets   []string
	Providers []string
	// Endpoints are the configured (target, provider) pairs.
	Endpoints []Endpoint
	// Clients are the client keys' names.
	Clients []string
	// Limits are, per client key's name, the names of its limits
	// (requests_per_minute, …, max_concurrent): their refusal series
	// exist at 0 from the start.
	Limits map[string][]string
}

// Endpoint is one target at one provider.
type Endpoint struct{ Target, Provider string }

// Retain makes s the configuration /metrics describes: every series of a
// route, target, provider or endpoint that s does not serve is deleted (a
// reload removed it), and later observations naming one are recorded as
// "other" rather than bringing its series back. Call it with the first
// configuration and on every reload.
func (m *Metrics) Retain(s Served) {
	if m == nil {
		return
	}
	byRoute := append([]*prometheus.MetricVec{m.requests.MetricVec, m.requestDur.MetricVec, m.failovers.MetricVec, m.continuations.MetricVec}, m.usageVecs()...)
	byTarget := append([]*prometheus.MetricVec{m.attempts.MetricVec, m.cooldowns.MetricVec, m.ttfb.MetricVec, m.firstToken.MetricVec, m.upstreamDur.MetricVec, m.endpointState.MetricVec}, m.usageVecs()...)
	byProvider := append(byTarget[:len(byTarget):len(byTarget)], m.accountState.MetricVec, m.alerts.MetricVec)
	drop := func(vecs []*prometheus.MetricVec, labels prometheus.Labels) {
		for _, v := range vecs {
			v.DeletePartialMatch(labels)
		}
	}
	gone, _ := m.usage.clients.retain(s.Clients)
	for _, c := range gone {
		drop(append(m.usageVecs(), m.usage.refused.MetricVec), prometheus.Labels{"client": c})
	}
	gone, _ = m.routes.retain(s.Routes)
	for _, r := range gone {
		drop(byRoute, prometheus.Labels{"route": r})
	}
	gone, targets := m.targets.retain(s.Targets)
	for _, t := range gone {
		drop(byTarget, prometheus.Labels{"target": t})
	}
	gone, providers := m.providers.retain(s.Providers)
	for _, p := range gone {
		drop(byProvider, prometheus.Labels{"provider": p})
	}
	// A target and a provider both still configured may no longer meet: a
	// reload moved the target to other providers.
	keep := make(map[Endpoint]bool, len(s.Endpoints))
	for _, e := range s.Endpoints {
		keep[e] = true
	}
	m.endpoints.Store(&keep)
	for _, t := range targets {
		for _, p := range providers {
			if !keep[Endpoint{t, p}] {
				drop(byTarget, prometheus.Labels{"target": t, "provider": p})
			}
		}
	}
	// The series an alert on a first event reads exist at 0 from the start:
	// created by its first increment, a series is first seen at 1, and
	// Prometheus' increase() over it reads 0 (review 51a: the first time an
	// account ran out of money, deploy/alerts.yml paged nobody). An
	// account's cooldowns and a page's failures, for the classes that cool
	// an account, per configured provider.
	for _, p := range s.Providers {
		for _, c := range [...]string{"quota", "auth"} {
			m.cooldowns.WithLabelValues("account", labelNone, m.providers.of(p), c)
			m.alerts.WithLabelValues(m.providers.of(p), c, "failed")
		}
	}
	// A client key's refusals, per limit it has (operator review 52: the
	// first refusal of a key, the only trace of it, was missed).
	for c, ls := range s.Limits {
		for _, l := range ls {
			m.usage.refused.WithLabelValues(m.usage.clients.of(c), limits.of(l))
		}
	}
	// Only now, after the deletions and the guards' new sets: see hot.
	m.hot.Store(new(hot))
}

package metrics

import (
	"sync"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// hot remembers the series Request and Attempt resolved, by the names they
// were given, so that the next request on the same route or endpoint skips
// the name guards and the registry's label hashing (both on every
// request's path; docs/benchmarks.md#overhead-beside-a-plain-reverse-proxy-benchcmdoverhead). Retain starts a new one
// after it has deleted series, so that no remembered series outlives a
// reload: a call that resolved a series before the deletion stores it in
// the old cache, never in the new one.
type hot struct {
	requests sync.Map // requestKey → *requestSeries
	attempts sync.Map // attemptKey → *attemptSeries
	tokens   sync.Map // tokensKey → *tokensSeries
	n        atomic.Int64
}

// maxHot bounds the cache: past it, series are resolved on every call, as
// without a cache. Configured names are few; the bound is for callers that
// pass something they should not.
const maxHot = 4096

type requestKey struct{ route, outcome, status string }

type requestSeries struct {
	count prometheus.Counter
	dur   prometheus.Observer
}

type attemptKey struct{ target, provider, class string }

type attemptSeries struct {
	count prometheus.Counter
	dur   prometheus.Observer
	// ttfb is resolved at its first observation: an endpoint that never
	// answered has no ttfb series.
	target, provider string // the labels
	ttfb             atomic.Pointer[observer]
	first            atomic.Pointer[observer] // a stream's first content, as ttfb
}

type observer struct{ prometheus.Observer }

// observe records seconds in vec's series of s's endpoint, resolved once
// into p at its first observation.
func (s *attemptSeries) observe(p *atomic.Pointer[observer], vec *prometheus.HistogramVec, seconds float64) {
	o := p.Load()
	if o == nil {
		o = &observer{vec.WithLabelValues(s.target, s.provider)}
		p.Store(o)
	}
	o.Observe(seconds)
}

func (m *Metrics) requestSeries(route, outcome string, status int) *requestSeries {
	h := m.hot.Load()
	k := requestKey{route, outcome, statusClass(status)}
	if s, ok := h.requests.Load(k); ok {
		return s.(*requestSeries)
	}
	r := m.routes.of(route)
	s := &requestSeries{
		count: m.requests.WithLabelValues(r, outcomes.of(outcome), k.status),
		dur:   m.requestDur.WithLabelValues(r),
	}
	if h.n.Add(1) <= maxHot {
		h.requests.Store(k, s)
	}
	return s
}

func (m *Metrics) attemptSeries(target, provider, class string) *attemptSeries {
	h := m.hot.Load()
	k := attemptKey{target, provider, class}
	if s, ok := h.attempts.Load(k); ok {
		return s.(*attemptSeries)
	}
	t, p := m.targets.of(target), m.providers.of(provider)
	s := &attemptSeries{
		count:  m.attempts.WithLabelValues(t, p, classes.of(class)),
		dur:    m.upstreamDur.WithLabelValues(t, p),
		target: t, provider: p,
	}
	if h.n.Add(1) <= maxHot {
		h.attempts.Store(k, s)
	}
	return s
}

type tokensKey struct{ client, route, target, provider string }

// tokensSeries are the token counters of one client, route, target and
// provider, each kind resolved at its first count: a kind never counted
// has no series.
type tokensSeries struct {
	labels [4]string // client, route, target, provider, as the guards named them
	kinds  [len(tokenKinds)]atomic.Pointer[tokenCounter]
}

type tokenCounter struct{ prometheus.Counter }

// tokenKinds are the values of detour_tokens_total's kind label, in the
// order of tokensSeries.kinds.
var tokenKinds = [...]string{"input", "cached_input", "cache_write_input", "output"}

func (m *Metrics) tokensSeries(client, route, target, provider string) *tokensSeries {
	h := m.hot.Load()
	k := tokensKey{client, route, target, provider}
	if s, ok := h.tokens.Load(k); ok {
		return s.(*tokensSeries)
	}
	s := &tokensSeries{labels: [4]string{m.usage.clients.of(client), m.routes.of(route), m.targets.of(target), m.providers.of(provider)}}
	if h.n.Add(1) <= maxHot {
		h.tokens.Store(k, s)
	}
	return s
}

// add counts n tokens of kind tokenKinds[i].
func (s *tokensSeries) add(m *Metrics, i, n int) {
	c := s.kinds[i].Load()
	if c == nil {
		l := s.labels
		c = &tokenCounter{m.usage.tokens.WithLabelValues(l[0], l[1], l[2], l[3], tokenKinds[i])}
		s.kinds[i].Store(c)
	}
	c.Add(float64(n))
}

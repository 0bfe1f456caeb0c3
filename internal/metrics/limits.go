package metrics

import (
	"context"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// LimitUse is where one client key stands against one of its limits, in
// the limit's unit (requests, tokens, USD), in the current window.
type LimitUse struct {
	Client, Limit string
	Used, Cap     float64
}

// limitsTimeout bounds one scrape's read of the limits' counters.
const limitsTimeout = 2 * time.Second

var (
	limitUsedDesc = prometheus.NewDesc("detour_client_limit_used",
		"A client key's use of one of its limits in the current window (requests and tokens this minute, USD today and this month, UTC), read from the limits' counters (with Redis, every replica's).",
		[]string{"client", "limit"}, nil)
	limitCapDesc = prometheus.NewDesc("detour_client_limit",
		"A client key's limit, in the unit of detour_client_limit_used.", []string{"client", "limit"}, nil)
)

// limitsCollector reads the limits at a scrape, at most once per
// limitsFresh: scrapes that come together share one read, so a flood of
// them (any client key may read /metrics without admin_keys) costs Redis
// one read a key per second, not one per scrape (hostile 52c).
type limitsCollector struct {
	m    *Metrics
	read func(context.Context) []LimitUse
	mu   *sync.Mutex
	last *limitsRead
}

type limitsRead struct {
	at  time.Time
	use []LimitUse
}

// limitsFresh is how long one read of the limits serves scrapes.
const limitsFresh = time.Second

func (c limitsCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- limitUsedDesc
	ch <- limitCapDesc
}

func (c limitsCollector) Collect(ch chan<- prometheus.Metric) {
	c.mu.Lock()
	if time.Since(c.last.at) >= limitsFresh {
		ctx, cancel := context.WithTimeout(context.Background(), limitsTimeout)
		*c.last = limitsRead{at: time.Now(), use: c.read(ctx)}
		cancel()
	}
	use := c.last.use
	c.mu.Unlock()
	for _, u := range use {
		client, limit := c.m.usage.clients.of(u.Client), limits.of(u.Limit)
		ch <- prometheus.MustNewConstMetric(limitUsedDesc, prometheus.GaugeValue, u.Used, client, limit)
		ch <- prometheus.MustNewConstMetric(limitCapDesc, prometheus.GaugeValue, u.Cap, client, limit)
	}
}

// ReadLimits exports, at each scrape, what read returns: every limited
// client key's use of its limits and the limits themselves, so an alert
// can fire before a key is refused (detour_client_limit_used /
// detour_client_limit > 0.8). Call it once.
func (m *Metrics) ReadLimits(read func(context.Context) []LimitUse) {
	if m == nil {
		return
	}
	m.reg.MustRegister(limitsCollector{m: m, read: read, mu: new(sync.Mutex), last: new(limitsRead)})
}

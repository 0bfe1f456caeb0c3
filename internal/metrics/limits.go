package metrics

import (
	"context"
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

// limitsCollector reads the limits at each scrape.
type limitsCollector struct {
	m    *Metrics
	read func(context.Context) []LimitUse
}

func (c limitsCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- limitUsedDesc
	ch <- limitCapDesc
}

func (c limitsCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), limitsTimeout)
	defer cancel()
	for _, u := range c.read(ctx) {
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
	m.reg.MustRegister(limitsCollector{m: m, read: read})
}

package bench

import (
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

const (
	latencyN    = 2000 // requests per path per iteration
	latencyConc = 8    // requests in flight
	latencyBlk  = 250  // direct and gateway alternate in blocks this big
)

// burst sends n requests to url with conc in flight and returns each one's
// latency and the wall time of the burst.
func burst(b *testing.B, c *http.Client, url, body string, n, conc int) ([]time.Duration, time.Duration) {
	lat := make([]time.Duration, n)
	var next atomic.Int64
	var wg sync.WaitGroup
	var failed atomic.Value
	start := time.Now()
	for range conc {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				t := time.Now()
				if _, err := post(c, url, body); err != nil {
					failed.Store(err)
					return
				}
				lat[i] = time.Since(t)
			}
		})
	}
	wg.Wait()
	if err := failed.Load(); err != nil {
		b.Fatal(err)
	}
	return lat, time.Since(start)
}

// pct returns the p-th percentile (nearest rank) of sorted d.
func pct(d []time.Duration, p float64) time.Duration {
	i := int(p/100*float64(len(d))+0.999999) - 1
	return d[max(0, min(i, len(d)-1))]
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }

// BenchmarkLatency sends latencyN requests at concurrency latencyConc
// directly and latencyN through the gateway (alternating in blocks, so load
// from elsewhere on the machine hits both alike), and reports the
// percentiles of each and their difference. Run it with -benchtime 1x for
// exactly one round of 2×2000; more iterations pool their latencies.
// "added" is p(gateway) − p(direct): a difference of percentiles, not a
// percentile of per-request differences.
func BenchmarkLatency(b *testing.B) {
	for _, c := range []struct {
		name, body string
		step       upstreamtest.Step
		conc       int
	}{
		{"plain-c8", chatBody, upstreamtest.Step{Body: answer}, latencyConc},
		{"stream20-c8", streamBody, upstreamtest.Step{Events: upstreamtest.ChatStream(model, parts(20)...)}, latencyConc},
		// For comparison: one request at a time, no queueing for the cores.
		{"plain-c1", chatBody, upstreamtest.Step{Body: answer}, 1},
	} {
		b.Run(c.name, func(b *testing.B) {
			e := setup(b, c.step)
			cl := client(c.conc)
			burst(b, cl, e.direct, c.body, 4*c.conc, c.conc) // open the connections
			burst(b, cl, e.gateway, c.body, 4*c.conc, c.conc)
			var direct, via []time.Duration
			var tDirect, tVia time.Duration
			for b.Loop() {
				for range latencyN / latencyBlk {
					l, t := burst(b, cl, e.direct, c.body, latencyBlk, c.conc)
					direct, tDirect = append(direct, l...), tDirect+t
					l, t = burst(b, cl, e.gateway, c.body, latencyBlk, c.conc)
					via, tVia = append(via, l...), tVia+t
				}
			}
			slices.Sort(direct)
			slices.Sort(via)
			b.ReportMetric(0, "ns/op") // one op is a whole round: meaningless
			b.ReportMetric(us(pct(direct, 50)), "p50-direct-µs")
			b.ReportMetric(us(pct(direct, 99)), "p99-direct-µs")
			b.ReportMetric(us(pct(via, 50)), "p50-gateway-µs")
			b.ReportMetric(us(pct(via, 99)), "p99-gateway-µs")
			b.ReportMetric(us(pct(via, 50)-pct(direct, 50)), "p50-added-µs")
			b.ReportMetric(us(pct(via, 99)-pct(direct, 99)), "p99-added-µs")
			b.ReportMetric(float64(len(direct))/tDirect.Seconds(), "rps-direct")
			b.ReportMetric(float64(len(via))/tVia.Seconds(), "rps-gateway")
		})
	}
}

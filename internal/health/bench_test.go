package health

import (
	"fmt"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
)

// BenchmarkView measures one View over a route of n endpoints on the memory
// store, with some endpoints cooling and measured.
func BenchmarkView(b *testing.B) {
	for _, n := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("endpoints=%d", n), func(b *testing.B) {
			keys := make([]Key, n)
			for i := range keys {
				keys[i] = Key{fmt.Sprintf("t%d", i), fmt.Sprintf("p%d", i%3)}
			}
			c := newClock()
			tr := New(NewMemory(), Settings{}, keys, c.Now)
			for i, k := range keys {
				tr.Report(ctx, k, Report{OK: true, Latency: time.Duration(i+1) * time.Millisecond})
				if i%4 == 0 {
					tr.Report(ctx, k, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: time.Hour})
				}
			}
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if st := tr.View(ctx, keys); len(st) != n {
					b.Fatal(len(st))
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/endpoint")
		})
	}
}

// BenchmarkReport measures one success report (latency sample) on the
// memory store.
func BenchmarkReport(b *testing.B) {
	tr := New(NewMemory(), Settings{}, all3, nil)
	b.ReportAllocs()
	for b.Loop() {
		tr.Report(ctx, epA, Report{OK: true, Latency: time.Millisecond})
	}
}

// BenchmarkRedisView measures one View (one MGET) of 8 endpoints over a
// local redis-server, for comparison with the memory store.
func BenchmarkRedisView(b *testing.B) {
	srv := redistest.Start(b)
	st := newRedisStore(b, srv, "bench:", time.Now, nil)
	keys := make([]Key, 8)
	for i := range keys {
		keys[i] = Key{fmt.Sprintf("t%d", i), fmt.Sprintf("p%d", i%3)}
	}
	tr := New(st, Settings{}, keys, nil)
	for _, k := range keys {
		tr.Report(ctx, k, Report{OK: true, Latency: time.Millisecond})
	}
	b.ReportAllocs()
	for b.Loop() {
		tr.View(ctx, keys)
	}
}

// BenchmarkRedisReport measures one success report (a WATCH/MULTI update).
func BenchmarkRedisReport(b *testing.B) {
	srv := redistest.Start(b)
	tr := New(newRedisStore(b, srv, "bench:", time.Now, nil), Settings{}, all3, nil)
	b.ReportAllocs()
	for b.Loop() {
		tr.Report(ctx, epA, Report{OK: true, Latency: time.Millisecond})
	}
}

// BenchmarkRequestStoreCost measures the store work of one request on a
// route of 8 endpoints — one View, then one success Report with a latency
// sample — on each store: memory, a single redis-server, and a
// three-master Redis Cluster (all on loopback). docs/scale.md quotes it.
func BenchmarkRequestStoreCost(b *testing.B) {
	keys := make([]Key, 8)
	for i := range keys {
		keys[i] = Key{fmt.Sprintf("t%d", i), fmt.Sprintf("p%d", i%3)}
	}
	stores := []struct {
		name  string
		store func(b *testing.B) Store
	}{
		{"memory", func(*testing.B) Store { return NewMemory() }},
		{"redis", func(b *testing.B) Store {
			return newStore(b, RedisConfig{URL: redistest.Start(b).URL()}, "bench:", time.Now, nil)
		}},
		{"cluster", func(b *testing.B) Store {
			cl := redistest.StartCluster(b, 3)
			// Like the single server: no append-only file (the test
			// cluster fsyncs every write, to survive a kill).
			for _, n := range cl.Nodes {
				if err := n.Client(b).ConfigSet(ctx, "appendonly", "no").Err(); err != nil {
					b.Fatal(err)
				}
			}
			return newStore(b, RedisConfig{Cluster: cl.URLs()}, "bench:", time.Now, nil)
		}},
	}
	for _, s := range stores {
		b.Run("store="+s.name, func(b *testing.B) {
			tr := New(s.store(b), Settings{}, keys, nil)
			for _, k := range keys {
				tr.Report(ctx, k, Report{OK: true, Latency: time.Millisecond})
			}
			b.ReportAllocs()
			for b.Loop() {
				tr.View(ctx, keys)
				tr.Report(ctx, keys[0], Report{OK: true, Latency: time.Millisecond})
			}
		})
	}
}

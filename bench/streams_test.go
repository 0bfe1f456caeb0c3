package bench

import (
	"bufio"
	"fmt"
	"github.com/detour-llm/detour/bench/internal/procfs"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

const (
	holdStreams = 1000
	holdParts   = 15                     // 19 events in all, with role, finish, usage and [DONE]
	holdEvery   = 200 * time.Millisecond // the fake's gap before each event: ~3.8s a stream
	mib         = 1 << 20
)

// slowStream is the fake's answer while streams are held open.
var slowStream = upstreamtest.Step{Events: upstreamtest.ChatStream(model, parts(holdParts)...), EventDelay: holdEvery}

// usage is one sample of memory use.
type usage struct {
	heap  uint64 // HeapInuse + StackInuse: what the Go heap and goroutine stacks hold
	live  uint64 // HeapAlloc + StackInuse right after a forced GC: the live set
	stack uint64 // StackInuse alone
	rss   uint64 // VmRSS of a process
	gor   int    // goroutines
}

// rssOf reads VmRSS (bytes) from /proc/<pid>/status ("self" for this process).
func rssOf(pid string) uint64 { return procfs.Status(pid, "VmRSS:") }

func sample(pid string) usage {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return usage{heap: m.HeapInuse + m.StackInuse, stack: m.StackInuse, rss: rssOf(pid), gor: runtime.NumGoroutine()}
}

// hold opens n streaming requests to url at once, waits until every one has
// received its first event (so all n are open together), samples memory
// every 100ms for 1.5s (peak of each figure, and the live set after one
// forced GC), then reads every stream to its end. pid is the process whose
// RSS counts ("self", or a gateway process).
func hold(b *testing.B, url string, n int, pid string) usage {
	c := client(n)
	defer c.CloseIdleConnections()
	var opened, failed atomic.Int64
	var firstErr atomic.Value
	allOpen := make(chan struct{})
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			err := func() error {
				req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(streamBody))
				req.Header.Set("Content-Type", "application/json")
				resp, err := c.Do(req)
				if err != nil {
					return err
				}
				defer resp.Body.Close()
				if resp.StatusCode != 200 {
					return fmt.Errorf("status %d", resp.StatusCode)
				}
				sc := bufio.NewScanner(resp.Body)
				first, last := true, ""
				for sc.Scan() {
					if line := sc.Text(); line != "" {
						last = line
						if first {
							first = false
							if opened.Add(1) == int64(n) {
								close(allOpen)
							}
						}
					}
				}
				if err := sc.Err(); err != nil {
					return err
				}
				if last != "data: [DONE]" {
					return fmt.Errorf("stream ended with %q", last)
				}
				return nil
			}()
			if err != nil {
				failed.Add(1)
				firstErr.CompareAndSwap(nil, err)
				if opened.Load() < int64(n) {
					// Never block the sampler on a stream that cannot open.
					if opened.Add(1) == int64(n) {
						close(allOpen)
					}
				}
			}
		})
	}
	select {
	case <-allOpen:
	case <-time.After(60 * time.Second): // a failure guard: 1000 streams on a loaded 2-core machine
		b.Fatalf("only %d of %d streams opened", opened.Load(), n)
	}
	var peak usage
	for i := range 15 {
		if i == 7 {
			runtime.GC()
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			peak.live = m.HeapAlloc + m.StackInuse
			writeHeapProfile(b, pid)
		}
		s := sample(pid)
		peak.heap, peak.stack, peak.rss, peak.gor = max(peak.heap, s.heap), max(peak.stack, s.stack), max(peak.rss, s.rss), max(peak.gor, s.gor)
		time.Sleep(100 * time.Millisecond)
	}
	wg.Wait()
	if f := failed.Load(); f > 0 {
		b.Fatalf("%d of %d streams failed, first: %v", f, n, firstErr.Load())
	}
	return peak
}

// settle lets the previous phase's connections close and its memory be
// collected before the next phase starts.
func settle() {
	time.Sleep(300 * time.Millisecond)
	runtime.GC()
}

// writeHeapProfile writes the in-use heap, while the streams are open, to
// $DETOUR_BENCH_HEAPPROFILE-<phase> when that variable is set (a debugging
// aid: -memprofile is written after the streams have ended).
func writeHeapProfile(b *testing.B, pid string) {
	path := os.Getenv("DETOUR_BENCH_HEAPPROFILE")
	if path == "" || pid != "self" {
		return
	}
	heapProfiles++
	f, err := os.Create(fmt.Sprintf("%s-%d", path, heapProfiles))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		b.Fatal(err)
	}
}

var heapProfiles int

func mb(v uint64) float64 { return float64(v) / mib }

// diff returns a−b in MiB (negative if b is larger).
func diff(a, b uint64) float64 { return mb(a) - mb(b) }

// BenchmarkStreams1000 holds 1,000 concurrent slow streams (one event every
// 200ms, ~3.8s each) first directly against the fake (the baseline: the same
// clients and fake, no gateway), then through an in-process gateway, and
// reports the difference: what the gateway holds for 1,000 open streams.
// Client, fake and gateway share this process, so only the difference is the
// gateway's; the absolute figures are reported too. Run it once:
//
//	go test ./bench -run XXX -bench Streams1000 -benchtime 1x
func BenchmarkStreams1000(b *testing.B) {
	f := fake(b, slowStream)
	gw := gateway(b, f.URL) + "/v1/chat/completions"
	for b.Loop() {
		settle()
		idle := sample("self")
		base := hold(b, f.URL+"/chat/completions", holdStreams, "self")
		settle()
		via := hold(b, gw, holdStreams, "self")
		b.ReportMetric(0, "ns/op")
		b.ReportMetric(diff(via.heap, base.heap), "MiB-gateway")
		b.ReportMetric(diff(via.live, base.live), "MiB-gateway-live")
		b.ReportMetric(diff(via.rss, base.rss), "MiB-gateway-rss")
		b.ReportMetric(diff(via.stack, base.stack), "MiB-gateway-stacks")
		b.ReportMetric(diff(via.heap, base.heap)*1024/holdStreams, "KiB/stream")
		b.ReportMetric(mb(idle.rss), "MiB-rss-idle")
		b.ReportMetric(mb(base.heap), "MiB-heap-direct")
		b.ReportMetric(mb(via.heap), "MiB-heap-via")
		b.ReportMetric(mb(base.rss), "MiB-rss-direct")
		b.ReportMetric(mb(via.rss), "MiB-rss-via")
		b.ReportMetric(float64(via.gor-base.gor)/holdStreams, "goroutines/stream")
	}
}

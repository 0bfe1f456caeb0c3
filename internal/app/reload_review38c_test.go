package app_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// review38cConfig is one of a few configurations a reload storm cycles
// through: providers, targets, routes and client keys renamed, keys
// rotated, limits changed. The console is off: its ring of the last 1000
// records grows with the traffic, by design.
func review38cConfig(up, decisions string, i int) string {
	v := i % 4
	return fmt.Sprintf(`
decisions: {path: %[3]q}
console: {enabled: false}
client_keys:
  - {name: team-%[2]d, key: ck-review38c-%[2]d-abcdefgh, rate: {requests_per_minute: 100000}, budget: {usd_per_day: 1000}, max_concurrent: 50}
providers:
  - {name: p%[2]d, dialect: openai, base_url: %[1]q, api_key: sk-review38c-%[2]d-abcdefgh}
targets:
  - {name: t%[2]d, model: m%[2]d, providers: [p%[2]d], price: {input: 1, output: 2}}
routes:
  - {name: r, targets: [t%[2]d]}
`, up, v, decisions)
}

// An operator relies on reloading as often as a deploy tool likes: 600
// reloads, 50 at a time as fast as they come, while requests flow, leave
// no goroutine and no memory behind — the dispatchers, trackers and
// scrubbers of the configurations no longer served are released, and so
// are the upstream connections of requests that were in flight at a
// reload (they went back to the pool of a Dispatcher already closed and
// stayed open there, two goroutines each, for 90s) — and no request fails
// for anything but a key the storm had just rotated out.
func TestRapidReloadsLeakNothing_review38c(t *testing.T) {
	// A real loopback upstream that, unlike upstreamtest's, keeps no copy
	// of each request: the heap measured is the gateway's alone.
	answer := []byte(upstreamtest.ChatJSON("m", "hello"))
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer)
	}))
	t.Cleanup(up.Close)
	dec := filepath.Join(t.TempDir(), "decisions.jsonl")
	url, a := gatewaytest.Start(t, gatewaytest.Config(t, review38cConfig(up.URL, dec, 0)), app.Options{})
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}

	var bad atomic.Int64
	var badMsg atomic.Value
	// traffic sends requests from 4 clients until the returned func is called.
	traffic := func() (stop func()) {
		var done atomic.Bool
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := 0; !done.Load(); n++ {
					key := fmt.Sprintf("ck-review38c-%d-abcdefgh", (w+n)%4)
					req, _ := http.NewRequest(http.MethodPost, url+"/v1/chat/completions",
						strings.NewReader(`{"model":"r","messages":[{"role":"user","content":"hi"}]}`))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Authorization", "Bearer "+key)
					resp, err := hc.Do(req)
					if err != nil {
						bad.Add(1)
						badMsg.Store(err.Error())
						continue
					}
					b, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					// 401: the storm had just rotated the key out; anything
					// else but 200 is a request a reload broke.
					if resp.StatusCode != 200 && resp.StatusCode != 401 {
						bad.Add(1)
						badMsg.Store(fmt.Sprintf("%d %s", resp.StatusCode, b))
					}
				}
			}()
		}
		return func() { done.Store(true); wg.Wait() }
	}

	measure := func() (goroutines int, heap uint64) {
		var ms runtime.MemStats
		for range 3 {
			runtime.GC()
		}
		runtime.ReadMemStats(&ms)
		return runtime.NumGoroutine(), ms.HeapAlloc
	}
	reload := func(from, to int) {
		for i := from; i < to; i++ {
			if err := a.Reload(gatewaytest.Config(t, review38cConfig(up.URL, dec, i))); err != nil {
				t.Fatal(err)
			}
			if i%50 == 49 {
				time.Sleep(50 * time.Millisecond) // 50 reloads as fast as they come, then a breath
			}
		}
	}
	// After the traffic, one more reload: the connections the configuration
	// being served holds idle (up to one per client) are legitimately kept
	// until then; only what earlier ones left behind is a leak.
	stop := traffic()
	reload(1, 101)
	stop()
	reload(101, 102)
	time.Sleep(200 * time.Millisecond)
	g0, h0 := measure()

	stop = traffic()
	reload(102, 601)
	stop()
	reload(601, 602)
	// Connections the last requests used close as their goroutines
	// notice: give a loaded machine a few seconds before calling it a leak.
	g1, h1 := measure()
	for deadline := time.Now().Add(5 * time.Second); (g1 > g0+5 || h1 > h0+2<<20) && time.Now().Before(deadline); {
		time.Sleep(100 * time.Millisecond)
		g1, h1 = measure()
	}

	t.Logf("after 100 reloads: %d goroutines, heap %d KiB; after 600: %d goroutines, heap %d KiB", g0, h0>>10, g1, h1>>10)
	if g1 > g0+5 {
		buf := make([]byte, 1<<20)
		t.Logf("%s", buf[:runtime.Stack(buf, true)])
		t.Errorf("goroutines grew from %d to %d over 500 reloads", g0, g1)
	}
	if h1 > h0+2<<20 {
		t.Errorf("the heap grew from %d KiB to %d KiB over 500 reloads", h0>>10, h1>>10)
	}
	if n := bad.Load(); n > 0 {
		t.Errorf("%d requests failed during the reloads, e.g. %v", n, badMsg.Load())
	}
}

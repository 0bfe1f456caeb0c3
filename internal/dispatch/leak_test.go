package dispatch_test

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/dispatch"
	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Requests that end at the route's deadline (before any header, before the
// first content), that end healthy (a whole answer, a stream) or that the
// client leaves leave no goroutine behind: no watchdog timer waiting on a
// route context that is never made or never canceled, no Stop watcher.
func TestNoGoroutineOutlivesTheRequest(t *testing.T) {
	slow := upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Delay: 2 * time.Second, Body: upstreamtest.ChatJSON("m", "late")}))
	defer slow.Close()
	trickle := upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Events: upstreamtest.ChatStream("m", "a", "b"), EventDelay: 40 * time.Millisecond}))
	defer trickle.Close()
	fast := upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Events: upstreamtest.ChatStream("m", "x")}))
	defer fast.Close()
	yaml := `providers:
  - {name: ps, dialect: openai, base_url: "` + slow.URL + `/v1", api_key: sk-test}
  - {name: pt, dialect: openai, base_url: "` + trickle.URL + `/v1", api_key: sk-test}
  - {name: pf, dialect: openai, base_url: "` + fast.URL + `/v1", api_key: sk-test}
targets:
  - {name: s, model: m, providers: [ps]}
  - {name: tt, model: m, providers: [pt]}
  - {name: f, model: m, providers: [pf]}
routes:
  - {name: slow, targets: [s], deadline: 60ms}
  - {name: trickle, targets: [tt], deadline: 1s}
  - {name: fast, targets: [f], deadline: 1s}
`
	cfg, err := config.Parse("t.yaml", []byte(yaml), nil)
	if err != nil {
		t.Fatal(err)
	}
	keys := []health.Key{{Target: "s", Provider: "ps"}, {Target: "tt", Provider: "pt"}, {Target: "f", Provider: "pf"}}
	tr := health.New(health.NewMemory(), health.Settings{FailureThreshold: 1000, Cooldown: cfg.Health.Cooldown, MaxCooldown: cfg.Health.MaxCooldown}, keys, nil)
	stop, shut := context.WithCancel(context.Background())
	defer shut()
	d, err := dispatch.New(dispatch.Options{Config: cfg, Health: tr, Classifier: &classify.Classifier{Rules: cfg.Rules}, Stop: stop})
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	before := runtime.NumGoroutine()
	var wg sync.WaitGroup
	for i := range 60 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			model := []string{"slow", "trickle", "fast"}[i%3]
			ctx := context.Background()
			if i%6 == 1 { // a client that leaves mid-stream
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, 50*time.Millisecond)
				defer cancel()
			}
			d.Run(ctx, &dispatch.Call{Model: model, Stream: true, Out: &client{}, ID: "id",
				Body: []byte(`{"model":"` + model + `","stream":true,"messages":[{"role":"user","content":"hi"}]}`)})
		}()
	}
	wg.Wait()
	d.Close()
	slow.Close()
	trickle.Close()
	fast.Close()
	deadline := time.Now().Add(5 * time.Second)
	for {
		runtime.GC()
		n := runtime.NumGoroutine()
		if n <= before+2 {
			return
		}
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines before, %d after the requests ended:\n%s", before, n, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(50 * time.Millisecond)
	}
}

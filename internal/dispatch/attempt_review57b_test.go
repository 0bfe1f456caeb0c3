package dispatch

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/health"
)

// r57bHarness is a Dispatcher whose one route calls a real loopback
// upstream (handler) through upstreamCall, with the provider timeout given.
func r57bHarness(t *testing.T, handler http.HandlerFunc, timeout string) *harness {
	t.Helper()
	srv := httptest.NewServer(handler)
	t.Cleanup(srv.Close)
	yaml := `
providers:
  - {name: p, dialect: openai, base_url: "` + srv.URL + `/v1", api_key: k, timeout: ` + timeout + `}
targets:
  - {name: t, model: gpt-4o, providers: [p], price: {input: 2.5, output: 10}}
routes:
  - {name: m, targets: [t]}
`
	cfg, err := config.Parse("test.yaml", []byte(yaml), nil)
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{now: time.Now()}
	keys := []health.Key{{Target: "t", Provider: "p"}}
	h.h = health.New(health.NewMemory(), health.Settings{FailureThreshold: 3, Cooldown: 10 * time.Second, MaxCooldown: time.Minute},
		keys, func() time.Time { return h.now })
	h.d, err = New(Options{Config: cfg, Health: h.h, Decisions: h, Backoff: func() time.Duration { return 0 },
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func meteredCall() *Call {
	c := testCall("m", 0, 0)
	c.Metered = true
	return c
}

// TestReview57bShutdownEndsALeftWholeAnswer: attemptContext's doc says
// a whole answer its metered client left is read to its end "(within the
// provider's timeouts; shutdown still ends it)". When the client left
// before the grace period ended, the shutdown's cancelBase(errShutdown) is
// a no-op on a context already canceled (cause context.Canceled), the
// AfterFunc has already run, and the attempt goes on past the end of the
// grace period until the upstream answers or the provider timeout.
func TestReview57bShutdownEndsALeftWholeAnswer(t *testing.T) {
	got := make(chan struct{}, 1)
	upstreamGone := make(chan time.Time, 1)
	h := r57bHarness(t, func(w http.ResponseWriter, r *http.Request) {
		got <- struct{}{}
		select {
		case <-r.Context().Done():
			upstreamGone <- time.Now()
		case <-time.After(5 * time.Second):
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"id":"x","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":1,"total_tokens":11}}`))
		}
	}, "30s")
	stop, shut := context.WithCancel(context.Background())
	defer shut()
	h.d.opt.Stop = stop
	ctx, leave := context.WithCancel(context.Background())
	done := make(chan *Result, 1)
	go func() { done <- h.d.Run(ctx, meteredCall()) }()
	<-got
	time.Sleep(50 * time.Millisecond) // the request was written
	leave()
	time.Sleep(100 * time.Millisecond)
	shut() // the grace period is over
	shutAt := time.Now()
	select {
	case res := <-done:
		t.Logf("ended %v after the grace period: outcome %q", time.Since(shutAt), res.Decision.Outcome)
	case <-time.After(2 * time.Second):
		t.Errorf("the end of the grace period did not end the attempt its client had left: still running 2s later (the upstream call runs on to its answer or the provider's timeout)")
		<-done
	}
}

// TestReview57bTimeoutAfterClientLeft: the provider's timeout expires
// after the metered client left a whole answer. The watchdog calls
// attemptContext's cancel func from its timer goroutine, and that func
// calls w.gone(o) (writes o.canceled, o.verdict) while the attempt's own
// goroutine files the transport failure on the same outcome (run with
// -race).
func TestReview57bTimeoutAfterClientLeft(t *testing.T) {
	got := make(chan struct{}, 1)
	h := r57bHarness(t, func(w http.ResponseWriter, r *http.Request) {
		got <- struct{}{}
		select {
		case <-r.Context().Done():
		case <-time.After(3 * time.Second):
		}
	}, "300ms")
	ctx, leave := context.WithCancel(context.Background())
	done := make(chan *Result, 1)
	go func() { done <- h.d.Run(ctx, meteredCall()) }()
	<-got
	time.Sleep(50 * time.Millisecond)
	leave()
	res := <-done
	d := res.Decision
	if len(d.Attempts) != 1 || d.Outcome != "canceled" {
		t.Errorf("outcome %q attempts %+v", d.Outcome, d.Attempts)
	}
}

package e2e

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// TestHostile57cOthersTrafficCannotStopARetry: after e2a394a (reverted) a
// 504 after a sent, uncounted timeout said x-should-retry: false, uncounted
// meaning "the endpoint's other answers excused it" (excuse.go, lengthy:
// one success of anyone's since the attempt began excuses one timeout).
// Key team-b's request lands on a connection that stalls (the upstream
// hangs its first call only: one wedged replica, a dropped packet); key
// team-a, meanwhile, sends three ordinary requests the endpoint answers at
// once. team-b's 504 then said x-should-retry: false — the OpenAI and
// Anthropic SDKs do not retry — although its retry would be answered at
// once (shown by sending it by hand). Without team-a's traffic the same
// stall left the SDK's retry (control). One client's traffic decided
// whether another client's SDK retried.
func TestHostile57cOthersTrafficCannotStopARetry(t *testing.T) {
	for _, others := range []bool{false, true} {
		name := "alone"
		if others {
			name = "with-other-keys-traffic"
		}
		t.Run(name, func(t *testing.T) {
			var stalled atomic.Bool
			fs := fakes(t, map[string]upstreamtest.Script{"openai": func(n int, r upstreamtest.Request) upstreamtest.Step {
				if strings.Contains(string(r.Body), "team-b") && stalled.CompareAndSwap(false, true) {
					return upstreamtest.Step{Delay: 4 * time.Second, Body: upstreamtest.ChatJSON("gpt-4o", "late")}
				}
				return ok("gpt-4o", "fine")
			}})
			g := start(t, `
client_keys:
  - {name: team-a, key: key-team-a}
  - {name: team-b, key: key-team-b}
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: `+secret+`, timeout: 1s}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai]}
routes:
  - {name: chat, targets: [gpt]}
`, fs)
			if others {
				go func() {
					time.Sleep(300 * time.Millisecond)
					for range 3 {
						g.raw(t, "POST", "/v1/chat/completions", `{"model":"chat","messages":[{"role":"user","content":"team-a hi"}]}`,
							"Authorization", "Bearer key-team-a")
					}
				}()
			}
			r := g.raw(t, "POST", "/v1/chat/completions", `{"model":"chat","messages":[{"role":"user","content":"team-b hi"}]}`,
				"Authorization", "Bearer key-team-b")
			if r.Status != 504 {
				t.Fatalf("team-b: %d %s", r.Status, r.Body)
			}
			retry := g.raw(t, "POST", "/v1/chat/completions", `{"model":"chat","messages":[{"role":"user","content":"team-b hi"}]}`,
				"Authorization", "Bearer key-team-b")
			t.Logf("team-b: 504 x-should-retry=%q; its retry by hand: %d", r.Header.Get("X-Should-Retry"), retry.Status)
			if r.Header.Get("X-Should-Retry") == "false" && retry.Status == 200 {
				t.Errorf("team-b's stalled request was told x-should-retry: false because team-a's requests were served meanwhile; its retry was answered at once (200)")
			}
		})
	}
}

// TestHostile57cShutdownWithALeftWholeAnswer: the process-level view
// of internal/dispatch TestHostile57cShutdownEndsALeftWholeAnswer. A
// budgeted key's client sends a whole-answer request, the upstream is
// still generating (it answers in 20s), the client leaves; then the
// gateway is told to shut down (grace 500ms). Its drain waits the whole
// grace on that request, the end of the grace (Stop) does not end it, so
// Serve returns only after finalWrite (2s) closed the connections, and
// Close returns while the request is still on its upstream: its decision
// record (and its usage, the point of fc7cbe9) is not written before the
// process would exit.
func TestHostile57cShutdownWithALeftWholeAnswer(t *testing.T) {
	sent := make(chan struct{}, 1)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // read: net/http notices a closed connection only then
		select {
		case sent <- struct{}{}:
		default:
		}
		select {
		case <-r.Context().Done():
			return
		case <-time.After(20 * time.Second):
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, upstreamtest.ChatJSON("gpt-4o", "a long essay"))
	}))
	defer up.Close()
	recs := gatewaytest.NewRecords()
	cfg := gatewaytest.Config(t, `
client_keys:
  - {name: team-b, key: key-team-b, budget: {usd_per_day: 5}}
providers:
  - {name: openai, dialect: openai, base_url: "`+up.URL+`/v1", api_key: `+secret+`, timeout: 30s}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai], price: {input: 2.50, output: 10.00}}
routes:
  - {name: deep, targets: [gpt]}
`)
	a, err := app.New(cfg, app.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Decisions: recs})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, shutdown := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() { a.Serve(ctx, ln, 500*time.Millisecond); close(served) }()

	cctx, leave := context.WithCancel(context.Background())
	go func() {
		req, _ := http.NewRequestWithContext(cctx, http.MethodPost, "http://"+ln.Addr().String()+"/v1/chat/completions",
			strings.NewReader(`{"model":"deep","messages":[{"role":"user","content":"write a very long essay"}]}`))
		req.Header.Set("Authorization", "Bearer key-team-b")
		req.Header.Set("Content-Type", "application/json")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	select {
	case <-sent:
	case <-time.After(5 * time.Second):
		t.Fatal("never sent")
	}
	time.Sleep(100 * time.Millisecond)
	leave()
	time.Sleep(100 * time.Millisecond)
	began := time.Now()
	shutdown()
	<-served
	serveTook := time.Since(began)
	a.Close(context.Background())
	closeTook := time.Since(began)
	recs.Write(nil) // a marker: what was written before Close returned comes before it
	var before []string
	func() {
		for i := 1; ; i++ {
			d := recs.Wait(t, i)
			if d == nil {
				return
			}
			before = append(before, d.Outcome)
		}
	}()
	t.Logf("Serve returned %v after the shutdown began (grace 500ms); Close %v; records written by then: %v", serveTook, closeTook, before)
	if serveTook > 1500*time.Millisecond {
		t.Errorf("the drain took %v with a grace of 500ms: the end of the grace did not end the request the client had left", serveTook)
	}
	if len(before) == 0 {
		t.Errorf("Close returned before the left request's decision record (its usage and cost) was written: a restart loses it")
	}
}

// TestHostile57cAKeyWithoutLimitsStillHoldsTheUpstream: docs/config.md
// (fc7cbe9): "Only a key with limits holds the answer so; without them the
// upstream call ends with the client." But Call.Metered is set for every
// keyed request whenever the gateway has a limits store
// (internal/server/finish.go: call.Metered = a.st.Limits != nil), and
// app.New always makes one (limit.New, memory or Redis). So a key with no
// rate, budget or max_concurrent that leaves a whole answer keeps its
// upstream call (and its goroutine, connection and body allowance) until
// the answer ends, and a shutdown cannot end it (F1).
func TestHostile57cAKeyWithoutLimitsStillHoldsTheUpstream(t *testing.T) {
	// The answer comes 10 s on: well past the wait below, on a loaded machine too.
	fs := fakes(t, map[string]upstreamtest.Script{"openai": script(upstreamtest.Step{Delay: 10 * time.Second, Body: upstreamtest.ChatJSON("gpt-4o", "late")})})
	g := start(t, `
client_keys:
  - {name: free, key: key-free}
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: `+secret+`}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai]}
routes:
  - {name: chat, targets: [gpt]}
`, fs)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, g.URL+"/v1/chat/completions",
		strings.NewReader(`{"model":"chat","messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("Authorization", "Bearer key-free")
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("answered before the client left: %d", resp.StatusCode)
	}
	// The upstream sees the gateway hang up on its own goroutines: wait for
	// it (a failure guard, far below the answer's 10 s), not a fixed while.
	for deadline := time.Now().Add(5 * time.Second); fs["openai"].Gone() == 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if fs["openai"].Gone() != 1 {
		t.Errorf("5s after the client of a key without limits left, the gateway still holds its upstream call (gone=%d): the docs say it ends with the client", fs["openai"].Gone())
	}
	d := g.recs.wait(t, 1)
	t.Logf("record: outcome %s, %d attempts, usage %+v", d.Outcome, len(d.Attempts), d.Attempts[0].Usage)
}

// TestHostile57cLeftRequestsHoldTheBodyAllowance: a request's body is
// counted in max_inflight_body_bytes "until its request ends"
// (docs/config.md), and since fc7cbe9 a keyed whole answer's request no
// longer ends when its client leaves. A key with no max_concurrent (here
// none of any limit) sends bodies of 240 KB, each request left 300ms
// after it was sent, and holds no connection at all afterwards; the
// upstream takes 5s per answer (a long generation). Another key's
// ordinary request is then refused 503 inflight_body_limit: the
// allowance is held by requests whose client is gone. Before fc7cbe9 the
// leave gave it back.
func TestHostile57cLeftRequestsHoldTheBodyAllowance(t *testing.T) {
	for _, keyed := range []bool{false, true} {
		name := "no-client-keys-control"
		if keyed {
			name = "client-keys-without-limits"
		}
		t.Run(name, func(t *testing.T) { leftRequestsHoldTheAllowance(t, keyed) })
	}
}

func leftRequestsHoldTheAllowance(t *testing.T, keyed bool) {
	keys := ""
	if keyed {
		keys = "client_keys:\n  - {name: leaver, key: key-leaver}\n  - {name: victim, key: key-victim}\n"
	}
	fs := fakes(t, map[string]upstreamtest.Script{"openai": func(n int, r upstreamtest.Request) upstreamtest.Step {
		if strings.Contains(string(r.Body), "victim") {
			return ok("gpt-4o", "fine")
		}
		return upstreamtest.Step{Delay: 5 * time.Second, Body: upstreamtest.ChatJSON("gpt-4o", "late")}
	}})
	g := start(t, `
max_body_bytes: 262144
max_inflight_body_bytes: 1048576
`+keys+`providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: `+secret+`}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai]}
routes:
  - {name: chat, targets: [gpt]}
`, fs)
	big := `{"model":"chat","messages":[{"role":"user","content":"` + strings.Repeat("lorem ipsum ", 20000) + `"}]}`
	for range 4 {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, g.URL+"/v1/chat/completions", strings.NewReader(big))
		req.Header.Set("Authorization", "Bearer key-leaver")
		req.Header.Set("Content-Type", "application/json")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			t.Logf("leaver got %d", resp.StatusCode)
			resp.Body.Close()
		}
		cancel()
	}
	http.DefaultClient.CloseIdleConnections() // the leaver holds nothing now
	r := g.raw(t, "POST", "/v1/chat/completions", `{"model":"chat","messages":[{"role":"user","content":"victim `+strings.Repeat("x", 100000)+`"}]}`,
		"Authorization", "Bearer key-victim")
	t.Logf("victim: %d %s", r.Status, r.Body[:min(len(r.Body), 200)])
	if r.Status != 200 {
		t.Errorf("another key's request got %d while the only requests in flight were ones their client had left", r.Status)
	}
}

package process

// Operator review 57: a slow-burn incident on a two-replica fleet sharing one Redis, in front of
// three OpenAI-compatible providers (loopback upstreams this test controls). One provider's
// time to first token climbs while its response headers still come at once — as an OpenAI or
// OpenAI-compatible streaming server answers: 200 and `text/event-stream` headers, the role-only
// first chunk, then the content when the model has it. Chunks are upstreamtest.ChatStream's
// (OpenAI's documented chat.completion.chunk shape:
// https://platform.openai.com/docs/api-reference/chat-streaming). The 529 body is
// classify/testdata/corpus/anthropic-overloaded-529.json (anthropics/anthropic-sdk-typescript#616).

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// op57Up is an OpenAI-compatible provider whose behaviour the test changes as the incident goes:
// headers (after headerDelay), the role-only chunk, then ttft, then the content; every
// stallEvery-th stream stalls after its first content chunk; status other than 200 answers that
// status with body at once.
type op57Up struct {
	URL string
	mu  sync.Mutex

	headerDelay, ttft time.Duration
	stallEvery        int
	status            int
	errBody           string
	errEvery          int // with status: every errEvery-th call answers it (0: every call)
	calls, streams    int
}

func newOp57Up(t *testing.T, model string) *op57Up {
	u := &op57Up{}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	u.URL = "http://" + ln.Addr().String()
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		stream := strings.Contains(string(b), `"stream":true`)
		u.mu.Lock()
		u.calls++
		hd, ttft, every, st, eb := u.headerDelay, u.ttft, u.stallEvery, u.status, u.errBody
		if u.errEvery > 0 && u.calls%u.errEvery != 0 {
			st = 0
		}
		stall := false
		if stream {
			u.streams++
			stall = every > 0 && u.streams%every == 0
		}
		u.mu.Unlock()
		wait := func(d time.Duration) bool {
			select {
			case <-time.After(d):
				return true
			case <-r.Context().Done():
				return false
			}
		}
		if st != 0 && st != 200 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(st)
			io.WriteString(w, eb)
			return
		}
		if !wait(hd) {
			return
		}
		if !stream {
			if !wait(ttft) {
				return
			}
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, upstreamtest.ChatJSON(model, "hello"))
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		evs := upstreamtest.ChatStream(model, "Hel", "lo", " there")
		fl := http.NewResponseController(w)
		fmt.Fprintf(w, "data: %s\n\n", evs[0]) // role-only chunk, at once
		fl.Flush()
		if !wait(ttft) {
			return
		}
		for i, ev := range evs[1:] {
			fmt.Fprintf(w, "data: %s\n\n", ev)
			fl.Flush()
			if stall && i == 0 {
				<-r.Context().Done() // stalls after its first content
				return
			}
			if !wait(20 * time.Millisecond) {
				return
			}
		}
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return u
}

func (u *op57Up) set(f func(u *op57Up)) { u.mu.Lock(); f(u); u.mu.Unlock() }

type op57Fleet struct {
	alpha, beta, gamma *op57Up
	hook               *webhook
	a, b               *gateway
}

const op57Key = "ck-op57-team-a-000000000001"

func newOp57Fleet(t *testing.T) *op57Fleet {
	f := &op57Fleet{alpha: newOp57Up(t, "alpha-large"), beta: newOp57Up(t, "beta-large"), gamma: newOp57Up(t, "gamma-large"), hook: startWebhook(t)}
	// beta's front is a little slower to answer headers (150 ms), its tokens then flow at once.
	f.beta.set(func(u *op57Up) { u.headerDelay = 150 * time.Millisecond })
	f.alpha.set(func(u *op57Up) { u.ttft = 50 * time.Millisecond })
	rs := redistest.Start(t)
	cfg := `state: {store: redis, url: "` + rs.URL() + `"}
log: {format: json}
admin_keys: [` + op56Admin + `]
alerts: {webhook: "` + f.hook.URL + `", min_interval: 1h}
health: {failure_threshold: 3, cooldown: 2s, max_cooldown: 8s, remeasure_after: 20s}
client_keys:
  - {name: team-a, key: ` + op57Key + `}
  - {name: team-b, key: ck-op57-team-b-000000000002}
providers:
  - {name: alpha, dialect: openai, base_url: "` + f.alpha.URL + `", api_key: sk-alpha, first_token_timeout: 5s, idle_timeout: 1s, timeout: 10s}
  - {name: beta, dialect: openai, base_url: "` + f.beta.URL + `", api_key: sk-beta, first_token_timeout: 5s, idle_timeout: 1s, timeout: 10s}
  - {name: gamma, dialect: openai, base_url: "` + f.gamma.URL + `", api_key: sk-gamma, first_token_timeout: 5s, idle_timeout: 1s, timeout: 10s}
targets:
  - {name: a, model: alpha-large, providers: [alpha]}
  - {name: b, model: beta-large, providers: [beta]}
  - {name: c, model: gamma-large, providers: [gamma]}
routes:
  - {name: live, strategy: fastest, targets: [a, b]}
  - {name: main, strategy: ordered, targets: [a, c]}
`
	f.a, f.b = twoReplicas(t, cfg)
	return f
}

// op57Stream streams one chat request and returns the target that served it, the time to the
// first content the client read, and the whole SSE text.
func op57Stream(g *gateway, key, model string) (target string, ttft time.Duration, text string) {
	g.t.Helper()
	start := time.Now()
	resp := g.chatAs(key, `{"model":"`+model+`","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	defer resp.Body.Close()
	var sb strings.Builder
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		sb.WriteString(line + "\n")
		if ttft == 0 && strings.Contains(line, `"content":"`) && !strings.Contains(line, `"content":""`) {
			ttft = time.Since(start)
		}
	}
	return resp.Header.Get("X-Detour-Target"), ttft, sb.String()
}

func op57Latency(g *gateway, target, provider string) float64 {
	e, _ := op56Health(g).Endpoint(target, provider)
	if e.LatencyMS == nil {
		return -1
	}
	return *e.LatencyMS
}

// F1. The slow burn: alpha's time to first token climbs from 50 ms to 2.5 s while its headers
// still come at once; beta answers its headers in 150 ms and its tokens at once. A `fastest`
// route ("latency-first", config.md: "then by measured latency") kept sending every stream to
// alpha before round 57, where each client waited 2.5 s for its first token, because the only
// latency Detour measured was the time to response headers; /v1/health's latency_ms and
// detour_upstream_ttfb_seconds said alpha was the fast one, and no surface showed the 2.5 s the
// clients waited. A stream's sample is its time to first content now, and
// detour_upstream_first_token_seconds shows it.
func TestOp57FastestRouteMovesOffAProviderWhoseFirstTokenClimbs(t *testing.T) {
	f := newOp57Fleet(t)
	// Both targets measured while alpha is healthy.
	for i := 0; i < 4; i++ {
		g := []*gateway{f.a, f.b}[i%2]
		if tg, _, txt := op57Stream(g, op57Key, "live"); tg == "" || !strings.Contains(txt, "[DONE]") {
			t.Fatalf("warm-up stream %d on %s: target %q: %s", i, g.name, tg, txt)
		}
	}
	// The burn: alpha's first token now takes 2.5 s.
	f.alpha.set(func(u *op57Up) { u.ttft = 2500 * time.Millisecond })
	var served []string
	var waits []string
	for i := 0; i < 6; i++ {
		g := []*gateway{f.a, f.b}[i%2]
		tg, ttft, txt := op57Stream(g, op57Key, "live")
		if !strings.Contains(txt, "[DONE]") {
			t.Fatalf("stream %d: %s", i, txt)
		}
		served = append(served, tg)
		waits = append(waits, ttft.Round(10*time.Millisecond).String())
	}
	la, lb := op57Latency(f.b, "a", "alpha"), op57Latency(f.b, "b", "beta")
	ttfbA := op56Metric(f.a, "detour_upstream_ttfb_seconds_sum", `provider="alpha"`) + op56Metric(f.b, "detour_upstream_ttfb_seconds_sum", `provider="alpha"`)
	t.Logf("served %v; client time to first token %v; /v1/health latency_ms alpha %.1f beta %.1f; ttfb sum alpha %.3fs", served, waits, la, lb, ttfbA)
	alphaAfter := 0
	for _, s := range served[2:] {
		if s == "a" {
			alphaAfter++
		}
	}
	if alphaAfter > 1 {
		t.Errorf("fastest route `live`: streams 3-6 of the burn served by %v (%d by alpha, whose clients waited %v for a first token; beta's first token comes in ~150 ms); want it moved to b after the slow samples", served[2:], alphaAfter, waits)
	}
	if ft := op56Metric(f.a, "detour_upstream_first_token_seconds_sum", `provider="alpha"`) + op56Metric(f.b, "detour_upstream_first_token_seconds_sum", `provider="alpha"`); ft < 2.5 {
		t.Errorf("detour_upstream_first_token_seconds_sum for alpha is %.3f s across both replicas, after a stream whose first token took 2.5 s", ft)
	}
	if la >= 0 && lb >= 0 && la < lb {
		t.Errorf("/v1/health latency_ms: alpha %.1f < beta %.1f while alpha's clients wait 2.5 s for a first token: the operator is told the slow provider is the fast one", la, lb)
	}
}

package app_test

import (
	"bufio"

	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/redistest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// rtScenario is one kind of request whose Redis round trips are counted.
type rtScenario struct {
	name   string
	key    string // the client key sent
	model  string
	stream bool
	// most is the most round trips it may wait for before the client has
	// its answer (a stream: its [DONE]); total the most in all.
	most, total int
}

// rtScenarios: a success answered at once, without client limits and with
// a limited key; a failure (a 500, retried once) that walks to the next
// endpoint; a stream, without and with limits.
var rtScenarios = []rtScenario{
	{name: "whole", key: "open-key", model: "ok", most: 2, total: 2},                           // the route's health; the success's report
	{name: "whole_limited", key: "limited-key", model: "ok", most: 4, total: 4},                // + the admission and the spend
	{name: "walk", key: "open-key", model: "walk", most: 4, total: 4},                          // health; two failures' reports; the success's
	{name: "stream", key: "open-key", model: "ok", stream: true, most: 1, total: 2},            // health; the report follows [DONE]
	{name: "stream_limited", key: "limited-key", model: "ok", stream: true, most: 4, total: 4}, // [DONE] waits for the report and the spend
}

// rtGateway serves a gateway over Redis through a tap: target "ok" answers
// at once, target "walk" meets a 500 at p1 (twice: a retry) and is answered
// by p2; the key "limited" has a rate and a budget, "open" none.
func rtGateway(t testing.TB) (string, *redistest.Tap) {
	t.Helper()
	srv := redistest.Start(t)
	tap := redistest.StartTap(t, srv.Addr())
	good := upstreamtest.New(func(_ int, r upstreamtest.Request) upstreamtest.Step {
		if r.Streamed() {
			return upstreamtest.Step{Events: upstreamtest.ChatStream("m", "h", "i")}
		}
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("m", "hi")}
	})
	t.Cleanup(good.Close)
	bad := upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Status: 500, Body: `{"error":{"message":"boom","type":"server_error"}}`}))
	t.Cleanup(bad.Close)
	cfg := gatewaytest.Config(t, `state: {store: redis, url: "`+tap.URL()+`"}
client_keys:
  - {name: open, key: open-key}
  - {name: limited, key: limited-key, rate: {requests_per_minute: 1000000, tokens_per_minute: 1000000000}, budget: {usd_per_day: 100000}}
providers:
  - {name: p1, dialect: openai, base_url: "`+bad.URL+`/v1", api_key: sk-test}
  - {name: p2, dialect: openai, base_url: "`+good.URL+`/v1", api_key: sk-test}
targets:
  - {name: ok, model: m, providers: [p2], price: {input: 1, output: 1}}
  - {name: walk, model: m, providers: [p1, p2], price: {input: 1, output: 1}}
health: {failure_threshold: 1000000}
`)
	url, _ := gatewaytest.Start(t, cfg, app.Options{Decisions: gatewaytest.NewRecords()})
	return url, tap
}

// rtRequest sends one request and returns when the client has its whole
// answer (a stream: its [DONE]).
func rtRequest(t testing.TB, url string, sc rtScenario) time.Time {
	t.Helper()
	body := `{"model":"` + sc.model + `","messages":[{"role":"user","content":"x"}]`
	if sc.stream {
		body += `,"stream":true`
	}
	req, _ := http.NewRequest("POST", url+"/v1/chat/completions", strings.NewReader(body+"}"))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+sc.key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s: status %d: %s", sc.name, resp.StatusCode, b)
	}
	if !sc.stream {
		_, _ = io.Copy(io.Discard, resp.Body)
		return time.Now()
	}
	lines := bufio.NewScanner(resp.Body)
	for lines.Scan() {
		if strings.TrimSpace(lines.Text()) == "data: [DONE]" {
			return time.Now()
		}
	}
	t.Fatalf("%s: stream ended without [DONE]", sc.name)
	return time.Time{}
}

// rtCount sends one request of sc with every Redis round trip held late and
// returns the round trips that went to Redis before the client had its
// answer, and after (each as its commands, "+" between a pipeline's).
func rtCount(t testing.TB, url string, tap *redistest.Tap, sc rtScenario, late time.Duration) (before, after []string) {
	t.Helper()
	time.Sleep(100 * time.Millisecond) // what earlier requests left (a stream's report after its [DONE]) has gone by
	tap.Latency(late)
	tap.Reset()
	done := rtRequest(t, url, sc)
	time.Sleep(10 * late) // what follows the answer has gone by then
	tap.Latency(0)
	for _, b := range tap.Batches() {
		s := strings.Join(b.Commands, "+")
		if s == "TIME" {
			continue // Redis's clock, measured once a minute in the background
		}
		if b.Sent.Before(done) {
			before = append(before, s)
		} else {
			after = append(after, s)
		}
	}
	return before, after
}

// An operator running replicas with shared state relies on Redis's round
// trips, not its distance, being few on a request's path: each costs the
// network's round trip (1 ms to another zone) on every request. Counted by
// a tap in front of a real redis-server that holds each round trip 20ms: a
// success answered at once waits for two (the route's health, then one
// script that reports the success and reads the account), a limited key's
// for two more (its admission, its spend), a failure that walks on for one
// per report; a stream's report after its [DONE] is one more. As first
// built a success waited for five (MGET; WATCH, GET, MULTI/SET/EXEC; a GET
// of the account), a limited key's for seven, the walk for eleven, and a
// stream's end for four after its [DONE].
func TestPerf41rRedisRoundTripsBeforeTheAnswer(t *testing.T) {
	url, tap := rtGateway(t)
	for _, sc := range rtScenarios {
		rtRequest(t, url, sc) // connections, Redis's clock, the scripts loaded
		rtRequest(t, url, sc)
		before, after := rtCount(t, url, tap, sc, 20*time.Millisecond)
		t.Logf("%-15s before the answer %d %v; after it %d %v", sc.name, len(before), before, len(after), after)
		if len(before) > sc.most {
			t.Errorf("%s: %d Redis round trips before the client had its answer %v, want at most %d", sc.name, len(before), before, sc.most)
		}
		if n := len(before) + len(after); n > sc.total {
			t.Errorf("%s: %d Redis round trips in all %v %v, want at most %d", sc.name, n, before, after, sc.total)
		}
	}
}

// BenchmarkPerf41rRedisAddedTime measures what Redis 1ms away adds to one
// request of each kind: the time to the client's answer with 1ms held on
// every Redis round trip, less the time with none (docs/benchmarks.md,
// "Shared state: Redis round trips").
func BenchmarkPerf41rRedisAddedTime(b *testing.B) {
	url, tap := rtGateway(b)
	for _, sc := range rtScenarios {
		if sc.name == "walk" {
			continue // its retry's wait dwarfs Redis
		}
		b.Run(sc.name, func(b *testing.B) {
			for range 3 {
				rtRequest(b, url, sc)
			}
			var near, far time.Duration
			for b.Loop() {
				for _, late := range []time.Duration{0, time.Millisecond} {
					tap.Latency(late)
					start := time.Now()
					rtRequest(b, url, sc)
					d := time.Since(start)
					if late == 0 {
						near += d
					} else {
						far += d
					}
				}
			}
			tap.Latency(0)
			n := float64(b.N)
			b.ReportMetric(float64(near.Microseconds())/n, "µs/req-near")
			b.ReportMetric(float64(far.Microseconds())/n, "µs/req-1ms")
			b.ReportMetric(float64((far-near).Microseconds())/n, "µs/req-added")
		})
	}
}

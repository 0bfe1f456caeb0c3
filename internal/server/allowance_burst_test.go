package server_test

import (
	"context"
	"io"
	"math/rand"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

func claudeJSON() string {
	return `{"id":"msg_01","type":"message","role":"assistant","model":"claude-x","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":1}}`
}

// After a burst of requests on every translating door, with failures,
// retries, failover, refusals and clients that leave, the server-wide
// allowance counter is back to exactly zero and no one holds its
// overdraft (review 35a): a drift either way would refuse every request,
// or let bodies past the allowance, for as long as the process runs.
func TestAllowanceReturnsToZeroAfterABurst(t *testing.T) {
	var n sync.Mutex
	calls := 0
	anth := upstreamtest.New(func(_ int, r upstreamtest.Request) upstreamtest.Step {
		n.Lock()
		calls++
		c := calls
		n.Unlock()
		if strings.HasSuffix(r.Path, "count_tokens") {
			if c%3 == 0 {
				return upstreamtest.Step{Status: 500, Body: `{"type":"error","error":{"type":"api_error","message":"x"}}`}
			}
			return upstreamtest.Step{Body: `{"input_tokens":3}`, Delay: time.Duration(c%4) * time.Millisecond}
		}
		if c%2 == 0 || r.Streamed() {
			return upstreamtest.Step{Status: 500, Body: `{"type":"error","error":{"type":"api_error","message":"x"}}`}
		}
		return upstreamtest.Step{Body: claudeJSON(), Delay: time.Duration(c%5) * time.Millisecond}
	})
	t.Cleanup(anth.Close)
	oai := upstreamtest.New(func(c int, r upstreamtest.Request) upstreamtest.Step {
		if r.Streamed() {
			return upstreamtest.Step{Events: upstreamtest.ChatStream("m", "a", "b", "c"), EventDelay: time.Millisecond}
		}
		if c%5 == 0 {
			return upstreamtest.Step{Status: 503, Body: `{"error":{"message":"busy"}}`}
		}
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("m", "ok"), Delay: time.Duration(c%3) * time.Millisecond}
	})
	t.Cleanup(oai.Close)
	cfg := overdraftConfig(anth, oai, "[claude, b]") // allowance_test.go
	url, a := gatewaytest.Start(t, gatewaytest.Config(t, cfg), app.Options{Decisions: decision.Discard})

	unit := `{"role":"user","content":"a"},`
	turns := func(k int) string { return strings.TrimSuffix(strings.Repeat(unit, k), ",") }
	blocks := func(k int) string {
		return strings.TrimSuffix(strings.Repeat(`{"type":"text","text":"a"},`, k), ",")
	}
	type req struct{ path, body string }
	mk := func(i int) req {
		model := []string{"r", "claude", "b"}[i%3]
		stream := []string{"false", "true"}[(i/3)%2]
		size := []int{1, 50, 2000, 20000}[(i/6)%4]
		switch (i / 24) % 5 {
		case 0:
			return req{"/v1/chat/completions", `{"model":"` + model + `","stream":` + stream + `,"messages":[` + turns(size) + `]}`}
		case 1:
			return req{"/v1/messages", `{"model":"` + model + `","max_tokens":8,"stream":` + stream + `,"messages":[{"role":"user","content":[` + blocks(size) + `]}]}`}
		case 2:
			return req{"/v1/responses", `{"model":"` + model + `","stream":` + stream + `,"input":[` + turns(size) + `]}`}
		case 3:
			return req{"/v1/messages/count_tokens", `{"model":"` + model + `","messages":[{"role":"user","content":[` + blocks(size) + `]}]}`}
		default: // malformed for the doors' translations
			return req{"/v1/messages", `{"model":"` + model + `","max_tokens":8,"messages":[{"role":"user","content":[{"type":"bogus"}]}]}`}
		}
	}
	statuses := burst(url, 600, 24, func(i int) (string, string, time.Duration) {
		q := mk(i)
		var cut time.Duration
		if rand.Intn(6) == 0 {
			cut = time.Duration(1+rand.Intn(3000)) * time.Microsecond
		}
		return q.path, q.body, cut
	})
	t.Logf("statuses %v", statuses)
	deadline := time.Now().Add(5 * time.Second)
	for a.Server.BodiesHeld() != 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if h := a.Server.BodiesHeld(); h != 0 {
		t.Fatalf("after the burst the allowance holds %d bytes, want 0", h)
	}
	if a.Server.Overdrawn() {
		t.Fatal("after the burst a request still holds the overdraft")
	}
}

// burst sends n requests, conc at a time, each mk(i): a path, a JSON body,
// and, when not zero, how long after it is sent the client leaves. It
// returns how many got each status.
func burst(url string, n, conc int, mk func(i int) (path, body string, cut time.Duration)) map[int]int {
	var wg sync.WaitGroup
	sem := make(chan struct{}, conc)
	statuses := map[int]int{}
	var mu sync.Mutex
	for i := 0; i < n; i++ {
		wg.Add(1)
		sem <- struct{}{}
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			path, body, cut := mk(i)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if cut > 0 {
				time.AfterFunc(cut, cancel)
			}
			hr, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+path, strings.NewReader(body))
			hr.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(hr)
			if err != nil {
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			mu.Lock()
			statuses[resp.StatusCode]++
			mu.Unlock()
		}(i)
	}
	wg.Wait()
	return statuses
}

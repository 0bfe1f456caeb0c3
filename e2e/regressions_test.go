package e2e

import (
	"bufio"
	"context"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Regressions found in review, each a test that failed before its fix.

// Once an account cools for quota, the route's later targets that reach it
// only through that account go after targets on healthy accounts, within the
// same request: the dead account is not called twice.
func TestCooledAccountGoesLastWithinTheRequest(t *testing.T) {
	quota := corpus(t, "openai-insufficient-quota-429")
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(quota), "q": script(ok("model-z", "z"))})
	g := start(t, `
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: `+secret+`}
  - {name: q, dialect: openai, base_url: "{q}", api_key: `+secret+`}
targets:
  - {name: x, model: model-x, providers: [p]}
  - {name: y, model: model-y, providers: [p]}
  - {name: z, model: model-z, providers: [q]}
routes:
  - {name: r, targets: [x, y, z]}
`, fs)
	g.post(t, "r", "").wantStatus(t, 200)
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "x/p quota next_target", "z/q ok done")
	if fs["p"].Calls() != 1 {
		t.Errorf("the cooled account was called %d times", fs["p"].Calls())
	}
	// Not tried: the walk ended before it reached the cooling endpoint,
	// which is tried last, never skipped for cooling (operator review 48).
	wantSkip(t, d, "y/p", "not reached (a cooling endpoint is tried last)")
}

// A client that reads its stream slowly is not the upstream's fault: the
// idle timeout measures the upstream's gaps, not the client's. The fake
// sends without pauses; on a loaded machine, under -race, relaying one of
// its 256 KiB events took up to a few hundred milliseconds, so idle_timeout
// is 2s and the client stalls twice that.
func TestSlowClientDoesNotBlameTheUpstream(t *testing.T) {
	if testing.Short() {
		t.Skip("slow (a 4s stall and 16 MiB through a slow reader); make test runs it")
	}
	t.Parallel() // seconds of waiting (or CPU) each: overlap them
	evs := upstreamtest.ChatStream("model-a", strings.Split(strings.Repeat("x", 64), "")...)
	big := strings.Repeat("y", 256<<10) // enough to fill the socket buffers
	for i := range evs {
		evs[i] = strings.Replace(evs[i], `"content":"x"`, `"content":"`+big+`"`, 1)
	}
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(upstreamtest.Step{Events: evs})})
	g := start(t, `
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: `+secret+`, idle_timeout: 2s}
targets:
  - {name: a, model: model-a, providers: [p]}
routes:
  - {name: r, targets: [a]}
`, fs)
	conn, err := net.Dial("tcp", strings.TrimPrefix(g.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	req, _ := http.NewRequest(http.MethodPost, g.URL+"/v1/chat/completions",
		strings.NewReader(`{"model":"r","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("Content-Type", "application/json")
	req.Write(conn)
	time.Sleep(4 * time.Second) // the client stalls past idle_timeout, far below the 30s client write timeout
	br := bufio.NewReader(conn)
	var all strings.Builder
	buf := make([]byte, 1<<20)
	for {
		conn.SetReadDeadline(time.Now().Add(30 * time.Second)) // a failure guard
		n, err := br.Read(buf)
		all.Write(buf[:n])
		if err != nil || strings.Contains(all.String(), "data: [DONE]") {
			break
		}
	}
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "a/p ok done")
	if !strings.Contains(all.String(), "data: [DONE]") {
		t.Errorf("the slow client did not get the whole answer")
	}
}

// A client that leaves while the gateway waits to retry the same endpoint is
// a canceled request, not an error, and no retry is recorded.
func TestClientLeavingDuringRetryBackoff(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(corpus(t, "openai-server-error-500"))})
	g := startWith(t, oneTarget, fs, 10*time.Second)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, g.URL+"/v1/chat/completions",
		strings.NewReader(`{"model":"r","messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("Content-Type", "application/json")
	done := make(chan struct{})
	go func() {
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
		close(done)
	}()
	// The client leaves once the first attempt is over (its failure is
	// counted), while the gateway waits to retry; leaving when the upstream
	// had merely received the request could cut the attempt itself.
	waitFailures(t, g, "a", "p", 1)
	cancel()
	<-done
	d := g.recs.wait(t, 1)
	if d.Outcome != "canceled" || d.Status != 499 {
		t.Errorf("outcome %s status %d, want canceled 499", d.Outcome, d.Status)
	}
	wantSteps(t, d, "a/p server_error stop")
	if fs["p"].Calls() != 1 {
		t.Errorf("upstream called %d times", fs["p"].Calls())
	}
}

// An upstream that answers a stream request with a whole JSON completion has
// run (and billed) it: the client gets that answer as a stream, and no second
// vendor is paid.
func TestJSONAnswerToAStreamRequestIsStreamed(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(ok("model-a", "whole answer")), "q": script(okStream("model-b", "b"))})
	g := start(t, twoTargets, fs)
	r := g.post(t, "r", stream)
	r.wantStatus(t, 200)
	content, done, errEv := r.streamed(t)
	if content != "whole answer" || !done || errEv {
		t.Errorf("client stream: content %q done %v error %v\n%s", content, done, errEv, r.Body)
	}
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "a/p ok done")
	if !d.Attempts[0].Billable || fs["q"].Calls() != 0 {
		t.Errorf("billable %v, second vendor called %d times", d.Attempts[0].Billable, fs["q"].Calls())
	}
}

// A probe that ends in the request's own fault (a bad request) learned
// nothing about the endpoint: the next request probes it at once instead of
// passing it over for the rest of the probe lease.
func TestInconclusiveProbeFreesTheSlot(t *testing.T) {
	t.Parallel() // seconds of waiting (or CPU) each: overlap them
	down := corpus(t, "openai-server-error-500")
	bad := corpus(t, "deepseek-invalid-max-tokens-range-400")
	fs := fakes(t, map[string]upstreamtest.Script{"p1": script(down, bad, ok("model-a", "back")), "p2": script(ok("model-a", "p2"))})
	g := start(t, probeCfg, fs)
	g.post(t, "r", "").wantStatus(t, 200) // p1 fails and cools (failure_threshold 1: no retry); p2 answers
	waitState(t, g, "a", "p1", "probing") // the cooldown passes
	g.post(t, "r", "").wantStatus(t, 400)
	d := g.recs.wait(t, 2)
	wantSteps(t, d, "a/p1 bad_request stop")
	if !d.Attempts[0].Probe {
		t.Fatalf("the attempt after the cooldown is not a probe: %+v", d.Attempts[0])
	}
	g.post(t, "r", "").wantStatus(t, 200)
	d = g.recs.wait(t, 3)
	wantSteps(t, d, "a/p1 ok done")
	if !d.Attempts[0].Probe {
		t.Errorf("the next request did not probe the endpoint: %+v", d.Attempts[0])
	}
}

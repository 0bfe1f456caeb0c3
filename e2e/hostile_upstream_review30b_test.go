package e2e

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 30b (a hostile or broken upstream).

// docs/behaviour.md, "Streams", Cut detection: "An answer is finished when
// the upstream says so in its dialect (a finish reason for every choice it
// opened …)". An OpenAI stream whose choice 0 finishes before its choice 1
// opens, and which is then cut inside choice 1 (no finish_reason for it, no
// [DONE]), has not finished every choice it opened: the client must get the
// error event, never [DONE].
func TestStreamCutInsideALaterChoiceIsCut(t *testing.T) {
	const head = `{"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[`
	evs := []string{
		head + `{"index":0,"delta":{"role":"assistant","content":"A"},"finish_reason":null}]}`,
		head + `{"index":0,"delta":{},"finish_reason":"stop"}]}`,
		head + `{"index":1,"delta":{"role":"assistant","content":"B half"},"finish_reason":null}]}`,
		// cut here: no finish_reason for choice 1, no [DONE]
	}
	fs := dialectFakes(t, upstreamtest.Step{Events: evs}, okStream("x", "unused"), okStream("x", "unused"))
	g := start(t, dialectStreams, fs)
	r := g.post(t, "via-gpt", `,"n":2`+stream)
	r.wantStatus(t, 200)
	_, done, errEv := r.streamed(t)
	d := g.recs.wait(t, 1)
	if done || !errEv {
		t.Errorf("a stream cut inside choice 1 looks complete to the client: done %v error event %v\n%s", done, errEv, r.Body)
	}
	if d.Outcome != "error" || len(d.Attempts) != 1 || d.Attempts[0].Evidence != "stream:eof-no-finish" {
		t.Errorf("record: outcome %q class %q attempts %+v", d.Outcome, d.Class, d.Attempts)
	}
}

// An upstream that answers "101 Switching Protocols" with Connection:
// Upgrade (which no one asked of it) and then holds the connection open:
// net/http hands the raw connection over as the response body, and no
// context cancels a read from it any more. The provider's timeout (1s here),
// the route's deadline (3s here) and the client leaving must all still end
// the attempt; instead the request hangs for as long as the upstream keeps
// the connection open.
func TestSwitchingProtocolsCannotHoldTheRequest(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	addr := rawTCP(t, func(c net.Conn) {
		defer c.Close()
		req, err := http.ReadRequest(bufio.NewReader(c))
		if err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, req.Body)
		io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n")
		<-release // hold the connection until the test ends
	})
	fs := map[string]*upstreamtest.Server{"p": {Server: &httptest.Server{URL: "http://" + addr}}}
	for n, s := range fakes(t, map[string]upstreamtest.Script{"q": script(ok("model-b", "from b"))}) {
		fs[n] = s
	}
	cfg := strings.Replace(twoTargets, `base_url: "{p}", api_key: `+secret+`}`, `base_url: "{p}", api_key: `+secret+`, timeout: 1s}`, 1) +
		"  - {name: alone, targets: [a], deadline: 3s}\n"
	g := start(t, cfg, fs)

	done := make(chan reply, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, g.URL+"/v1/chat/completions",
			strings.NewReader(`{"model":"alone","messages":[{"role":"user","content":"hi"}]}`))
		req.Header.Set("Content-Type", "application/json")
		resp, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
		if err != nil {
			done <- reply{Status: -1, Body: []byte(err.Error())}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		done <- reply{Status: resp.StatusCode, Body: b}
	}()
	select {
	case r := <-done:
		if r.Status < 500 {
			t.Errorf("status %d: %s", r.Status, r.Body)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("no answer 10s after the request: the 101 upstream holds it past its 1s timeout and the route's 3s deadline")
	}
}

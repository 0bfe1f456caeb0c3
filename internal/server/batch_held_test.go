package server_test

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// "Streams leave in batches, never late" (docs/design.md): in each case the
// upstream (or the next one, for a continuation) waits until the client
// has the marked event; a batch held in the front's buffer while Detour
// waits makes the upstream give up after holdFor and the test fail.

const holdFor = 3 * time.Second

// seenGate is closed when the client read the marker.
type seenGate struct {
	once sync.Once
	ch   chan struct{}
}

func newSeenGate() *seenGate { return &seenGate{ch: make(chan struct{})} }
func (g *seenGate) done()    { g.once.Do(func() { close(g.ch) }) }

// wait reports whether the client saw the marker within holdFor.
func (g *seenGate) wait(r *http.Request) bool {
	select {
	case <-g.ch:
		return true
	case <-time.After(holdFor):
		return false
	case <-r.Context().Done():
		return false
	}
}

func sseWrite(w http.ResponseWriter, s string) {
	io.WriteString(w, s)
	w.(http.Flusher).Flush()
}

func chatEvents(evs []string) string {
	var b strings.Builder
	for _, e := range evs {
		b.WriteString("data: " + e + "\n\n")
	}
	return b.String()
}

// runHeld serves yaml ({a} and {b}: the two upstreams' URLs), posts body
// to path and reads the stream, closing the gate at the first line with
// marker; it returns the lines read.
func runHeld(t *testing.T, yaml string, ha, hb http.HandlerFunc, path, body, marker string, g *seenGate) []string {
	t.Helper()
	ua := httptest.NewServer(ha)
	t.Cleanup(ua.Close)
	ub := httptest.NewServer(hb)
	t.Cleanup(ub.Close)
	yaml = strings.NewReplacer("{a}", ua.URL, "{b}", ub.URL).Replace(yaml)
	gw, _ := gatewaytest.Start(t, gatewaytest.Config(t, yaml), app.Options{Decisions: decision.Discard})
	req, _ := http.NewRequest("POST", gw+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("anthropic-version", "2023-06-01")
	c := &http.Client{Timeout: 20 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("status %d: %s", resp.StatusCode, b)
	}
	var lines []string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		l := sc.Text()
		if l == "" {
			continue
		}
		lines = append(lines, l)
		if strings.Contains(l, marker) {
			g.done()
		}
	}
	return lines
}

const twoOpenAI = `
providers:
  - {name: pa, dialect: openai, base_url: "{a}", api_key: sk-a}
  - {name: pb, dialect: openai, base_url: "{b}", api_key: sk-b}
targets:
  - {name: ta, model: ma, providers: [pa]}
  - {name: tb, model: mb, providers: [pb]}
routes:
  - {name: r, targets: [ta, tb], on_stream_cut: continue}
`

const chatReq = `{"model":"r","stream":true,"messages":[{"role":"user","content":"hi"}]}`

// A stream cut after content on a continuing route: the content the client
// was sent reaches it before the continuation's upstream answers.
func TestBatchContinuationAfterCutNotHeld(t *testing.T) {
	g := newSeenGate()
	var late bool
	evs := upstreamtest.ChatStream("ma", "first ")
	ha := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		sseWrite(w, chatEvents(evs[:2]))
		conn, _, _ := http.NewResponseController(w).Hijack()
		conn.Close()
	}
	hb := func(w http.ResponseWriter, r *http.Request) {
		late = !g.wait(r)
		w.Header().Set("Content-Type", "text/event-stream")
		sseWrite(w, chatEvents(upstreamtest.ChatStream("mb", "first ", "second ")))
	}
	lines := runHeld(t, twoOpenAI, ha, hb, "/v1/chat/completions", chatReq, `"first "`, g)
	if late {
		t.Errorf("the client did not have the first content while the continuation's upstream waited: %q", lines)
	}
}

// The same when the cut is an error event read from the same burst as the
// content (no upstream read after the content: the deferred flush sends it).
func TestBatchContinuationAfterErrorEventNotHeld(t *testing.T) {
	g := newSeenGate()
	var late bool
	evs := upstreamtest.ChatStream("ma", "first ")
	ha := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		sseWrite(w, chatEvents(evs[:2])+`data: {"error":{"message":"The server had an error","type":"server_error"}}`+"\n\n")
		<-r.Context().Done()
	}
	hb := func(w http.ResponseWriter, r *http.Request) {
		late = !g.wait(r)
		w.Header().Set("Content-Type", "text/event-stream")
		sseWrite(w, chatEvents(upstreamtest.ChatStream("mb", "first ", "second ")))
	}
	lines := runHeld(t, twoOpenAI, ha, hb, "/v1/chat/completions", chatReq, `"first "`, g)
	if late {
		t.Errorf("the client did not have the first content while the continuation's upstream waited: %q", lines)
	}
}

// Comments (keep-alive pings) from a quiet upstream carry no chunk: the
// content before them is not held behind them.
func TestBatchCommentsDoNotHoldContent(t *testing.T) {
	g := newSeenGate()
	var late bool
	evs := upstreamtest.ChatStream("ma", "first ", "second ")
	ha := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		sseWrite(w, chatEvents(evs[:2]))
		deadline := time.Now().Add(holdFor)
		for {
			select {
			case <-g.ch:
				sseWrite(w, chatEvents(evs[2:]))
				return
			case <-time.After(20 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				late = true
				sseWrite(w, chatEvents(evs[2:]))
				return
			}
			sseWrite(w, ": ping\n\n")
		}
	}
	lines := runHeld(t, twoOpenAI, ha, ha, "/v1/chat/completions", chatReq, `"first "`, g)
	if late {
		t.Errorf("the client did not have the first content while the upstream sent pings: %q", lines)
	}
}

// Native passthrough (an Anthropic target behind /v1/messages).
func TestBatchMessagesPassthroughNotHeld(t *testing.T) {
	g := newSeenGate()
	var late bool
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	ha := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		sseWrite(w, ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"usage":{"input_tokens":3,"output_tokens":0}}}`)+
			ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)+
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"first "}}`)+
			ev("ping", `{"type":"ping"}`))
		late = !g.wait(r)
		sseWrite(w, ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"second"}}`)+
			ev("content_block_stop", `{"type":"content_block_stop","index":0}`)+
			ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2}}`)+
			ev("message_stop", `{"type":"message_stop"}`))
	}
	yaml := `
providers:
  - {name: pa, dialect: anthropic, base_url: "{a}", api_key: sk-a}
  - {name: pb, dialect: openai, base_url: "{b}", api_key: sk-b}
targets:
  - {name: ta, model: claude-x, providers: [pa]}
routes:
  - {name: r, targets: [ta]}
`
	lines := runHeld(t, yaml, ha, ha, "/v1/messages", `{"model":"r","max_tokens":50,"stream":true,"messages":[{"role":"user","content":"hi"}]}`, `"first "`, g)
	if late {
		t.Errorf("the client did not have the first content while the upstream waited: %q", lines)
	}
}

// Native passthrough (a responses: true target behind /v1/responses).
func TestBatchResponsesPassthroughNotHeld(t *testing.T) {
	g := newSeenGate()
	var late bool
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	ha := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		sseWrite(w, ev("response.created", `{"type":"response.created","sequence_number":0,"response":{"id":"resp_up","object":"response","created_at":1767225600,"status":"in_progress","model":"m","output":[]}}`)+
			ev("response.output_item.added", `{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"msg_up","type":"message","status":"in_progress","role":"assistant","content":[]}}`)+
			ev("response.output_text.delta", `{"type":"response.output_text.delta","sequence_number":2,"item_id":"msg_up","output_index":0,"content_index":0,"delta":"first ","logprobs":[]}`))
		late = !g.wait(r)
		sseWrite(w, ev("response.output_text.delta", `{"type":"response.output_text.delta","sequence_number":3,"item_id":"msg_up","output_index":0,"content_index":0,"delta":"second","logprobs":[]}`)+
			ev("response.completed", `{"type":"response.completed","sequence_number":4,"response":{"id":"resp_up","object":"response","created_at":1767225600,"status":"completed","model":"m","output":[],"usage":{"input_tokens":5,"output_tokens":2,"total_tokens":7}}}`))
	}
	yaml := `
providers:
  - {name: pa, dialect: openai, base_url: "{a}", api_key: sk-a, responses: true}
  - {name: pb, dialect: openai, base_url: "{b}", api_key: sk-b}
targets:
  - {name: ta, model: m, providers: [pa]}
routes:
  - {name: r, targets: [ta]}
`
	lines := runHeld(t, yaml, ha, ha, "/v1/responses", `{"model":"r","stream":true,"input":"hi"}`, `"first "`, g)
	if late {
		t.Errorf("the client did not have the first content while the upstream waited: %q", lines)
	}
}

// A client that stops reading for longer than the upstream's idle_timeout
// (but less than the write timeout) while a large answer streams: the
// idle clock is paused while Detour writes and flushes to it, so the
// stream completes instead of ending as timeout:idle.
func TestBatchSlowClientDoesNotFireIdle(t *testing.T) {
	part := strings.Repeat("y", 300)
	parts := make([]string, 20000) // ~8 MB: more than the loopback socket buffers
	for i := range parts {
		parts[i] = part
	}
	evs := upstreamtest.ChatStream("ma", parts...)
	ha := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i, e := range evs {
			io.WriteString(w, "data: "+e+"\n\n")
			if i%50 == 0 {
				w.(http.Flusher).Flush()
			}
		}
	}
	yaml := `
providers:
  - {name: pa, dialect: openai, base_url: "{a}", api_key: sk-a, idle_timeout: 500ms}
targets:
  - {name: ta, model: ma, providers: [pa]}
routes:
  - {name: r, targets: [ta]}
`
	ua := httptest.NewServer(http.HandlerFunc(ha))
	t.Cleanup(ua.Close)
	gw, _ := gatewaytest.Start(t, gatewaytest.Config(t, strings.ReplaceAll(yaml, "{a}", ua.URL)), app.Options{Decisions: decision.Discard})
	resp, err := http.Post(gw+"/v1/chat/completions", "application/json", strings.NewReader(chatReq))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	// The client stalls three times the idle timeout (which leaves the
	// in-process upstream room for a pause of its own under -race on a
	// busy machine: at 200ms it ran out once, mid-suite).
	time.Sleep(1500 * time.Millisecond)
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), part); n != len(parts) || !strings.HasSuffix(string(b), "data: [DONE]\n\n") {
		tail := string(b)
		if len(tail) > 400 {
			tail = tail[len(tail)-400:]
		}
		t.Errorf("the client got %d of %d parts; tail: %s", n, len(parts), tail)
	}
}

package e2e

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Round 51, hostile51b: a broken or hostile upstream against the doors.

const h51bResponsesCfg = `
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
routes:
  - {name: agent, targets: [claude]}
`

// h51bEv is one Anthropic stream event as the Messages API streams it
// (https://docs.anthropic.com/en/docs/build-with-claude/streaming):
// "event: <type>" then "data: <json>".
func h51bEv(typ string, v map[string]any) string {
	v["type"] = typ
	b, _ := json.Marshal(v)
	return "event: " + typ + "\ndata: " + string(b)
}

// h51bPeakHeap samples the process's heap in use every 5 ms until stop is
// closed, and returns the largest value seen.
func h51bPeakHeap(stop chan struct{}) chan uint64 {
	out := make(chan uint64, 1)
	go func() {
		var peak uint64
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			peak = max(peak, m.HeapInuse)
			select {
			case <-stop:
				out <- peak
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	return out
}

// docs/security.md, "Hostile or broken upstreams": a Responses API stream on
// a translated target "keeps at most 64 MiB of [the answer], as for a whole
// answer: past that the attempt fails (server_error, evidence answer:too
// large, billable) and the client gets response.failed". The door's bound
// (internal/door/responses Stream.held, MaxHeld) counts the text, refusal
// and arguments it keeps, but not the function names and call ids it keeps
// for every function_call item (s.resp.Output, repeated in
// response.output_item.done and response.completed). An Anthropic upstream
// whose stream opens 96 tool_use blocks (fewer than the 1,024 the door
// allows), each named by a 1 MiB string (one event each, well inside the
// 16 MiB event bound), makes the door keep 96 MiB and send it again whole in
// response.completed; with 1,024 blocks of 15 MiB names it is 15 GiB.
func TestH51bResponsesDoorHoldsToolNamesPastTheBound(t *testing.T) {
	const calls, nameLen = 24, 1 << 20 // past the door's 16 MiB bound
	name := strings.Repeat("n", nameLen)
	evs := []string{h51bEv("message_start", map[string]any{"message": map[string]any{"id": "msg_h51b", "type": "message",
		"role": "assistant", "model": "claude-sonnet-4-5", "content": []any{}, "stop_reason": nil,
		"usage": map[string]any{"input_tokens": 11, "output_tokens": 1}}})}
	for i := 0; i < calls; i++ {
		evs = append(evs,
			h51bEv("content_block_start", map[string]any{"index": i, "content_block": map[string]any{
				"type": "tool_use", "id": fmt.Sprintf("toolu_%02d", i), "name": name, "input": map[string]any{}}}),
			h51bEv("content_block_delta", map[string]any{"index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": "{}"}}),
			h51bEv("content_block_stop", map[string]any{"index": i}))
	}
	evs = append(evs,
		h51bEv("message_delta", map[string]any{"delta": map[string]any{"stop_reason": "tool_use", "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 30}}),
		h51bEv("message_stop", map[string]any{}))
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(upstreamtest.Step{Events: evs})})
	g := start(t, h51bResponsesCfg, fs)

	runtime.GC()
	stop := make(chan struct{})
	peak := h51bPeakHeap(stop)
	req, _ := http.NewRequest(http.MethodPost, g.URL+"/v1/responses",
		strings.NewReader(`{"model":"agent","input":"call the tools","stream":true}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	// Read the stream as a client does; note the terminal event and its size.
	rd := bufio.NewReaderSize(resp.Body, 1<<16)
	var last string
	var lastLen, total int
	for {
		line, err := rd.ReadBytes('\n')
		total += len(line)
		if bytes.HasPrefix(line, []byte("event: ")) {
			last = strings.TrimSpace(string(line[len("event: "):]))
		}
		if bytes.HasPrefix(line, []byte("data: ")) {
			lastLen = len(line)
		}
		if err != nil {
			if err != io.EOF {
				t.Logf("read: %v", err)
			}
			break
		}
	}
	close(stop)
	p := <-peak
	t.Logf("status %d, last event %q (%d bytes), %d bytes in all, peak heap %d MiB", resp.StatusCode, last, lastLen, total, p>>20)
	if last == "response.completed" && lastLen > 64<<20 {
		t.Errorf("the door kept %d MiB of tool names (past its 64 MiB bound) and sent them again in one %d MiB response.completed event; want response.failed once the answer held passes 64 MiB", calls*nameLen>>20, lastLen>>20)
	}
	if p > 400<<20 {
		t.Errorf("peak heap %d MiB for one request whose upstream sent %d MiB", p>>20, calls*nameLen>>20)
	}
}

const h51bGeminiCfg = `
providers:
  - {name: gemini, dialect: gemini, base_url: "{gemini}", api_key: ` + secret + `}
targets:
  - {name: gem, model: gemini-2.5-flash, providers: [gemini]}
routes:
  - {name: gemr, targets: [gem]}
`

// h51bGeminiCalls is a whole generateContent answer
// (https://ai.google.dev/api/generate-content#v1beta.GenerateContentResponse)
// whose one candidate holds n functionCall parts of one-letter names and
// empty args.
func h51bGeminiCalls(n int) string {
	var b strings.Builder
	b.WriteString(`{"candidates":[{"content":{"role":"model","parts":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"functionCall":{"name":"a","args":{}}}`)
	}
	b.WriteString(`]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":7,"totalTokenCount":12},"modelVersion":"gemini-2.5-flash"}`)
	return b.String()
}

// Detour asks every upstream for gzip (net/http's Transport adds
// "Accept-Encoding: gzip" to a request that sets none, and inflates the
// answer itself: internal/dispatch newClient leaves DisableCompression
// false), and its 64 MiB bound on a whole answer counts inflated bytes. So
// an upstream pays only the compressed bytes: the 16 MiB Gemini answer of
// tiny functionCall parts above is about 40 KB gzipped, and still takes
// the gateway's heap up by hundreds of MiB (a 64 MiB one, about 150 KB on
// the wire, by more than a GiB).
func TestH51bGzipAnswerOfTinyPartsAmplifiesMemory(t *testing.T) {
	plain := h51bGeminiCalls(43_000)
	var gz bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&gz, gzip.BestCompression)
	zw.Write([]byte(plain))
	zw.Close()
	var asked atomic.Value
	asked.Store("")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		asked.Store(r.Header.Get("Accept-Encoding"))
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			w.Header().Set("Content-Encoding", "gzip")
			w.Write(gz.Bytes())
			return
		}
		io.WriteString(w, plain)
	}))
	t.Cleanup(srv.Close)
	g := start(t, h51bGeminiCfg, map[string]*upstreamtest.Server{"gemini": {Server: srv}})
	runtime.GC()
	var m0 runtime.MemStats
	runtime.ReadMemStats(&m0)
	stop := make(chan struct{})
	peak := h51bPeakHeap(stop)
	r := g.raw(t, http.MethodPost, "/v1/messages",
		`{"model":"gemr","max_tokens":1024,"messages":[{"role":"user","content":"call a"}],"tools":[{"name":"a","input_schema":{"type":"object"}}]}`)
	close(stop)
	p := <-peak
	grow := int64(p) - int64(m0.HeapInuse) - int64(len(r.Body))
	t.Logf("Accept-Encoding sent upstream %q; upstream sent %d KB gzip (%d MiB inflated); status %d; heap growth beyond the client's copy %d MiB",
		asked.Load(), gz.Len()>>10, len(plain)>>20, r.Status, grow>>20)
	if strings.Contains(asked.Load().(string), "gzip") {
		t.Errorf("the gateway asked the upstream for gzip (Accept-Encoding %q): its 64 MiB bound counts inflated bytes", asked.Load())
	}
	if strings.Contains(asked.Load().(string), "gzip") && grow > 1000*int64(gz.Len()) {
		t.Errorf("%d KB from the upstream took the gateway's heap up by %d MiB (%.0f× the bytes on the wire)", gz.Len()>>10, grow>>20, float64(grow)/float64(gz.Len()))
	}
}

// An upstream whose usage holds one count the parser refuses (a float:
// easyllm's OpenAI-compatible server sent "completion_tokens" 37.25,
// https://github.com/philschmid/easyllm/pull/42) loses the whole usage
// object (provider.ParseUsage fails, dispatch.parseUsage returns nil), so
// the attempt's cost is unknown and a budgeted key is charged the Estimate
// (dispatch.account) — whose output is o.delivered, the *stream* events
// relayed: 0 for a whole answer. The key is charged its prompt only for a
// 40,000-character answer it received whole: a $0.01/day key is served
// again after $0.15 of output. docs/config.md ("A billable attempt whose
// upstream never reported its usage … counts its input") was written for
// streams left or cut; a whole answer's output is all there to estimate.
func TestH51bWholeAnswerWithAFloatCountSpendsNoOutput(t *testing.T) {
	h51bUnreadUsage(t, "", `,"usage":{"prompt_tokens":9,"completion_tokens":10000.25,"total_tokens":10009.25}`)
}

// The same whole answer without any usage, to a client that asked for a
// stream (the gateway sends it the whole answer as one): its output counts
// as it does for a whole answer sent whole.
func TestH51bWholeAnswerToAStreamWithoutUsageSpendsItsOutput(t *testing.T) {
	h51bUnreadUsage(t, `,"stream":true`, "")
}

// h51bUnreadUsage sends a $0.01-a-day key's request (extra added to its
// body) to an upstream whose whole answer of ~10,000 tokens carries usage
// (a member of the answer, or none) the gateway cannot read, and wants the
// key's next request refused.
func h51bUnreadUsage(t *testing.T, extra, usage string) {
	t.Helper()
	text := strings.Repeat("word ", 8000) // 40,000 characters, ~10,000 tokens
	b, _ := json.Marshal(map[string]any{"id": "chatcmpl-h51b", "object": "chat.completion", "created": 1764489600, "model": "gpt-4o",
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": text}, "finish_reason": "stop"}}})
	answer := strings.TrimSuffix(string(b), "}") + usage + "}"
	fs := fakes(t, map[string]upstreamtest.Script{"openai": script(upstreamtest.Step{Body: answer})})
	g := start(t, teamBBudgetCfg, fs)
	r := g.post(t, "deep", extra, "Authorization", "Bearer key-team-b")
	r.wantStatus(t, 200)
	d := g.recs.wait(t, 1)
	a := d.Attempts[0]
	t.Logf("attempt: billable %v usage %+v cost %v unknown %v estimate %+v", a.Billable, a.Usage, a.CostUSD, a.CostUnknown, a.Estimate)
	r = g.post(t, "deep", extra, "Authorization", "Bearer key-team-b")
	if r.Status != 429 {
		t.Errorf("after a whole answer of ~10,000 output tokens ($0.15) on a $0.01 day budget: status %d, want 429 (the spend counted only the prompt's estimate: %+v)", r.Status, a.Estimate)
	}
}

// The stream path of the same: one Gemini SSE event (11.5 MiB, inside the
// 16 MiB event bound: docs/security.md) whose candidate holds 300,000
// functionCall parts. The Gemini stream adapter numbers a candidate's calls
// without bound (gemini stream.go cst.calls; only candidates are held to
// provider.MaxParts), builds one chat chunk per call for that one event,
// and the Chat door relays them all: the client is sent 300,000 tool calls
// (docs/security.md: "keeps at most 1,024 of each kind … a tool call past
// the bound dropped"), and the gateway's heap is measured for that one
// event.
func TestH51bGeminiStreamEventOfTinyCallsAmplifiesMemory(t *testing.T) {
	ev := h51bGeminiCalls(300_000) // 11.5 MiB
	fs := fakes(t, map[string]upstreamtest.Script{"gemini": script(upstreamtest.Step{Events: []string{ev}})})
	g := start(t, h51bGeminiCfg, fs)
	runtime.GC()
	var m0 runtime.MemStats
	runtime.ReadMemStats(&m0)
	stop := make(chan struct{})
	peak := h51bPeakHeap(stop)
	r := g.post(t, "gemr", `,"stream":true,"tools":[{"type":"function","function":{"name":"a","parameters":{"type":"object"}}}]`)
	close(stop)
	p := <-peak
	calls := bytes.Count(r.Body, []byte(`"type":"function"`))
	grow := int64(p) - int64(m0.HeapInuse) - int64(len(r.Body))
	t.Logf("status %d; client got %d MiB with %d tool calls; heap growth beyond the client's copy %d MiB for one %d MiB event",
		r.Status, len(r.Body)>>20, calls, grow>>20, len(ev)>>20)
	if r.Status != 200 {
		t.Logf("body: %.400s", r.Body)
	}
	if calls > 1024 {
		t.Errorf("the client was sent %d tool calls from one Gemini stream (bound: 1,024)", calls)
	}
	if grow > 16*int64(len(ev)) {
		t.Errorf("one %d MiB event took the heap up by %d MiB", len(ev)>>20, grow>>20)
	}
}

// The Messages and Responses doors translate an upstream's usage into the
// client's (Anthropic's usage object; the Responses API's). The Messages
// door's anthropicUsage bounds input_tokens ("an upstream's counts past
// reason never wrap it") but writes output_tokens and
// cache_read_input_tokens as the upstream wrote them; the Responses door's
// responsesUsage writes input_tokens, output_tokens, total_tokens and
// cached_tokens as they came. An OpenAI-compatible upstream that reports
// negative counts (Detour's own record clamps them: dispatch.count) makes
// the door tell a Claude Code / Codex client a negative usage, which
// those clients add into the session's cost. A token count is never
// negative, and the door already bounds input_tokens for that reason;
// the same upstream's usage in Detour's own record is clamped to 0.
func TestH51bDoorsPassNegativeUsageToTheClient(t *testing.T) {
	body := `{"id":"chatcmpl-h51b","object":"chat.completion","created":1764489600,"model":"gpt-4o",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],` +
		`"usage":{"prompt_tokens":20,"completion_tokens":-5000,"total_tokens":-4980,"prompt_tokens_details":{"cached_tokens":-7000}}}`
	cfg := `
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai]}
routes:
  - {name: deep, targets: [gpt]}
`
	fs := fakes(t, map[string]upstreamtest.Script{"openai": script(upstreamtest.Step{Body: body})})
	g := start(t, cfg, fs)
	for _, tc := range []struct{ path, body string }{
		{"/v1/messages", `{"model":"deep","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`},
		{"/v1/responses", `{"model":"deep","input":"hi"}`},
	} {
		r := g.raw(t, http.MethodPost, tc.path, tc.body)
		var got struct {
			Usage map[string]any `json:"usage"`
		}
		json.Unmarshal(r.Body, &got)
		var neg []string
		var walk func(prefix string, m map[string]any)
		walk = func(prefix string, m map[string]any) {
			for k, v := range m {
				switch v := v.(type) {
				case float64:
					if v < 0 {
						neg = append(neg, fmt.Sprintf("%s%s=%v", prefix, k, v))
					}
				case map[string]any:
					walk(prefix+k+".", v)
				}
			}
		}
		walk("", got.Usage)
		if r.Status != 200 || len(neg) > 0 {
			t.Errorf("%s: status %d, negative usage told to the client: %v\n%s", tc.path, r.Status, neg, r.Body)
		}
	}
}

// The Responses door's bound is on the answer it keeps (MaxHeld, 16 MiB
// since this review; it was 64 MiB),
// but at the end it writes that answer again in response.output_text.done,
// response.content_part.done, response.output_item.done and
// response.completed, each built whole in memory. An Anthropic stream of
// 15 MiB of text (15 text_delta events of 1 MiB, under the bound: served)
// is measured: the heap growth for one such stream, against what
// docs/security.md says the door keeps. (At 48 MiB, under the old bound, it
// took the heap up by 900 MiB.)
func TestH51bResponsesDoorHeapForAnAnswerUnderTheBound(t *testing.T) {
	const parts = 15 // MiB, under the door's 16 MiB bound
	chunk := strings.Repeat("x", 1<<20)
	ps := make([]string, parts)
	for i := range ps {
		ps[i] = chunk
	}
	evs := anthropicEvents("claude-sonnet-4-5", ps...)
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(upstreamtest.Step{Events: evs})})
	g := start(t, h51bResponsesCfg, fs)
	runtime.GC()
	var m0 runtime.MemStats
	runtime.ReadMemStats(&m0)
	stop := make(chan struct{})
	peak := h51bPeakHeap(stop)
	req, _ := http.NewRequest(http.MethodPost, g.URL+"/v1/responses",
		strings.NewReader(`{"model":"agent","input":"write","stream":true}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	close(stop)
	p := <-peak
	grow := int64(p) - int64(m0.HeapInuse)

	// Control: the same answer through the Chat door.
	fs2 := fakes(t, map[string]upstreamtest.Script{"anthropic": script(upstreamtest.Step{Events: evs})})
	g2 := start(t, h51bResponsesCfg, fs2)
	runtime.GC()
	runtime.ReadMemStats(&m0)
	stop2 := make(chan struct{})
	peak2 := h51bPeakHeap(stop2)
	req2, _ := http.NewRequest(http.MethodPost, g2.URL+"/v1/chat/completions",
		strings.NewReader(`{"model":"agent","messages":[{"role":"user","content":"write"}],"stream":true}`))
	req2.Header.Set("Content-Type", "application/json")
	if resp2, err := http.DefaultClient.Do(req2); err == nil {
		n2, _ := io.Copy(io.Discard, resp2.Body)
		resp2.Body.Close()
		close(stop2)
		t.Logf("control, Chat door: status %d, %d MiB streamed, heap growth %d MiB", resp2.StatusCode, n2>>20, (int64(<-peak2)-int64(m0.HeapInuse))>>20)
	}
	t.Logf("status %d, %d MiB streamed to the client for a %d MiB answer; heap growth %d MiB (the fake's own events: %d MiB)",
		resp.StatusCode, n>>20, parts, grow>>20, parts)
	// Closing says the answer five times (the text's done event, the
	// part's, the item's, response.completed, and the client's copy of
	// them all), each encoded: some twelve to seventeen times its size
	// measured (more under -race), bounded by the 16 MiB the door keeps.
	if grow > 24*parts<<20 {
		t.Errorf("one Responses stream of a %d MiB answer took the heap up by %d MiB: the door keeps at most 16 MiB (docs/security.md)", parts, grow>>20)
	}
}

// An Anthropic stream names its model and message id once, in
// message_start; the adapter copies both into every chat.completion.chunk
// it makes (OpenAI's chunk format repeats them). An upstream whose
// message_start names a 900 KiB model (under the 1 MiB held back before
// the first content), followed by 200 one-letter text deltas (~130 bytes
// each), makes the Chat door write ~180 MiB to the client: 900 KiB of JSON
// escaping and writing for every 130 bytes the upstream sends, a ratio the
// upstream chooses. The adapter also takes a
// message_start at any point (anthropic stream.go sets s.model, s.id from
// each), so a second message_start after the first content, past the
// held-back cap, can name a 16 MiB model (the event bound): ~120,000x
// (TestH51bSecondMessageStartRenamesEveryLaterChunk).
func TestH51bAnthropicModelRepeatedInEveryChatChunk(t *testing.T) {
	const deltas = 200
	model := strings.Repeat("m", 900<<10) // under the 1 MiB held back before the first content
	ps := make([]string, deltas)
	for i := range ps {
		ps[i] = "a"
	}
	evs := anthropicEvents(model, ps...)
	up := 0
	for _, e := range evs {
		up += len(e) + 2
	}
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(upstreamtest.Step{Events: evs})})
	g := start(t, h51bResponsesCfg, fs)
	req, _ := http.NewRequest(http.MethodPost, g.URL+"/v1/chat/completions",
		strings.NewReader(`{"model":"agent","messages":[{"role":"user","content":"write"}],"stream":true}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	t.Logf("status %d: upstream sent %d KiB (%d text bytes), the client was sent %d MiB", resp.StatusCode, up>>10, deltas, n>>20)
	if n > 16*int64(up) {
		t.Errorf("the gateway wrote %d MiB for %d KiB from the upstream (%.0f×): a model name said once is repeated in each of %d chunks",
			n>>20, up>>10, float64(n)/float64(up), deltas)
	}
}

// The same past the held-back cap: a second message_start, after the
// first content, naming a 4 MiB model; then 20 one-letter deltas.
func TestH51bSecondMessageStartRenamesEveryLaterChunk(t *testing.T) {
	const deltas = 20
	ps := make([]string, 1+deltas)
	for i := range ps {
		ps[i] = "a"
	}
	evs := anthropicEvents("claude-sonnet-4-5", ps...)
	second := h51bEv("message_start", map[string]any{"message": map[string]any{"id": "msg_h51b_2", "type": "message", "role": "assistant",
		"model": strings.Repeat("m", 4<<20), "content": []any{}, "stop_reason": nil, "usage": map[string]any{"input_tokens": 11, "output_tokens": 1}}})
	// evs: message_start, content_block_start, ping, then the deltas: put the second message_start after the first delta.
	evs = append(evs[:4], append([]string{second}, evs[4:]...)...)
	up := 0
	for _, e := range evs {
		up += len(e) + 2
	}
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(upstreamtest.Step{Events: evs})})
	g := start(t, h51bResponsesCfg, fs)
	r := g.post(t, "agent", `,"stream":true`)
	t.Logf("status %d: upstream sent %d KiB, the client was sent %d MiB", r.Status, up>>10, len(r.Body)>>20)
	if len(r.Body) > 16*up {
		t.Errorf("the gateway wrote %d MiB for %d KiB from the upstream: a second message_start's 4 MiB model is repeated in each later chunk", len(r.Body)>>20, up>>10)
	}
}

// The same with a Gemini stream (streamGenerateContent?alt=sse, each event
// a GenerateContentResponse): the first event's modelVersion (900 KiB) is
// kept and written into every later chunk, whose events name none.
func TestH51bGeminiModelVersionRepeatedInEveryChatChunk(t *testing.T) {
	const deltas = 200
	evs := []string{`{"candidates":[{"content":{"role":"model","parts":[{"text":"a"}]},"index":0}],"modelVersion":"` + strings.Repeat("m", 900<<10) + `"}`}
	for i := 0; i < deltas; i++ {
		evs = append(evs, `{"candidates":[{"content":{"role":"model","parts":[{"text":"a"}]},"index":0}]}`)
	}
	evs = append(evs, `{"candidates":[{"content":{"role":"model","parts":[{"text":"."}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":202,"totalTokenCount":207}}`)
	up := 0
	for _, e := range evs {
		up += len(e) + 8
	}
	fs := fakes(t, map[string]upstreamtest.Script{"gemini": script(upstreamtest.Step{Events: evs})})
	g := start(t, h51bGeminiCfg, fs)
	r := g.post(t, "gemr", `,"stream":true`)
	t.Logf("status %d: upstream sent %d KiB, the client was sent %d MiB", r.Status, up>>10, len(r.Body)>>20)
	if len(r.Body) > 16*up {
		t.Errorf("the gateway wrote %d MiB for %d KiB from the upstream: the first event's modelVersion is repeated in each later chunk", len(r.Body)>>20, up>>10)
	}
}

// teamBBudgetCfg gives key-team-b $0.01 a day at route deep, an OpenAI
// target priced as gpt-4o.
const teamBBudgetCfg = `
client_keys:
  - {name: team-b, key: key-team-b, budget: {usd_per_day: 0.01}}
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai], price: {input: 2.50, output: 15.00}}
routes:
  - {name: deep, targets: [gpt]}
`

// The float count of the first test, to a client that asked for a stream:
// the gateway sends the whole answer as chunks (chat.WholeChunks), and
// read its usage apart from every other reader, keeping the counts it
// could decode (the prompt) and dropping the one it could not — so the
// ~10,000 output tokens were charged as 0. One reader now reads both.
func TestWholeAnswerToAStreamWithAFloatCountSpendsItsOutput(t *testing.T) {
	h51bUnreadUsage(t, `,"stream":true`, `,"usage":{"prompt_tokens":9,"completion_tokens":10000.25,"total_tokens":10009.25}`)
}

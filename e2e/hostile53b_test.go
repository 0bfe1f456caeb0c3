package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/clienttest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// hostile53b: round 53 sends a Responses client's reasoning items back as
// the assistant turn's reasoning_content to every OpenAI-compatible target.
// Mistral's API forbids members it does not know and refuses such a turn
// with a 422 extra_forbidden at ["body","messages",N,"assistant",
// "reasoning_content"] (charmbracelet/crush#1590, BerriAI/litellm#30835;
// Mistral's error envelope as partITech/php-mistral#76 shows it). The
// built-in rules read "Extra inputs are not permitted" as the client's
// mistake (docs/config.md, "A server whose copy of an API lags"): the
// route stops and Codex gets the 422 — for a member the client never sent,
// that Detour added. Before round 53 the reasoning was dropped and the
// fallback answered.
//
// The scene: Codex on a route of DeepSeek (thinking mode) with Mistral
// behind it. DeepSeek answers the first step with reasoning and a call;
// at the second step DeepSeek's connection drops (a passing failure), and
// the route moves on to Mistral.
const h53bCfg = `
providers:
  - {name: deepseek, dialect: openai, base_url: "{deepseek}", api_key: ` + secret + `}
  - {name: mistral, dialect: openai, base_url: "{mistral}", api_key: ` + secret + `}
targets:
  - {name: ds, model: deepseek-v4-flash, providers: [deepseek]}
  - {name: mi, model: mistral-large-latest, providers: [mistral]}
routes:
  - {name: dsr, targets: [ds, mi]}
`

func TestH53bReasoningSentBackDoesNotBreakAFallbackThatForbidsIt(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"deepseek": func(n int, r upstreamtest.Request) upstreamtest.Step {
			if n == 1 {
				return upstreamtest.Step{Events: c53DeepSeekToolStream()}
			}
			return upstreamtest.Step{Status: 200, Events: []string{}, Cut: true}
		},
		"mistral": func(n int, r upstreamtest.Request) upstreamtest.Step {
			var req struct {
				Messages []map[string]any `json:"messages"`
			}
			_ = json.Unmarshal(r.Body, &req)
			for i, m := range req.Messages {
				if v, ok := m["reasoning_content"]; ok {
					d, _ := json.Marshal([]map[string]any{{"type": "extra_forbidden", "loc": []any{"body", "messages", i, "assistant", "reasoning_content"}, "msg": "Extra inputs are not permitted", "input": v}})
					return upstreamtest.Step{Status: 422, Body: `{"object":"Error","detail":` + string(d) + `,"message":` + string(d) + `,"type":"invalid_request_error","code":3001}`}
				}
			}
			return okStream("mistral-large-latest", "agents ", "finished")
		},
	})
	g := start(t, h53bCfg, fs)
	res := clienttest.RunCodex(t, g.URL, "wait for the agents", clienttest.Options{Args: []string{"-m", "dsr"}})
	t.Logf("stdout: %s\nstderr: %.3000s", res.Stdout, res.Stderr)
	for _, r := range fs["mistral"].Requests() {
		t.Logf("to mistral: %.600s", r.Body)
	}
	if res.Err != nil || !strings.Contains(res.Stdout, "agents finished") {
		t.Errorf("codex's tool loop did not finish on the fallback (err %v); Mistral was sent reasoning_content it forbids and the route stopped at its 422", res.Err)
	}
}

// hostile53b: the Responses door's bound on what it keeps (MaxHeld, 16
// MiB) was sized for closing events that say the answer about four times
// (hostile review 51b: TestH51bResponsesDoorHeapForAnAnswerUnderTheBound
// allows the heap 24 times the answer). But the door writes its events with
// rawjson.AppendString, which escapes '<', '>' and '&' as six-byte \u003c
// (encode.go: "with its default HTML escaping"), where every body Detour
// builds for an upstream does not (rawjson.Marshal). An OpenAI-compatible
// upstream that streams 15 MiB of reasoning_content (round 53's reasoning
// item; the same holds for text) made of markup — a model thinking about
// HTML or generics, or a hostile upstream's '<' — makes the door build
// each closing event six times larger: measured in the package, 375 MiB
// written and 3.3 GiB allocated by End for 15.6 MiB held.
func TestH53bMarkupReasoningUnderTheBoundStaysInTheHeapBound(t *testing.T) {
	const parts = 8 // MiB, under the door's 16 MiB bound (before the fix: 700 MiB for 8)
	plain := h53bReasoningHeap(t, "x", parts)
	grow := h53bReasoningHeap(t, "<", parts)
	t.Logf("heap growth: %d MiB for plain reasoning (control), %d MiB for markup", plain>>20, grow>>20)
	if grow > 24*parts<<20 {
		t.Errorf("one Responses stream of %d MiB of markup reasoning took the heap up by %d MiB (plain: %d MiB): past the 24x that TestH51bResponsesDoorHeapForAnAnswerUnderTheBound allows for an answer under the 16 MiB the door keeps (docs/security.md)", parts, grow>>20, plain>>20)
	}
}

func h53bReasoningHeap(t *testing.T, ch string, parts int) int64 {
	piece := strings.Repeat(ch, 1<<20)
	const head = `{"id":"ds1","object":"chat.completion.chunk","created":1777000000,"model":"deepseek-v4-flash","choices":[{"index":0,"delta":`
	evs := []string{head + `{"role":"assistant","content":null,"reasoning_content":""},"logprobs":null,"finish_reason":null}]}`}
	for i := 0; i < parts; i++ {
		evs = append(evs, head+`{"reasoning_content":"`+piece+`"},"logprobs":null,"finish_reason":null}]}`)
	}
	evs = append(evs, head+`{"content":"done"},"logprobs":null,"finish_reason":null}]}`,
		head+`{},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":30,"total_tokens":39}}`, `[DONE]`)
	fs := fakes(t, map[string]upstreamtest.Script{"deepseek": script(upstreamtest.Step{Events: evs})})
	g := start(t, c53DeepSeekCfg, fs)
	runtime.GC()
	var m0 runtime.MemStats
	runtime.ReadMemStats(&m0)
	stop := make(chan struct{})
	peak := h51bPeakHeap(stop)
	req, _ := http.NewRequest(http.MethodPost, g.URL+"/v1/responses",
		strings.NewReader(`{"model":"dsr","input":"write","stream":true}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	close(stop)
	grow := int64(<-peak) - int64(m0.HeapInuse)
	t.Logf("%q: status %d, %d MiB streamed to the client for %d MiB of reasoning; heap growth %d MiB", ch, resp.StatusCode, n>>20, parts, grow>>20)
	return grow
}

// hostile53b: round 53's stream opens a new reasoning item whenever
// reasoning comes after text (stream_reasoning.go: "reasoning after them
// opens an item of its own"), and text after reasoning a new message. An
// upstream that alternates one-byte reasoning_content and content chunks
// makes two output items per pair, each kept (s.resp.Output, said again in
// response.completed) — but only the one byte of text each is counted
// against MaxHeld. Before round 53 alternating text and refusal stayed in
// one message, and calls stop at chat.MaxParts; items of reasoning and
// text have no bound at all, and a stream has no byte bound (maxAnswer is
// for whole answers). Measured in the package: 200,000 pairs (22 MiB of
// upstream SSE) held 400 KB by the count, 110 MiB live, 561 MiB streamed.
func TestH53bAlternatingReasoningAndTextItemsAreBounded(t *testing.T) {
	const pairs = 300000
	const head = `{"id":"ds1","object":"chat.completion.chunk","created":1777000000,"model":"deepseek-v4-flash","choices":[{"index":0,"delta":`
	evs := make([]string, 0, 2*pairs+3)
	evs = append(evs, head+`{"role":"assistant","content":null},"logprobs":null,"finish_reason":null}]}`)
	for i := 0; i < pairs; i++ {
		evs = append(evs, head+`{"reasoning_content":"r"},"logprobs":null,"finish_reason":null}]}`,
			head+`{"content":"t"},"logprobs":null,"finish_reason":null}]}`)
	}
	evs = append(evs, head+`{},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":30,"total_tokens":39}}`, `[DONE]`)
	fs := fakes(t, map[string]upstreamtest.Script{"deepseek": script(upstreamtest.Step{Events: evs})})
	g := start(t, c53DeepSeekCfg, fs)
	runtime.GC()
	var m0 runtime.MemStats
	runtime.ReadMemStats(&m0)
	stop := make(chan struct{})
	peak := h51bPeakHeap(stop)
	req, _ := http.NewRequest(http.MethodPost, g.URL+"/v1/responses",
		strings.NewReader(`{"model":"dsr","input":"write","stream":true}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var last string
	items := 0
	buf := make([]byte, 0, 1<<20)
	for {
		chunk := make([]byte, 1<<20)
		k, err := resp.Body.Read(chunk)
		buf = append(buf[:0], chunk[:k]...)
		items += strings.Count(string(buf), `"type":"response.output_item.done"`)
		if i := strings.LastIndex(string(buf), "event: "); i >= 0 {
			last = string(buf[i:min(len(buf), i+40)])
		}
		if err != nil {
			break
		}
	}
	resp.Body.Close()
	close(stop)
	grow := int64(<-peak) - int64(m0.HeapInuse)
	t.Logf("status %d, about %d output_item.done events, last event %q; heap growth %d MiB for %d bytes of text", resp.StatusCode, items, last, grow>>20, 2*pairs)
	// MaxHeld (16 MiB) bounds what the door keeps; TestH51bResponsesDoorHeapForAnAnswerUnderTheBound
	// allows 24 times an answer. 600 KB of text is 14 MiB by that measure;
	// 384 MiB is what the whole 16 MiB bound allows.
	if grow > 24*16<<20 {
		t.Errorf("a stream of %d one-byte reasoning/text alternations (%d bytes of text, under every bound) took the heap up by %d MiB: output items are not counted against MaxHeld and have no bound of their own", pairs, 2*pairs, grow>>20)
	}
}

// hostile53b: the other fallback. Round 53 hands a Responses client a
// reasoning item with a reasoning_text content part for DeepSeek's
// reasoning; Codex sends it back as it got it. On a route whose next
// target is OpenAI serving Responses natively (responses: true), the
// passthrough sends the client's input as written, and OpenAI's Responses
// API refuses a reasoning input item with content: "Invalid
// 'input[N].content': array too long. Expected an array with maximum length
// 0, but got an array with length 1 instead." (param input[N].content, code
// array_above_max_length; musistudio/claude-code-router#1783, where a
// translated reasoning_text item broke every Codex request the same way).
// Before round 53 the door made no such item and the fallback answered.
const h53bNativeCfg = `
providers:
  - {name: deepseek, dialect: openai, base_url: "{deepseek}", api_key: ` + secret + `}
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `, responses: true}
targets:
  - {name: ds, model: deepseek-v4-flash, providers: [deepseek]}
  - {name: gpt, model: gpt-5-mini, providers: [openai]}
routes:
  - {name: dsr, targets: [ds, gpt]}
`

func TestH53bReasoningItemsDoNotBreakANativeResponsesFallback(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"deepseek": func(n int, r upstreamtest.Request) upstreamtest.Step {
			if n == 1 {
				return upstreamtest.Step{Events: c53DeepSeekToolStream()}
			}
			return upstreamtest.Step{Status: 200, Events: []string{}, Cut: true}
		},
		"openai": func(n int, r upstreamtest.Request) upstreamtest.Step {
			var req struct {
				Input []struct {
					Type    string            `json:"type"`
					Content []json.RawMessage `json:"content"`
				} `json:"input"`
			}
			_ = json.Unmarshal(r.Body, &req)
			for i, it := range req.Input {
				if it.Type == "reasoning" && len(it.Content) > 0 {
					p := "input[" + itoa53b(i) + "].content"
					return upstreamtest.Step{Status: 400, Body: `{"error":{"message":"Invalid '` + p + `': array too long. Expected an array with maximum length 0, but got an array with length ` + itoa53b(len(it.Content)) + ` instead.","type":"invalid_request_error","param":"` + p + `","code":"array_above_max_length"}}`}
				}
			}
			return upstreamtest.Step{Events: nativeEvents()}
		},
	})
	g := start(t, h53bNativeCfg, fs)
	res := clienttest.RunCodex(t, g.URL, "wait for the agents", clienttest.Options{Args: []string{"-m", "dsr"}})
	t.Logf("stdout: %s\nstderr: %.3000s", res.Stdout, res.Stderr)
	if res.Err != nil || !strings.Contains(res.Stdout, "native stream") {
		t.Errorf("codex's tool loop did not finish on the native fallback (err %v): the reasoning item round 53 gave it, sent back as written, is refused by OpenAI's Responses API", res.Err)
	}
}

func itoa53b(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

package e2e

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Hostile 52 (client): the input estimate a left stream spends (review
// 37a, docs/config.md client_keys) counts any string of 1,024 or more
// base64 characters as one inline image, 1,600 tokens — the client's own
// message text included. A client that writes its prompt so (a base64
// payload it asks the model to decode; any long run of letters and digits
// without a blank) and leaves each stream at its first content spends
// 1,600 tokens for a prompt the upstream bills at tens of thousands. The
// control, the same number of bytes as ordinary words, is refused.
func TestH52LeftStreamWithBase64TextSpendsOneImage(t *testing.T) {
	const alnum = "QWERTYUIOPASDFGHJKLZXCVBNMqwertyuiopasdfghjklzxcvbnm0123456789"
	var b64 strings.Builder
	for i := 0; b64.Len() < 100_000; i++ {
		b64.WriteByte(alnum[(i*7919+i/13)%len(alnum)])
	}
	for _, tc := range []struct{ name, text string }{
		{"words", strings.Repeat("budget ", 100_000/7)},
		{"base64", b64.String()},
		// Any text at all, behind a data: URL's first 14 bytes: isDataURL
		// reads only the prefix, and the model reads the prose after it.
		{"prose behind a data: prefix", "data:a;base64," + strings.Repeat("budget ", 100_000/7)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs := upstreamtest.ChatStream("gpt-4o", "hel", "lo")
			stall := upstreamtest.Step{Events: evs[:2], Stall: true} // role and first content; no usage yet
			fs := fakes(t, map[string]upstreamtest.Script{"openai": script(stall, ok("gpt-4o", "y"))})
			cfg := strings.Replace(hugeUsageCfg, "budget: {usd_per_day: 1}, rate: {tokens_per_minute: 100000}", "rate: {tokens_per_minute: 10000}", 1)
			clk := testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
			g := startClock(t, cfg, fs, clk)
			body := `{"model":"deep","stream":true,"messages":[{"role":"user","content":"Decode this base64 and summarise it:"},{"role":"user","content":"` + tc.text + `"}]}`
			leaveStream(t, g, "/v1/chat/completions", body, `"hel"`)
			d := g.recs.wait(t, 1)
			t.Logf("estimate: %+v", d.Attempts[0].Estimate)
			r := g.post(t, "deep", "", "Authorization", "Bearer key-team-b")
			if r.Status != 429 {
				t.Errorf("after leaving a stream whose prompt is 100,000 bytes of %s (~25,000 tokens) on a 10,000 tokens_per_minute key: status %d, want 429", tc.name, r.Status)
			}
		})
	}
}

// Hostile 52 (upstream): a whole answer in the Anthropic or Responses
// dialect whose usage holds one count that is not a whole number (12.0;
// easyllm's OpenAI-compatible server sent 37.25,
// https://github.com/philschmid/easyllm/pull/42) fails the attempt as
// server_error "decode": the answer ran and was billed, the client does
// not get it, the walk asks the next target (billed again) and the
// endpoint's health counts a server error. Round 51 (hostile 51b) made the
// OpenAI dialect's whole answer read such a count leniently (the answer is
// served, its output estimated); the other dialects' readers decode usage
// into ints with encoding/json and refuse the whole answer.
func TestH52FloatCountFailsANativeOrTranslatedAnswer(t *testing.T) {
	const cfg = `
providers:
  - {name: anth, dialect: anthropic, base_url: "{anth}", api_key: ` + secret + `}
  - {name: spare, dialect: anthropic, base_url: "{spare}", api_key: ` + secret + `}
targets:
  - {name: claude, model: m, providers: [anth], price: {input: 3.00, output: 15.00}}
  - {name: backup, model: m, providers: [spare], price: {input: 3.00, output: 15.00}}
routes:
  - {name: deep, targets: [claude, backup]}
`
	float := upstreamtest.Step{Body: `{"id":"msg_1","type":"message","role":"assistant","model":"m",` +
		`"content":[{"type":"text","text":"the answer"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":3.0}}`}
	for _, door := range []struct{ name, path, body string }{
		{"messages", "/v1/messages", `{"model":"deep","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`},
		{"chat", "/v1/chat/completions", `{"model":"deep","messages":[{"role":"user","content":"hi"}]}`},
	} {
		t.Run(door.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"anth": script(float), "spare": script(anthropicOK)})
			g := start(t, cfg, fs)
			r := g.raw(t, http.MethodPost, door.path, door.body)
			d := g.recs.wait(t, 1)
			t.Logf("status %d, attempts %q, body %.200s", r.Status, steps(d), r.Body)
			if r.Status != 200 || !strings.Contains(string(r.Body), "the answer") {
				t.Errorf("status %d: the first answer (one float count in its usage) was not served: %.300s", r.Status, r.Body)
			}
			if n := fs["spare"].Calls(); n != 0 {
				t.Errorf("the backup target was called %d times: a billed answer was asked for again (attempts %q)", n, steps(d))
			}
		})
	}
}

// The same at a Responses passthrough target (responses: true, the OpenAI
// Responses API's usage read into ints by openai.NativeAnswer) and at a
// Gemini target (usageMetadata).
func TestH52FloatCountFailsAResponsesOrGeminiAnswer(t *testing.T) {
	for _, tc := range []struct{ name, dialect, extra, path, body, answer string }{
		{"responses passthrough", "openai", ", responses: true", "/v1/responses", `{"model":"deep","input":"hi"}`,
			`{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"m","output":[{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"the answer","annotations":[]}]}],"usage":{"input_tokens":12,"output_tokens":3.0,"total_tokens":15}}`},
		{"gemini", "gemini", "", "/v1/chat/completions", `{"model":"deep","messages":[{"role":"user","content":"hi"}]}`,
			`{"candidates":[{"content":{"parts":[{"text":"the answer"}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":12,"candidatesTokenCount":3.0,"totalTokenCount":15},"modelVersion":"m"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := `
providers:
  - {name: up, dialect: ` + tc.dialect + `, base_url: "{up}", api_key: ` + secret + tc.extra + `}
  - {name: spare, dialect: anthropic, base_url: "{spare}", api_key: ` + secret + `}
targets:
  - {name: first, model: m, providers: [up], price: {input: 3.00, output: 15.00}}
  - {name: backup, model: m, providers: [spare], price: {input: 3.00, output: 15.00}}
routes:
  - {name: deep, targets: [first, backup]}
`
			fs := fakes(t, map[string]upstreamtest.Script{"up": script(upstreamtest.Step{Body: tc.answer}), "spare": script(anthropicOK)})
			g := start(t, cfg, fs)
			r := g.raw(t, http.MethodPost, tc.path, tc.body)
			d := g.recs.wait(t, 1)
			t.Logf("status %d, attempts %q, body %.200s", r.Status, steps(d), r.Body)
			if r.Status != 200 || !strings.Contains(string(r.Body), "the answer") {
				t.Errorf("status %d: the first answer (one float count in its usage) was not served: %.300s", r.Status, r.Body)
			}
			if n := fs["spare"].Calls(); n != 0 {
				t.Errorf("the backup target was called %d times: a billed answer was asked for again (attempts %q)", n, steps(d))
			}
		})
	}
}

// Streams: the count arrives at the end (Anthropic's message_delta usage,
// Gemini's last usageMetadata); written as 3.0.
func TestH52FloatCountInAStreamsUsage(t *testing.T) {
	anth := []string{
		"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":12,\"output_tokens\":1}}}",
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}",
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"the answer\"}}",
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}",
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":3.0}}",
		"event: message_stop\ndata: {\"type\":\"message_stop\"}",
	}
	gem := []string{
		`data: {"candidates":[{"content":{"parts":[{"text":"the answer"}],"role":"model"},"index":0}],"modelVersion":"m"}`,
		`data: {"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":12,"candidatesTokenCount":3.0,"totalTokenCount":15},"modelVersion":"m"}`,
	}
	anthInt := append([]string(nil), anth...)
	anthInt[4] = strings.Replace(anthInt[4], "3.0", "3", 1)
	for _, tc := range []struct {
		name, dialect string
		events        []string
	}{{"anthropic", "anthropic", anth}, {"gemini", "gemini", gem}, {"anthropic control", "anthropic", anthInt}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := `
providers:
  - {name: up, dialect: ` + tc.dialect + `, base_url: "{up}", api_key: ` + secret + `}
targets:
  - {name: first, model: m, providers: [up], price: {input: 3.00, output: 15.00}}
routes:
  - {name: deep, targets: [first]}
`
			fs := fakes(t, map[string]upstreamtest.Script{"up": script(upstreamtest.Step{Events: tc.events})})
			g := start(t, cfg, fs)
			r := g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"deep","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`)
			d := g.recs.wait(t, 1)
			t.Logf("status %d, outcome %s, attempts %q, usage %+v\n%s", r.Status, d.Outcome, steps(d), d.Attempts[0].Usage, r.Body)
			if strings.Contains(string(r.Body), `"error"`) || d.Attempts[0].Class != "" {
				t.Errorf("a stream whose usage has one count written 3.0 ended in an error (attempts %q)", steps(d))
			}
			if !strings.Contains(string(r.Body), `"finish_reason":"stop"`) {
				t.Errorf("the client's stream has no finish_reason \"stop\" (the upstream ended its turn)")
			}
			if u := d.Attempts[0].Usage; u == nil || u.CompletionTokens != 3 {
				t.Errorf("recorded usage %+v, want 3 output tokens (the upstream's final count)", u)
			}
		})
	}
}

// Hostile 52 (client): a client that stops reading for a few seconds
// (well inside the gateway's 30 s write deadline) makes the gateway stop
// reading its upstream; an upstream whose front closes a connection it
// cannot write to (nginx's send_timeout, here 1 s) cuts the stream. The
// cut is the client's doing: it must not count against the upstream (a
// few such clients would cool a healthy endpoint for everyone).
func TestH52SlowReaderCutsTheUpstream(t *testing.T) {
	var aborted atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		text := strings.Repeat("token ", 5000)
		for i := 0; i < 4000; i++ {
			_ = rc.SetWriteDeadline(time.Now().Add(time.Second))
			_, err := io.WriteString(w, `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"`+text+`"},"finish_reason":null}]}`+"\n\n")
			if err == nil {
				err = rc.Flush()
			}
			if err != nil {
				aborted.Add(1)
				panic(http.ErrAbortHandler) // the front gives up on a reader that does not read
			}
		}
		io.WriteString(w, `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	cfg := `
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai]}
routes:
  - {name: deep, targets: [gpt]}
`
	g := start(t, cfg, map[string]*upstreamtest.Server{"openai": {Server: srv}})
	req, _ := http.NewRequest(http.MethodPost, g.URL+"/v1/chat/completions", strings.NewReader(`{"model":"deep","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1024)
	resp.Body.Read(buf)
	time.Sleep(4 * time.Second) // the client stops reading for 4 s
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	d := g.recs.wait(t, 1)
	tail := string(b)
	if len(tail) > 300 {
		tail = tail[len(tail)-300:]
	}
	t.Logf("upstream aborted %d; outcome %s; attempts %q; evidence %q; counted %v; client tail %q", aborted.Load(), d.Outcome, steps(d), d.Attempts[0].Evidence, d.Attempts[0].Counted, tail)
	if aborted.Load() == 0 {
		t.Fatal("the upstream never gave up on the gateway: the test proves nothing")
	}
	if d.Attempts[0].Counted {
		t.Errorf("a stream the client stalled was cut by its upstream and counted against the upstream as %s (%s)", d.Attempts[0].Class, d.Attempts[0].Evidence)
	}
}

// After 597cba8: a count past int64 written as a plain integer (no
// fraction, no exponent) is left as it is by provider.WholeCounts, and
// encoding/json still refuses it: the whole answer fails as before.
func TestH52HugeIntegerCountFailsAnAnswer(t *testing.T) {
	const cfg = `
providers:
  - {name: anth, dialect: anthropic, base_url: "{anth}", api_key: ` + secret + `}
  - {name: spare, dialect: anthropic, base_url: "{spare}", api_key: ` + secret + `}
targets:
  - {name: claude, model: m, providers: [anth], price: {input: 3.00, output: 15.00}}
  - {name: backup, model: m, providers: [spare], price: {input: 3.00, output: 15.00}}
routes:
  - {name: deep, targets: [claude, backup]}
`
	huge := upstreamtest.Step{Body: `{"id":"msg_1","type":"message","role":"assistant","model":"m",` +
		`"content":[{"type":"text","text":"the answer"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":99999999999999999999}}`}
	fs := fakes(t, map[string]upstreamtest.Script{"anth": script(huge), "spare": script(anthropicOK)})
	g := start(t, cfg, fs)
	r := g.raw(t, http.MethodPost, "/v1/messages", `{"model":"deep","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`)
	d := g.recs.wait(t, 1)
	t.Logf("status %d, attempts %q", r.Status, steps(d))
	if !strings.Contains(string(r.Body), "the answer") || fs["spare"].Calls() != 0 {
		t.Errorf("an answer whose output_tokens is 99999999999999999999 was not served (attempts %q); the backup was called %d times", steps(d), fs["spare"].Calls())
	}
}

// Hostile 52 (client): a chat client's own "n": -1 at a vLLM target is
// answered by vLLM's SamplingParams check, "n must be at least 1, got
// -1." (vllm/sampling_params.py _verify_args). Detour reads round 51's
// negative-budget words in it and tells the client, in OpenAI's code, that
// its context overflowed (context_length_exceeded, on which Codex compacts
// its history and LangChain summarises), and walks on to the larger
// window.
func TestH52NegativeNIsNotAFullWindow(t *testing.T) {
	vllm := upstreamtest.Step{Status: 400, Body: `{"object":"error","message":"n must be at least 1, got -1.","type":"BadRequestError","param":null,"code":400}`}
	cfg := `
providers:
  - {name: small, dialect: openai, base_url: "{small}", api_key: ` + secret + `}
  - {name: big, dialect: openai, base_url: "{big}", api_key: ` + secret + `}
targets:
  - {name: a, model: m, providers: [small], context_window: 32000}
  - {name: b, model: m, providers: [big], context_window: 128000}
routes:
  - {name: deep, targets: [a, b]}
`
	fs := fakes(t, map[string]upstreamtest.Script{"small": script(vllm), "big": script(vllm)})
	g := start(t, cfg, fs)
	r := g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"deep","n":-1,"messages":[{"role":"user","content":"hi"}]}`)
	d := g.recs.wait(t, 1)
	t.Logf("status %d, attempts %q, body %s", r.Status, steps(d), r.Body)
	if strings.Contains(string(r.Body), "context_length_exceeded") || fs["big"].Calls() != 0 {
		t.Errorf("the client's own n -1 was answered as a full window (attempts %q): %s", steps(d), r.Body)
	}
}

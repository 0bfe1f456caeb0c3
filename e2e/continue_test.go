package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Mid-stream continuation (issue 11), through the official OpenAI SDK: a
// stream cut after its first content is continued at the next target, and
// the text the client assembles is the whole answer, exactly.

// answer60 is the fakes' one answer: 60 tokens, each but the first with its
// leading space, as tokenizers cut text.
var answer60 = func() []string {
	toks := []string{"Once"}
	for i := 1; i < 60; i++ {
		toks = append(toks, fmt.Sprintf(" t%02d", i))
	}
	return toks
}()

var whole60 = strings.Join(answer60, "")

// model is a deterministic fake model: it answers whole60 in chunks of per
// tokens; a request ending with an assistant message (a prefill) gets the
// rest of the answer after it, unless refuse is set: then the Anthropic 400
// for a prefill.
type model struct {
	dialect string // "openai" or "anthropic"
	per     int
	refuse  bool
}

func (m model) script(t *testing.T) upstreamtest.Script {
	return func(_ int, r upstreamtest.Request) upstreamtest.Step {
		var req struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(r.Body, &req); err != nil || len(req.Messages) == 0 {
			t.Errorf("fake model: request %s", r.Body)
			return upstreamtest.Step{Status: 400, Body: `{"error":{"message":"bad request","type":"invalid_request_error"}}`}
		}
		toks := answer60
		if last := req.Messages[len(req.Messages)-1]; last.Role == "assistant" {
			if m.refuse {
				return upstreamtest.Step{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"This model does not support assistant message prefill. The conversation must end with a user message."}}`}
			}
			prefill := text(last.Content)
			toks = nil
			for i := range answer60 {
				if strings.Join(answer60[:i], "") == prefill {
					toks = answer60[i:]
				}
			}
			if toks == nil {
				t.Errorf("fake model: prefill %q is not a prefix of the answer at a token boundary", prefill)
			}
		}
		var parts []string
		for i := 0; i < len(toks); i += m.per {
			parts = append(parts, strings.Join(toks[i:min(i+m.per, len(toks))], ""))
		}
		if m.dialect == "anthropic" {
			return upstreamtest.Step{Events: anthropicStream(parts)}
		}
		return upstreamtest.Step{Events: upstreamtest.ChatStream("fallback-model", parts...)}
	}
}

// text reads a message content: a string, or Anthropic's list of text blocks.
func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct{ Text string }
	_ = json.Unmarshal(raw, &blocks)
	for _, b := range blocks {
		s += b.Text
	}
	return s
}

// anthropicStream is an Anthropic Messages event stream answering parts.
func anthropicStream(parts []string) []string {
	ev := func(name, data string) string { return "event: " + name + "\ndata: " + data }
	out := []string{
		ev("message_start", `{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-6","content":[],"stop_reason":null,"usage":{"input_tokens":5,"output_tokens":1}}}`),
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`),
	}
	for _, p := range parts {
		b, _ := json.Marshal(p)
		out = append(out, ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`+string(b)+`}}`))
	}
	return append(out, ev("content_block_stop", `{"type":"content_block_stop","index":0}`),
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":60}}`),
		ev("message_stop", `{"type":"message_stop"}`))
}

// primary is the first target's upstream: the answer one token per chunk,
// the first n tokens only, then cut (or, stall, silent until the gateway
// leaves).
func primary(n int, stall bool) upstreamtest.Step {
	evs := upstreamtest.ChatStream("primary-model", answer60...)
	return upstreamtest.Step{Events: evs[:1+n], Cut: !stall, Stall: stall}
}

// contCfg: route "r" is target first (provider "one") then target second
// (provider "two", of dialect and prefill as given); %s adds route options.
func contCfg(dialect, prefill, routeOpts string) string {
	return `
providers:
  - {name: one, dialect: openai, base_url: "{one}", api_key: ` + secret + `, idle_timeout: 300ms}
  - {name: two, dialect: ` + dialect + `, base_url: "{two}", api_key: ` + secret + `}
targets:
  - {name: first, model: gpt-4o-mini, providers: [one]}
  - {name: second, model: fallback-model, providers: [two]` + prefill + `}
routes:
  - {name: r, targets: [first, second]` + routeOpts + `}
`
}

const continueOpts = `, on_stream_cut: continue`

// sdkStream streams route r through the SDK and returns what the client
// assembled, every chunk, and the stream's error.
func sdkStream(t *testing.T, g *gateway) (string, []openai.ChatCompletionChunk, error) {
	t.Helper()
	s := sdk(g).Chat.Completions.NewStreaming(context.Background(), hello("r"))
	acc := openai.ChatCompletionAccumulator{}
	var chunks []openai.ChatCompletionChunk
	for s.Next() {
		chunks = append(chunks, s.Current())
		acc.AddChunk(s.Current())
	}
	content := ""
	if len(acc.Choices) > 0 {
		content = acc.Choices[0].Message.Content
	}
	return content, chunks, s.Err()
}

// wantSeamless checks the chunks are one stream: one id, created and model
// (the first upstream's), one role delta, one finish reason, and no
// usage-only chunk (the client did not ask for one; an Anthropic upstream's
// usage rides on its finish chunk, as without a continuation).
func wantSeamless(t *testing.T, chunks []openai.ChatCompletionChunk) {
	t.Helper()
	roles, finishes := 0, 0
	for _, c := range chunks {
		if c.ID != chunks[0].ID || c.Created != chunks[0].Created || c.Model != "primary-model" {
			t.Errorf("chunk %s/%d/%s in a stream of %s/%d", c.ID, c.Created, c.Model, chunks[0].ID, chunks[0].Created)
		}
		if len(c.Choices) == 0 {
			t.Errorf("a usage chunk the client did not ask for: %s", c.RawJSON())
		}
		for _, ch := range c.Choices {
			if ch.Delta.Role != "" {
				roles++
			}
			if ch.FinishReason != "" {
				finishes++
			}
		}
	}
	if roles != 1 || finishes != 1 {
		t.Errorf("%d role deltas, %d finish reasons", roles, finishes)
	}
}

func wantCont(t *testing.T, a decision.Attempt, mode string, offset int, class string) {
	t.Helper()
	if c := a.Continuation; c == nil || c.Mode != mode || c.OffsetChars != offset || c.CutClass != class || c.N != 1 {
		t.Errorf("attempt %s continuation %+v, want %s at %d after %s", a.Target, c, mode, offset, class)
	}
}

// Scenario 1: the stream is cut after 40 of 60 tokens, with no terminating
// chunk; the fallback takes no prefill, so it replays.
func TestContinueCutAfter40Of60ByReplay(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"one": script(primary(40, false)), "two": model{dialect: "openai", per: 3}.script(t)})
	g := start(t, contCfg("openai", "", continueOpts), fs)
	content, chunks, err := sdkStream(t, g)
	if err != nil || content != whole60 {
		t.Fatalf("client assembled %q (error %v), want the whole answer", content, err)
	}
	wantSeamless(t, chunks)
	rec := g.recs.wait(t, 1)
	wantSteps(t, rec, "first/one server_error next_target", "second/two ok done")
	wantCont(t, rec.Attempts[1], "replay", len(strings.Join(answer60[:40], "")), "server_error")
	if !rec.Attempts[0].Billable || !rec.Attempts[1].Billable || rec.Outcome != "ok" {
		t.Errorf("record %+v", rec)
	}
}

// The same cut at a fallback that takes a prefill (a vLLM server): the
// delivered text goes as a trailing assistant message, and only the rest
// is generated.
func TestContinueCutAfter40Of60ByPrefill(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"one": script(primary(40, false)), "two": model{dialect: "openai", per: 2}.script(t)})
	g := start(t, contCfg("openai", ", prefill: true", continueOpts), fs)
	content, chunks, err := sdkStream(t, g)
	if err != nil || content != whole60 {
		t.Fatalf("client assembled %q (error %v), want the whole answer", content, err)
	}
	wantSeamless(t, chunks)
	var req map[string]any
	if err := json.Unmarshal(fs["two"].Requests()[0].Body, &req); err != nil || req["continue_final_message"] != true || req["add_generation_prompt"] != false {
		t.Errorf("prefill request %s", fs["two"].Requests()[0].Body)
	}
	wantCont(t, g.recs.wait(t, 1).Attempts[1], "prefill", len(strings.Join(answer60[:40], "")), "server_error")
}

// Scenario 2: the stream goes silent after 20 tokens; idle_timeout (300ms
// here) cuts it and the fallback continues.
func TestContinueSilentAfter20Tokens(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"one": script(primary(20, true)), "two": model{dialect: "openai", per: 5}.script(t)})
	g := start(t, contCfg("openai", "", continueOpts), fs)
	content, chunks, err := sdkStream(t, g)
	if err != nil || content != whole60 {
		t.Fatalf("client assembled %q (error %v), want the whole answer", content, err)
	}
	wantSeamless(t, chunks)
	rec := g.recs.wait(t, 1)
	wantSteps(t, rec, "first/one timeout next_target", "second/two ok done")
	wantCont(t, rec.Attempts[1], "replay", len(strings.Join(answer60[:20], "")), "timeout")
	if rec.Attempts[0].Evidence != "timeout:idle" {
		t.Errorf("cut evidence %q", rec.Attempts[0].Evidence)
	}
}

// Scenario 3: the same cut; the fallback (an Anthropic model, which takes a
// prefill by default) refuses any request ending with an assistant message
// with a 400. The client never sees it: the replay delivers the answer.
func TestContinuePrefillRefusedThenReplay(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"one": script(primary(40, false)), "two": model{dialect: "anthropic", per: 4, refuse: true}.script(t)})
	g := start(t, contCfg("anthropic", "", continueOpts), fs)
	content, chunks, err := sdkStream(t, g)
	if err != nil || content != whole60 {
		t.Fatalf("client assembled %q (error %v), want the whole answer", content, err)
	}
	wantSeamless(t, chunks)
	rec := g.recs.wait(t, 1)
	wantSteps(t, rec, "first/one server_error next_target", "second/two unknown retry", "second/two ok done")
	offset := len(strings.Join(answer60[:40], ""))
	wantCont(t, rec.Attempts[1], "prefill", offset, "server_error")
	wantCont(t, rec.Attempts[2], "replay", offset, "server_error")
	if fs["two"].Calls() != 2 {
		t.Errorf("fallback called %d times", fs["two"].Calls())
	}
}

// What is not continued ends as under on_stream_cut: error — an SDK error
// after the text delivered so far, intact.
func TestContinueRefusedCases(t *testing.T) {
	toolCut := upstreamtest.Step{Events: append(upstreamtest.ChatStream("primary-model", "Let me look.")[:2],
		`{"id":"chatcmpl-test","object":"chat.completion.chunk","created":1764489600,"model":"primary-model","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"lookup","arguments":"{\"q\":"}}]},"finish_reason":null}]}`), Cut: true}
	other := upstreamtest.Steps(okStream("fallback-model", "Once upon", " another time"))
	for _, tc := range []struct {
		name      string
		one, two  upstreamtest.Script
		opts      string
		delivered string
		steps     []string
		twoCalls  int
	}{
		{"cut inside a tool call", script(toolCut), model{dialect: "openai", per: 3}.script(t), continueOpts, "Let me look.",
			[]string{"first/one server_error stop"}, 0},
		{"replay diverges", script(primary(40, false)), other, continueOpts, strings.Join(answer60[:40], ""),
			[]string{"first/one server_error next_target", "second/two server_error stop"}, 1},
		{"max_billable_attempts forbids it", script(primary(40, false)), model{dialect: "openai", per: 3}.script(t),
			continueOpts + `, max_billable_attempts: 1`, strings.Join(answer60[:40], ""), []string{"first/one server_error stop"}, 0},
		{"on_stream_cut error", script(primary(40, false)), model{dialect: "openai", per: 3}.script(t), "", strings.Join(answer60[:40], ""),
			[]string{"first/one server_error stop"}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"one": tc.one, "two": tc.two})
			g := start(t, contCfg("openai", "", tc.opts), fs)
			s := sdk(g).Chat.Completions.NewStreaming(context.Background(), hello("r"))
			content := ""
			for s.Next() {
				for _, ch := range s.Current().Choices {
					content += ch.Delta.Content
				}
			}
			if s.Err() == nil {
				t.Fatalf("the stream ended as a success after %q", content)
			}
			if content != tc.delivered {
				t.Errorf("client text %q, want %q", content, tc.delivered)
			}
			rec := g.recs.wait(t, 1)
			wantSteps(t, rec, tc.steps...)
			if fs["two"].Calls() != tc.twoCalls || rec.Outcome != "error" {
				t.Errorf("fallback called %d times, outcome %s", fs["two"].Calls(), rec.Outcome)
			}
		})
	}
}

// Usage for the whole answer: a client that asked for usage gets one usage
// chunk, summing what each upstream reported — the cut Anthropic primary's
// input and first output token (message_start), the replay's prompt and
// completion.
func TestContinueUsageForTheWholeAnswer(t *testing.T) {
	primaryEvents := anthropicStream(answer60[:40])
	primaryEvents[0] = strings.Replace(primaryEvents[0], `"input_tokens":5`, `"input_tokens":11`, 1)
	primaryEvents = primaryEvents[:2+40] // message_start, content_block_start, 40 deltas: cut
	fs := fakes(t, map[string]upstreamtest.Script{"one": script(upstreamtest.Step{Events: primaryEvents, Cut: true}),
		"two": model{dialect: "openai", per: 3}.script(t)})
	g := start(t, `
providers:
  - {name: one, dialect: anthropic, base_url: "{one}", api_key: `+secret+`}
  - {name: two, dialect: openai, base_url: "{two}", api_key: `+secret+`}
targets:
  - {name: first, model: claude-sonnet-4-5, providers: [one], prefill: false}
  - {name: second, model: fallback-model, providers: [two]}
routes:
  - {name: r, targets: [first, second], on_stream_cut: continue}
`, fs)
	p := hello("r")
	p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	s := sdk(g).Chat.Completions.NewStreaming(context.Background(), p)
	content := ""
	var usage []openai.CompletionUsage
	for s.Next() {
		c := s.Current()
		for _, ch := range c.Choices {
			content += ch.Delta.Content
		}
		if c.JSON.Usage.Valid() && c.Usage.TotalTokens > 0 {
			usage = append(usage, c.Usage)
		}
	}
	if s.Err() != nil || content != whole60 {
		t.Fatalf("client assembled %q (error %v)", content, s.Err())
	}
	// The replay reports 5 prompt and 20 completion tokens (20 chunks); each
	// upstream billed its prompt, as the record says (review 39g).
	if len(usage) != 1 || usage[0].PromptTokens != 11+5 || usage[0].CompletionTokens != 1+20 || usage[0].TotalTokens != 37 {
		t.Errorf("usage chunks %+v, want one: 16 prompt, 21 completion, 37 total", usage)
	}
	wantCont(t, g.recs.wait(t, 1).Attempts[1], "replay", len(strings.Join(answer60[:40], "")), "server_error")
}

package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Streams read with the SDKs' own accumulators and typed unions, through a
// translation: openai-go's ChatCompletionAccumulator (and its JustFinished
// events) against Anthropic and Gemini targets, anthropic-sdk-go's
// Message.Accumulate against OpenAI and Gemini targets, and openai-go's
// Responses events against Anthropic and Gemini targets. What the SDK puts
// together must be what the upstream streamed.

const accCfg = `
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
  - {name: gemini, dialect: gemini, base_url: "{gemini}", api_key: ` + secret + `}
targets:
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: gem, model: gemini-2.0-flash, providers: [gemini]}
routes:
  - {name: mixed, targets: [claude, gem]}
`

// accFakes serves answer from the fake of dialect; the others fail loudly.
func accFakes(t *testing.T, dialect string, answer upstreamtest.Step) map[string]*upstreamtest.Server {
	t.Helper()
	s := map[string]upstreamtest.Script{}
	for _, d := range []string{"openai", "anthropic", "gemini"} {
		s[d] = script(upstreamtest.Step{Status: 500, Body: `{"error":{"message":"not this one"}}`})
	}
	s[dialect] = script(answer)
	return fakes(t, s)
}

// toolOnly drops a Messages stream's text block (index 0) and renumbers
// its tool_use block (index 1) to 0.
func toolOnly(events []string) []string {
	var out []string
	for _, e := range events {
		if strings.Contains(e, `"index":0`) {
			continue
		}
		out = append(out, strings.ReplaceAll(e, `"index":1`, `"index":0`))
	}
	return out
}

// anthropicTwoTools is a Messages stream of two parallel tool_use blocks
// after a text block: the event sequence and shapes of anthropic-sdk-python
// tests/lib/streaming/fixtures/tool_use_response.txt (the adapter's
// stream/tool_use.sse), with a second tool_use block as Anthropic's parallel
// tool use answers one
// (https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use#parallel-tool-use);
// ids and inputs ours.
var anthropicTwoTools = []string{
	`event: message_start
data: {"type":"message_start","message":{"id":"msg_01TwoToolsStream000000001","type":"message","role":"assistant","model":"claude-sonnet-4-20250514","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":412,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1,"service_tier":"standard"}}}`,
	`event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
	`event: ping
data: {"type": "ping"}`,
	`event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"I'll check both cities."}}`,
	`event: content_block_stop
data: {"type":"content_block_stop","index":0}`,
	`event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01TwoToolsParis000000001","name":"get_weather","input":{}}}`,
	`event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}`,
	`event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"locati"}}`,
	`event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"on\": \"Paris\"}"}}`,
	`event: content_block_stop
data: {"type":"content_block_stop","index":1}`,
	`event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_01TwoToolsTokyo000000001","name":"get_weather","input":{}}}`,
	`event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"location\": \"To"}}`,
	`event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"kyo\", \"unit\": \"celsius\"}"}}`,
	`event: content_block_stop
data: {"type":"content_block_stop","index":2}`,
	`event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":97}}`,
	`event: message_stop
data: {"type":"message_stop"}`,
}

// geminiTwoCalls is Firebase vertexai-sdk-test-data
// mock-responses/vertexai/unary-success-parallel-auto-function-call.json
// (two functionCall parts in one candidate) as one streamGenerateContent
// event: Gemini streams a functionCall whole, in one chunk.
const geminiTwoCalls = `{"candidates":[{"content":{"parts":[{"functionCall":{"name":"fetchWeather","args":{"param":{"state":"MA","city":"Boston","date":"2024-10-17"}}}},{"functionCall":{"name":"completelyDifferentFunction","args":{"param":{"state":"MA","city":"Boston","date":"2024-10-17"}}}}],"role":"model"},"finishReason":"STOP","index":0,"finishMessage":"Model generated function call(s)."}],"usageMetadata":{"promptTokenCount":212,"candidatesTokenCount":39,"totalTokenCount":390,"promptTokensDetails":[{"modality":"TEXT","tokenCount":212}],"thoughtsTokenCount":139},"modelVersion":"gemini-2.5-flash","responseId":"adFmadKgHezVjrEP06blsQ0"}`

// openAIToolStream is a chat.completion.chunk stream calling get_weather:
// the tool_calls deltas of OpenAI's function-calling guide
// (https://platform.openai.com/docs/guides/function-calling?api-mode=chat#streaming,
// "Output delta.tool_calls"), each in the chunk envelope of the API
// reference's chat completion chunk object, then the finish chunk and the
// include_usage chunk (choices empty) as OpenAI sends them.
//
// With text set, the answer starts with that text (role chunk, then the
// text, as OpenAI streams text) and calls get_weather a second time, at
// tool_calls index 1 with an id of ours, in the same fragments for Tokyo,
// Japan.
func openAIToolStream(text string) []string {
	env := func(delta, finish string) string {
		return `{"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini","system_fingerprint":"fp_44709d6fcb","choices":[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + finish + `}],"usage":null}`
	}
	call := func(i int, id, city, country string) []string {
		first := `{"tool_calls":[{"index": %d, "id": "` + id + `", "function": {"arguments": "", "name": "get_weather"}, "type": "function"}]}`
		if i == 0 && text == "" {
			first = `{"role":"assistant","content":null,"tool_calls":[{"index": %d, "id": "` + id + `", "function": {"arguments": "", "name": "get_weather"}, "type": "function"}],"refusal":null}`
		}
		out := []string{env(fmt.Sprintf(first, i), "null")}
		for _, a := range []string{`{\"`, `location`, `\":\"`, city, `,`, country, `\"}`} {
			out = append(out, env(fmt.Sprintf(`{"tool_calls":[{"index": %d, "id": null, "function": {"arguments": "`+a+`", "name": null}, "type": null}]}`, i), "null"))
		}
		return out
	}
	var out []string
	if text != "" {
		out = append(out, env(`{"role":"assistant","content":"","refusal":null}`, "null"))
		for _, w := range strings.SplitAfter(text, " ") {
			out = append(out, env(`{"content":`+strconv.Quote(w)+`}`, "null"))
		}
	}
	out = append(out, call(0, "call_DdmO9pD3xa9XTPNJ32zg2hcA", "Paris", " France")...)
	if text != "" {
		out = append(out, call(1, "call_TokyoSecondCall0000000", "Tokyo", " Japan")...)
	}
	return append(out, env(`{}`, `"tool_calls"`),
		`{"id":"chatcmpl-123","object":"chat.completion.chunk","created":1694268190,"model":"gpt-4o-mini","system_fingerprint":"fp_44709d6fcb","choices":[],"usage":{"prompt_tokens":75,"completion_tokens":18,"total_tokens":93}}`,
		"[DONE]")
}

// accCall is a tool call as the SDK must put it together; args is compared
// as JSON, id "call_*" stands for Gemini's generated ids.
type accCall struct{ id, name, args string }

func sameJSON(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}

// chatCase is one upstream stream and what the chat accumulator must make
// of it.
type chatCase struct {
	name, target, dialect string
	events                []string
	content               string
	calls                 []accCall
	finish, model         string
	usage                 [3]int64 // prompt, completion, total
	reasoning             int64    // of the completion tokens
}

func chatCases(t *testing.T) []chatCase {
	return []chatCase{
		// anthropic-sdk-python tests/lib/streaming/fixtures/basic_response.txt
		{name: "anthropic text", target: "claude", dialect: "anthropic", events: sseBlocks(string(testdata(t, "anthropic", "stream/basic.sse"))),
			content: "Hello there!", finish: "stop", model: "claude-3-opus-latest", usage: [3]int64{11, 6, 17}},
		// anthropic-sdk-python tests/lib/streaming/fixtures/tool_use_response.txt:
		// text, then a tool_use whose input comes in four pieces.
		{name: "anthropic tool", target: "claude", dialect: "anthropic", events: sseBlocks(string(testdata(t, "anthropic", "stream/tool_use.sse"))),
			content: "I'll check the current weather in Paris for you.", calls: []accCall{{"toolu_01NRLabsLyVHZPKxbKvkfSMn", "get_weather", `{"location": "Paris"}`}},
			finish: "tool_calls", model: "claude-sonnet-4-20250514", usage: [3]int64{377, 65, 442}},
		// The same stream with its text block removed and the tool_use
		// block at index 0: Claude answering with a tool call alone.
		{name: "anthropic tool only", target: "claude", dialect: "anthropic", events: toolOnly(sseBlocks(string(testdata(t, "anthropic", "stream/tool_use.sse")))),
			calls:  []accCall{{"toolu_01NRLabsLyVHZPKxbKvkfSMn", "get_weather", `{"location": "Paris"}`}},
			finish: "tool_calls", model: "claude-sonnet-4-20250514", usage: [3]int64{377, 65, 442}},
		{name: "anthropic two tools", target: "claude", dialect: "anthropic", events: anthropicTwoTools,
			content: "I'll check both cities.", calls: []accCall{{"toolu_01TwoToolsParis000000001", "get_weather", `{"location":"Paris"}`},
				{"toolu_01TwoToolsTokyo000000001", "get_weather", `{"location":"Tokyo","unit":"celsius"}`}},
			finish: "tool_calls", model: "claude-sonnet-4-20250514", usage: [3]int64{412, 97, 509}},
		// Firebase vertexai-sdk-test-data streaming-success-basic-reply-short.txt
		{name: "gemini text", target: "gem", dialect: "gemini", events: sseBlocks(string(testdata(t, "gemini", "stream/basic.sse"))),
			content: "The capital of Wyoming is **Cheyenne**.\n", finish: "stop", model: "gemini-3.1-flash-lite", usage: [3]int64{7, 10, 17}},
		// The documented function call (sdk_dialects_test.go) as one event.
		{name: "gemini tool", target: "gem", dialect: "gemini", events: []string{geminiTemperatureCall},
			calls:  []accCall{{"call_*", "get_current_temperature", `{"location":"London"}`}},
			finish: "tool_calls", model: "gemini-2.0-flash", usage: [3]int64{58, 8, 66}},
		// Firebase vertexai-sdk-test-data
		// streaming-success-thinking-function-call-thought-summary-signature.txt:
		// two thought-only events, then the call.
		{name: "gemini thinking tool", target: "gem", dialect: "gemini", events: sseBlocks(string(testdata(t, "gemini", "stream/function_call_thinking.sse"))),
			calls:  []accCall{{"call_*", "now", `{}`}},
			finish: "tool_calls", model: "gemini-2.5-flash", usage: [3]int64{38, 174, 212}, reasoning: 168},
		{name: "gemini two tools", target: "gem", dialect: "gemini", events: []string{geminiTwoCalls},
			calls: []accCall{{"call_*", "fetchWeather", `{"param":{"state":"MA","city":"Boston","date":"2024-10-17"}}`},
				{"call_*", "completelyDifferentFunction", `{"param":{"state":"MA","city":"Boston","date":"2024-10-17"}}`}},
			finish: "tool_calls", model: "gemini-2.5-flash", usage: [3]int64{212, 178, 390}, reasoning: 139},
	}
}

// TestAccChatCompletionAccumulator: openai-go's ChatCompletionAccumulator
// over a translated stream, with include_usage.
func TestAccChatCompletionAccumulator(t *testing.T) {
	for _, tc := range chatCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			fs := accFakes(t, tc.dialect, upstreamtest.Step{Events: tc.events})
			g := start(t, accCfg, fs)
			p := ask(tc.target, "What's the weather like?", true)
			p.Tools = []openai.ChatCompletionToolUnionParam{weatherTool(), temperatureTool()}
			s := sdk(g).Chat.Completions.NewStreaming(context.Background(), p)
			acc := openai.ChatCompletionAccumulator{}
			var contents []string
			var finished []openai.FinishedChatCompletionToolCall
			var raw []string
			for s.Next() {
				ch := s.Current()
				raw = append(raw, ch.RawJSON())
				if !acc.AddChunk(ch) {
					t.Errorf("the accumulator rejected chunk %d: %s", len(raw), ch.RawJSON())
				}
				if c, ok := acc.JustFinishedContent(); ok {
					contents = append(contents, c)
				}
				if tc, ok := acc.JustFinishedToolCall(); ok {
					finished = append(finished, tc)
				}
			}
			if err := s.Err(); err != nil {
				t.Fatal(err)
			}
			defer func() {
				if t.Failed() {
					t.Logf("chunks:\n%s", strings.Join(raw, "\n"))
				}
			}()
			if len(acc.Choices) != 1 {
				t.Fatalf("accumulated %d choices: %+v", len(acc.Choices), acc.ChatCompletion)
			}
			ch := acc.Choices[0]
			if ch.Message.Content != tc.content || ch.FinishReason != tc.finish || ch.Message.Role != "assistant" || acc.Model != tc.model {
				t.Errorf("content %q finish %q role %q model %q", ch.Message.Content, ch.FinishReason, ch.Message.Role, acc.Model)
			}
			if tc.content != "" && (len(contents) != 1 || contents[0] != tc.content) {
				t.Errorf("JustFinishedContent reported %q, want %q once", contents, tc.content)
			}
			if tc.content == "" && len(contents) > 0 { // a tool call alone finishes no content
				t.Errorf("JustFinishedContent reported %q for an answer without text", contents)
			}
			if len(ch.Message.ToolCalls) != len(tc.calls) {
				t.Fatalf("tool calls: %+v", ch.Message.ToolCalls)
			}
			ids := map[string]bool{}
			for i, w := range tc.calls {
				c := ch.Message.ToolCalls[i]
				if !sameID(c.ID, w.id) || c.Type != "function" || c.Function.Name != w.name || !sameJSON(c.Function.Arguments, w.args) {
					t.Errorf("tool call %d: %q %q %q %q", i, c.ID, c.Type, c.Function.Name, c.Function.Arguments)
				}
				ids[c.ID] = true
			}
			if len(ids) != len(tc.calls) {
				t.Errorf("tool call ids are not distinct: %v", ids)
			}
			if len(finished) != len(tc.calls) {
				t.Errorf("JustFinishedToolCall reported %d calls, want %d: %+v", len(finished), len(tc.calls), finished)
			}
			for i, f := range finished {
				if i < len(ch.Message.ToolCalls) {
					c := ch.Message.ToolCalls[i]
					if f.Index != i || f.ID != c.ID || f.Name != c.Function.Name || f.Arguments != c.Function.Arguments {
						t.Errorf("JustFinishedToolCall %d: %+v, want %+v", i, f, c)
					}
				}
			}
			if u := acc.Usage; u.PromptTokens != tc.usage[0] || u.CompletionTokens != tc.usage[1] || u.TotalTokens != tc.usage[2] ||
				u.CompletionTokensDetails.ReasoningTokens != tc.reasoning {
				t.Errorf("usage %d/%d/%d reasoning %d, want %v %d", u.PromptTokens, u.CompletionTokens, u.TotalTokens,
					u.CompletionTokensDetails.ReasoningTokens, tc.usage, tc.reasoning)
			}
			checkUpstream(t, fs, tc.dialect, true)
			wantSteps(t, g.recs.wait(t, 1), tc.target+"/"+tc.dialect+" ok done")
		})
	}
}

// msgCase is one upstream stream and what anthropic-sdk-go's Accumulate
// must make of it.
type msgCase struct {
	name, target, dialect string
	events                []string
	text                  string
	calls                 []accCall // tool_use blocks after the text
	stop                  anthropic.StopReason
	model                 string
	input, output         int64
}

// TestAccMessagesAccumulate: anthropic-sdk-go's Message.Accumulate over the
// Messages door's translation of OpenAI and Gemini streams; every event's
// union decodes to a known variant.
func TestAccMessagesAccumulate(t *testing.T) {
	for _, tc := range []msgCase{
		// The OpenAI-shaped stream of upstreamtest.ChatStream, text in pieces.
		{name: "openai text", target: "gpt", dialect: "openai", events: upstreamtest.ChatStream("gpt-4o-mini-2024-07-18", "Hello", " there", "!"),
			text: "Hello there!", stop: anthropic.StopReasonEndTurn, model: "gpt-4o-mini-2024-07-18", input: 5, output: 3},
		{name: "openai tool", target: "gpt", dialect: "openai", events: openAIToolStream(""),
			calls: []accCall{{"call_DdmO9pD3xa9XTPNJ32zg2hcA", "get_weather", `{"location":"Paris, France"}`}},
			stop:  anthropic.StopReasonToolUse, model: "gpt-4o-mini", input: 75, output: 18},
		{name: "openai text and two tools", target: "gpt", dialect: "openai", events: openAIToolStream("Let me check both cities."),
			text: "Let me check both cities.",
			calls: []accCall{{"call_DdmO9pD3xa9XTPNJ32zg2hcA", "get_weather", `{"location":"Paris, France"}`},
				{"call_TokyoSecondCall0000000", "get_weather", `{"location":"Tokyo, Japan"}`}},
			stop: anthropic.StopReasonToolUse, model: "gpt-4o-mini", input: 75, output: 18},
		{name: "gemini text", target: "gem", dialect: "gemini", events: sseBlocks(string(testdata(t, "gemini", "stream/basic.sse"))),
			text: "The capital of Wyoming is **Cheyenne**.\n", stop: anthropic.StopReasonEndTurn, model: "gemini-3.1-flash-lite", input: 7, output: 10},
		{name: "gemini tool", target: "gem", dialect: "gemini", events: []string{geminiTemperatureCall},
			calls: []accCall{{"call_*", "get_current_temperature", `{"location":"London"}`}},
			stop:  anthropic.StopReasonToolUse, model: "gemini-2.0-flash", input: 58, output: 8},
		{name: "gemini thinking tool", target: "gem", dialect: "gemini", events: sseBlocks(string(testdata(t, "gemini", "stream/function_call_thinking.sse"))),
			calls: []accCall{{"call_*", "now", `{}`}},
			stop:  anthropic.StopReasonToolUse, model: "gemini-2.5-flash", input: 38, output: 174},
		{name: "gemini two tools", target: "gem", dialect: "gemini", events: []string{geminiTwoCalls},
			calls: []accCall{{"call_*", "fetchWeather", `{"param":{"state":"MA","city":"Boston","date":"2024-10-17"}}`},
				{"call_*", "completelyDifferentFunction", `{"param":{"state":"MA","city":"Boston","date":"2024-10-17"}}`}},
			stop: anthropic.StopReasonToolUse, model: "gemini-2.5-flash", input: 212, output: 178},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := accFakes(t, tc.dialect, upstreamtest.Step{Events: tc.events})
			g := start(t, accCfg+"client_keys: [client-key-1]\n", fs)
			p := askClaude(tc.target, "What's the weather like?")
			p.Tools = []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{Name: "get_weather",
				InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"location": map[string]any{"type": "string"}}}}}}
			st := anthropicSDK(g, nil).Messages.NewStreaming(context.Background(), p)
			var m anthropic.Message
			var types, raw []string
			for st.Next() {
				ev := st.Current()
				types = append(types, ev.Type)
				raw = append(raw, ev.RawJSON())
				if err := m.Accumulate(ev); err != nil {
					t.Fatalf("Accumulate refused %s: %v", ev.RawJSON(), err)
				}
				switch v := ev.AsAny().(type) {
				case anthropic.MessageStartEvent:
					if v.Message.ID == "" || v.Message.Role != "assistant" || v.Message.Type != "message" {
						t.Errorf("message_start: %s", ev.RawJSON())
					}
				case anthropic.ContentBlockStartEvent:
					switch b := v.ContentBlock.AsAny().(type) {
					case anthropic.TextBlock:
					case anthropic.ToolUseBlock:
						if b.ID == "" || b.Name == "" {
							t.Errorf("tool_use start: %s", ev.RawJSON())
						}
					case anthropic.RedactedThinkingBlock: // a Gemini call's thought signature (docs/doors.md)
						if !strings.HasPrefix(b.Data, "detour1.") {
							t.Errorf("redacted_thinking start: %s", ev.RawJSON())
						}
					default:
						t.Errorf("content_block_start of an unknown block %T: %s", b, ev.RawJSON())
					}
				case anthropic.ContentBlockDeltaEvent:
					switch d := v.Delta.AsAny().(type) {
					case anthropic.TextDelta, anthropic.InputJSONDelta:
					default:
						t.Errorf("content_block_delta of an unknown delta %T: %s", d, ev.RawJSON())
					}
				case anthropic.ContentBlockStopEvent, anthropic.MessageDeltaEvent, anthropic.MessageStopEvent:
				default:
					t.Errorf("an event of no known variant %T: %s", v, ev.RawJSON())
				}
			}
			if err := st.Err(); err != nil {
				t.Fatal(err)
			}
			defer func() {
				if t.Failed() {
					t.Logf("events:\n%s", strings.Join(raw, "\n"))
				}
			}()
			if types[0] != "message_start" || types[len(types)-1] != "message_stop" || types[len(types)-2] != "message_delta" {
				t.Errorf("event order %v", types)
			}
			var blocks []anthropic.ContentBlockUnion
			m.Content = slices.DeleteFunc(m.Content, func(b anthropic.ContentBlockUnion) bool { return b.Type == "redacted_thinking" })
			if tc.text != "" {
				if len(m.Content) == 0 || m.Content[0].Type != "text" || m.Content[0].Text != tc.text {
					t.Fatalf("content %+v, want the text %q first", m.Content, tc.text)
				}
				blocks = m.Content[1:]
			} else {
				blocks = m.Content
			}
			if len(blocks) != len(tc.calls) {
				t.Fatalf("content: %+v", m.Content)
			}
			for i, w := range tc.calls {
				b := blocks[i]
				tu, ok := b.AsAny().(anthropic.ToolUseBlock)
				if !ok || !sameID(tu.ID, w.id) || tu.Name != w.name || !sameJSON(string(tu.Input), w.args) {
					t.Errorf("block %d: %T %q %q %s", i, b.AsAny(), b.ID, b.Name, b.Input)
				}
			}
			if m.StopReason != tc.stop || m.Model != tc.model || m.Role != "assistant" || m.ID == "" {
				t.Errorf("stop %q model %q role %q id %q", m.StopReason, m.Model, m.Role, m.ID)
			}
			if m.Usage.InputTokens != tc.input || m.Usage.OutputTokens != tc.output {
				t.Errorf("usage in %d out %d, want %d %d", m.Usage.InputTokens, m.Usage.OutputTokens, tc.input, tc.output)
			}
			wantSteps(t, g.recs.wait(t, 1), tc.target+"/"+tc.dialect+" ok done")
		})
	}
}

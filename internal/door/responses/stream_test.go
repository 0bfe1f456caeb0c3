package responses

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/responses"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/anthropic"
	"github.com/detour-llm/detour/internal/provider/gemini"
	"github.com/detour-llm/detour/internal/provider/openai"
)

// frame is one SSE frame the encoder wrote.
type frame struct {
	Event string
	Data  []byte
}

// parseFrames splits b into frames, failing t on anything that is not
// `event: <type>\ndata: <json>\n\n` with data.type equal to the event name.
func parseFrames(t testing.TB, b []byte) []frame {
	t.Helper()
	var out []frame
	for _, f := range strings.SplitAfter(string(b), "\n\n") {
		if f == "" {
			continue
		}
		ev, data, ok := strings.Cut(strings.TrimSuffix(f, "\n\n"), "\n")
		name, ok1 := strings.CutPrefix(ev, "event: ")
		payload, ok2 := strings.CutPrefix(data, "data: ")
		if !ok || !ok1 || !ok2 || strings.Contains(payload, "\n") {
			t.Fatalf("bad frame %q", f)
		}
		var probe struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal([]byte(payload), &probe); err != nil || probe.Type != name {
			t.Fatalf("frame %q: data.type %q, err %v", name, probe.Type, err)
		}
		out = append(out, frame{name, []byte(payload)})
	}
	return out
}

// checkSequence asserts sequence_number counts 0, 1, 2... over frames.
func checkSequence(t testing.TB, frames []frame) {
	t.Helper()
	for i, f := range frames {
		var s struct {
			N *int `json:"sequence_number"`
		}
		if json.Unmarshal(f.Data, &s) != nil || s.N == nil || *s.N != i {
			t.Fatalf("frame %d (%s): sequence_number %v", i, f.Event, s.N)
		}
	}
}

// accumulate feeds frames to openai-go's own ResponseAccumulator, which
// rejects events out of protocol, and returns its reconstructed response.
func accumulate(t testing.TB, frames []frame) *responses.Response {
	t.Helper()
	var acc responses.ResponseAccumulator
	for _, f := range frames {
		var ev responses.ResponsesServerEventUnion
		if err := json.Unmarshal(f.Data, &ev); err != nil {
			t.Fatalf("%s: openai-go cannot decode: %v", f.Event, err)
		}
		if err := acc.AddEvent(ev); err != nil {
			t.Fatalf("%s: openai-go accumulator: %v\n%s", f.Event, err, f.Data)
		}
	}
	r, err := acc.ReconstructedResponse()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func types(frames []frame) []string {
	out := make([]string, len(frames))
	for i, f := range frames {
		out[i] = f.Event
	}
	return out
}

// encode feeds chunks to a new Stream and ends it.
func encode(t testing.TB, chunks []string) []frame {
	t.Helper()
	s := NewStream(nil, "route", 1767225600)
	var all []byte
	for _, c := range chunks {
		b, err := s.Chunk([]byte(c))
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	all = append(all, s.End()...)
	frames := parseFrames(t, all)
	checkSequence(t, frames)
	return frames
}

// openAIChunks is a text-then-tool-call answer in the shape OpenAI streams
// chat completions (https://platform.openai.com/docs/api-reference/chat-streaming):
// a role delta, content deltas, a tool call whose first piece carries id and
// name, argument pieces, the finish_reason chunk and the usage chunk with
// empty choices (stream_options.include_usage).
var openAIChunks = []string{
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{"content":"Let me "},"finish_reason":null}]}`,
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{"content":"check."},"finish_reason":null}]}`,
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_abc","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}`,
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"location\":"}}]},"finish_reason":null}]}`,
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]},"finish_reason":null}]}`,
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
	`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":9,"total_tokens":29,"prompt_tokens_details":{"cached_tokens":4}}}`,
}

func TestStreamEventOrder(t *testing.T) {
	frames := encode(t, openAIChunks)
	want := []string{
		"response.created", "response.in_progress",
		"response.output_item.added", "response.content_part.added",
		"response.output_text.delta", "response.output_text.delta",
		"response.output_text.done", "response.content_part.done", "response.output_item.done",
		"response.output_item.added",
		"response.function_call_arguments.delta", "response.function_call_arguments.delta",
		"response.function_call_arguments.done", "response.output_item.done",
		"response.completed",
	}
	if got := types(frames); !slices.Equal(got, want) {
		t.Fatalf("events:\n got %q\nwant %q", got, want)
	}
	r := accumulate(t, frames)
	if r.Status != "completed" || r.Model != "gpt-4.1" || !strings.HasPrefix(r.ID, "resp_") {
		t.Fatalf("status %q model %q id %q", r.Status, r.Model, r.ID)
	}
	if r.OutputText() != "Let me check." {
		t.Fatalf("text %q", r.OutputText())
	}
	if len(r.Output) != 2 {
		t.Fatalf("output items %d", len(r.Output))
	}
	fc := r.Output[1].AsFunctionCall()
	if fc.CallID != "call_abc" || fc.Name != "get_weather" || fc.Arguments != `{"location":"Paris"}` {
		t.Fatalf("function call %+v", fc)
	}
	if u := r.Usage; u.InputTokens != 20 || u.OutputTokens != 9 || u.TotalTokens != 29 || u.InputTokensDetails.CachedTokens != 4 {
		t.Fatalf("usage %+v", u)
	}
}

func TestStreamLengthIsIncomplete(t *testing.T) {
	frames := encode(t, []string{
		`{"choices":[{"index":0,"delta":{"content":"Once upon"},"finish_reason":null}]}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}`,
	})
	last := frames[len(frames)-1]
	if last.Event != "response.incomplete" {
		t.Fatalf("last event %s", last.Event)
	}
	r := accumulate(t, frames)
	if r.Status != "incomplete" || r.IncompleteDetails.Reason != "max_output_tokens" || r.OutputText() != "Once upon" {
		t.Fatalf("status %q reason %q text %q", r.Status, r.IncompleteDetails.Reason, r.OutputText())
	}
}

func TestStreamFail(t *testing.T) {
	t.Run("after output", func(t *testing.T) {
		s := NewStream(nil, "route", 1)
		b, _ := s.Chunk([]byte(openAIChunks[1]))
		b = append(b, s.Fail("server_error", "server_error", "upstream cut the stream")...)
		if again := s.Fail("x", "x", "y"); again != nil {
			t.Fatalf("second Fail wrote %q", again)
		}
		if _, err := s.Chunk([]byte(openAIChunks[2])); !errors.Is(err, ErrEnded) {
			t.Fatalf("chunk after Fail: %v", err)
		}
		frames := parseFrames(t, b)
		checkSequence(t, frames)
		if got := frames[len(frames)-1].Event; got != "response.failed" {
			t.Fatalf("last event %s", got)
		}
		// Before it, the error event: clients that ignore response.failed
		// (LangChain's ChatOpenAI) see the failure there, and the openai
		// SDKs throw at it (docs/doors.md).
		var ev responses.ResponseErrorEvent
		if f := frames[len(frames)-2]; f.Event != "error" || json.Unmarshal(f.Data, &ev) != nil ||
			ev.Code != "server_error" || ev.Message != "upstream cut the stream" {
			t.Fatalf("the event before response.failed is %s %s, want the error event", f.Event, f.Data)
		}
		// openai-go's accumulator takes the error event for the failure
		// it is; the response is response.failed's.
		r := accumulate(t, append(frames[:len(frames)-2:len(frames)-2], frames[len(frames)-1]))
		if r.Status != "failed" || r.Error.Code != "server_error" || r.Error.Message != "upstream cut the stream" {
			t.Fatalf("status %q error %+v", r.Status, r.Error)
		}
	})
	t.Run("before output", func(t *testing.T) {
		s := NewStream(nil, "route", 1)
		frames := parseFrames(t, s.Fail("rate_limit_error", "rate_limit_exceeded", "every target is cooling"))
		if len(frames) != 1 || frames[0].Event != "error" {
			t.Fatalf("frames %q", types(frames))
		}
		var ev responses.ResponseErrorEvent
		if err := json.Unmarshal(frames[0].Data, &ev); err != nil || ev.Code != "rate_limit_exceeded" || ev.Message != "every target is cooling" {
			t.Fatalf("error event %+v (%v)", ev, err)
		}
		if s.End() != nil {
			t.Fatal("End after Fail wrote frames")
		}
	})
}

func TestStreamBadChunkChangesNothing(t *testing.T) {
	s := NewStream(nil, "route", 1)
	if b, err := s.Chunk([]byte(`{"choices":[`)); err == nil || b != nil {
		t.Fatalf("malformed chunk: %q, %v", b, err)
	}
	frames := parseFrames(t, s.End())
	checkSequence(t, frames)
	if r := accumulate(t, frames); r.Status != "completed" || len(r.Output) != 0 {
		t.Fatalf("status %q output %d", r.Status, len(r.Output))
	}
}

// TestStreamFromAdapters runs published upstream transcripts (the adapters'
// own testdata, each citing its source) through the real Anthropic, Gemini
// and OpenAI adapters and then through the encoder, and checks the result
// with openai-go's accumulator against what the chunks carried.
func TestStreamFromAdapters(t *testing.T) {
	ep := provider.Endpoint{BaseURL: "http://upstream.invalid", Model: "m"}
	var openAISSE strings.Builder
	for _, c := range openAIChunks {
		openAISSE.WriteString("data: " + c + "\n\n")
	}
	openAISSE.WriteString("data: [DONE]\n\n")
	cases := []struct {
		file    string
		adapter provider.Adapter
	}{
		{"openAIChunks", openai.Adapter{}},
		{"../../provider/anthropic/testdata/stream/basic.sse", anthropic.Adapter{}},
		{"../../provider/anthropic/testdata/stream/tool_use.sse", anthropic.Adapter{}},
		{"../../provider/gemini/testdata/stream/basic.sse", gemini.Adapter{}},
		{"../../provider/gemini/testdata/stream/function_call_thinking.sse", gemini.Adapter{}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			raw := []byte(openAISSE.String())
			if c.file != "openAIChunks" {
				var err error
				if raw, err = os.ReadFile(c.file); err != nil {
					t.Fatal(err)
				}
			}
			up := c.adapter.Stream(bytes.NewReader(raw), ep)
			s := NewStream(nil, "route", 1)
			var out []byte
			var text strings.Builder
			args := map[string]*strings.Builder{}
			ids := map[int]string{}
			for {
				ev, err := up.Next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				for _, ch := range ev.Chunks {
					b, err := s.Chunk(ch)
					if err != nil {
						t.Fatal(err)
					}
					out = append(out, b...)
					wantFromChunk(t, ch, &text, args, ids)
				}
			}
			out = append(out, s.End()...)
			frames := parseFrames(t, out)
			checkSequence(t, frames)
			r := accumulate(t, frames)
			if r.OutputText() != text.String() {
				t.Fatalf("text %q, chunks carried %q", r.OutputText(), text.String())
			}
			calls := 0
			for _, it := range r.Output {
				if it.Type != "function_call" {
					continue
				}
				calls++
				fc := it.AsFunctionCall()
				if b := args[fc.CallID]; b == nil || b.String() != fc.Arguments {
					t.Fatalf("call %s arguments %q", fc.CallID, fc.Arguments)
				}
			}
			if calls != len(args) || r.Usage.TotalTokens == 0 {
				t.Fatalf("%d calls for %d in chunks, usage %+v", calls, len(args), r.Usage)
			}
		})
	}
}

// wantFromChunk accumulates what a canonical chunk carries: text, and tool
// call arguments by call id (ids maps a chunk's tool call index to its id).
func wantFromChunk(t testing.TB, ch []byte, text *strings.Builder, args map[string]*strings.Builder, ids map[int]string) {
	var c struct {
		Choices []struct {
			Delta struct {
				Content   string `json:"content"`
				ToolCalls []struct {
					Index    int    `json:"index"`
					ID       string `json:"id"`
					Function struct {
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"delta"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(ch, &c); err != nil {
		t.Fatal(err)
	}
	for _, choice := range c.Choices {
		text.WriteString(choice.Delta.Content)
		for _, tc := range choice.Delta.ToolCalls {
			id := tc.ID
			if id == "" {
				id = ids[tc.Index]
			}
			if args[id] == nil {
				args[id] = &strings.Builder{}
				ids[tc.Index] = id
			}
			args[id].WriteString(tc.Function.Arguments)
		}
	}
}

// TestStreamRefusal: a chat refusal delta (OpenAI's structured-outputs
// refusals, https://platform.openai.com/docs/guides/structured-outputs#refusals)
// streams as response.refusal.delta into a refusal part.
func TestStreamRefusal(t *testing.T) {
	frames := encode(t, []string{
		`{"choices":[{"index":0,"delta":{"role":"assistant","refusal":""},"finish_reason":null}]}`,
		`{"choices":[{"index":0,"delta":{"refusal":"I'm sorry, "},"finish_reason":null}]}`,
		`{"choices":[{"index":0,"delta":{"refusal":"I cannot help."},"finish_reason":null}]}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
	})
	want := []string{
		"response.created", "response.in_progress",
		"response.output_item.added", "response.content_part.added",
		"response.refusal.delta", "response.refusal.delta",
		"response.refusal.done", "response.content_part.done", "response.output_item.done",
		"response.completed",
	}
	if got := types(frames); !slices.Equal(got, want) {
		t.Fatalf("events:\n got %q\nwant %q", got, want)
	}
	r := accumulate(t, frames)
	if len(r.Output) != 1 || r.Output[0].AsMessage().Content[0].Refusal != "I'm sorry, I cannot help." || r.OutputText() != "" {
		t.Fatalf("output %+v", r.Output)
	}
}

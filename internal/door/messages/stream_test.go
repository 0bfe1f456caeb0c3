package messages

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/anthropic"
	"github.com/detour-llm/detour/internal/provider/gemini"
	"github.com/detour-llm/detour/internal/signkey"
)

// encode feeds chunks to a fresh encoder and returns every frame, End's
// included.
func encode(t testing.TB, model string, chunks [][]byte) []byte {
	t.Helper()
	e := NewEncoder(model)
	var out []byte
	for _, c := range chunks {
		b, err := e.Chunk(c)
		if err != nil {
			t.Fatalf("chunk %s: %v", c, err)
		}
		out = append(out, b...)
	}
	return append(out, e.End()...)
}

// adapterChunks runs an upstream SSE transcript through a real adapter and
// returns the canonical chunks it emits, as dispatch hands them on.
func adapterChunks(t testing.TB, a provider.Adapter, path, model string) [][]byte {
	t.Helper()
	body, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := a.Stream(bytes.NewReader(body), provider.Endpoint{Model: model, Signing: signkey.New([]byte("test signing key"))}) // a Gemini call carries its signature (docs/doors.md)
	var out [][]byte
	for {
		ev, err := s.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range ev.Chunks {
			out = append(out, bytes.Clone(c))
		}
	}
}

// TestStreamThroughAnthropicAdapter re-encodes Anthropic's own published
// streams (anthropic-sdk-python tests/lib/streaming/fixtures, kept in
// internal/provider/anthropic/testdata/stream) after the anthropic adapter
// turned them into canonical chunks: the message a client folds from our
// stream must be the message it folds from Anthropic's.
func TestStreamThroughAnthropicAdapter(t *testing.T) {
	for _, name := range []string{"basic", "tool_use"} {
		t.Run(name, func(t *testing.T) {
			path := "../../provider/anthropic/testdata/stream/" + name + ".sse"
			orig, _ := os.ReadFile(path)
			want := accumulate(t, parseFrames(t, orig))
			got := accumulate(t, parseFrames(t, encode(t, "claude", adapterChunks(t, anthropic.Adapter{}, path, "claude"))))
			if got.ID != want.ID || got.Model != want.Model || got.StopReason != want.StopReason ||
				got.OutputTokens != want.OutputTokens || got.InputTokens != want.InputTokens {
				t.Errorf("got %+v\nwant %+v", got, want)
			}
			if len(got.Blocks) != len(want.Blocks) {
				t.Fatalf("blocks %+v, want %+v", got.Blocks, want.Blocks)
			}
			for i := range want.Blocks {
				g, w := got.Blocks[i], want.Blocks[i]
				if g.Type != w.Type || g.Text != w.Text || g.ID != w.ID || g.Name != w.Name ||
					(w.Type == "tool_use" && compactJSON(t, g.JSON) != compactJSON(t, w.JSON)) {
					t.Errorf("block %d: %+v, want %+v", i, g, w)
				}
			}
		})
	}
}

// TestStreamThroughGeminiAdapter encodes a published Gemini stream with
// thoughts and a function call (FirebaseExtended/vertexai-sdk-test-data,
// kept in internal/provider/gemini/testdata/stream) after the gemini
// adapter: the call's thought signature in a redacted_thinking block
// (docs/doors.md, "Gemini thought signatures"), then one tool_use block,
// stop_reason tool_use, Gemini's usage.
func TestStreamThroughGeminiAdapter(t *testing.T) {
	path := "../../provider/gemini/testdata/stream/function_call_thinking.sse"
	got := accumulate(t, parseFrames(t, encode(t, "g", adapterChunks(t, gemini.Adapter{}, path, "g"))))
	if len(got.Blocks) != 2 || got.Blocks[0].Type != "redacted_thinking" || got.Blocks[1].Type != "tool_use" || got.Blocks[1].Name != "now" ||
		compactJSON(t, got.Blocks[1].JSON) != "{}" || got.Blocks[1].ID == "" {
		t.Errorf("blocks %+v", got.Blocks)
	}
	if got.StopReason != "tool_use" || got.InputTokens != 38 || got.OutputTokens != 174 || got.Model != "gemini-2.5-flash" {
		t.Errorf("got %+v", got)
	}
}

// TestStreamOpenAIChunks feeds chunks shaped as OpenAI streams them (Chat
// Completions streaming reference, https://platform.openai.com/docs/api-reference/chat-streaming:
// a role chunk, content pieces, tool call pieces by index, a finish_reason
// chunk, and with stream_options.include_usage a last chunk with empty
// choices and the usage), plus DeepSeek's reasoning_content deltas
// (https://api-docs.deepseek.com/guides/reasoning_model), and checks the
// exact frames.
func TestStreamOpenAIChunks(t *testing.T) {
	chunks := []string{
		`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
		`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"reasoning_content":"Hmm"},"finish_reason":null}]}`,
		`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"Hi <b>"},"finish_reason":null}]}`,
		`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":""}}]},"finish_reason":null}]}`,
		`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"location\":"}}]},"finish_reason":null}]}`,
		`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris\"}"}}]},"finish_reason":null}]}`,
		`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[],"usage":{"prompt_tokens":20,"completion_tokens":9,"total_tokens":29,"prompt_tokens_details":{"cached_tokens":8}}}`,
	}
	var cs [][]byte
	for _, c := range chunks {
		cs = append(cs, []byte(c))
	}
	want := `event: message_start
data: {"type":"message_start","message":{"id":"chatcmpl-1","type":"message","role":"assistant","model":"gpt-4o","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Hmm"}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"detour1.reasoning"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: content_block_start
data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Hi \u003cb\u003e"}}

event: content_block_stop
data: {"type":"content_block_stop","index":1}

event: content_block_start
data: {"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"call_1","name":"get_weather","input":{}}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"location\":"}}

event: content_block_delta
data: {"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"\"Paris\"}"}}

event: content_block_stop
data: {"type":"content_block_stop","index":2}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"input_tokens":12,"output_tokens":9,"cache_read_input_tokens":8,"cache_creation_input_tokens":0}}

event: message_stop
data: {"type":"message_stop"}

`
	if got := string(encode(t, "route", cs)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestStreamEnds covers the ends of a stream: End with no chunk, End and
// Error writing once, finish reasons, vLLM's stop string, the estimate in
// message_start, chunks that are not JSON.
func TestStreamEnds(t *testing.T) {
	e := NewEncoder("route")
	e.InputTokens = 42
	a := accumulate(t, parseFrames(t, e.End()))
	if a.Model != "route" || a.StopReason != "end_turn" || a.InputTokens != 42 || !strings.HasPrefix(a.ID, "msg_") {
		t.Errorf("empty stream: %+v", a)
	}
	if e.End() != nil {
		t.Error("frames after End")
	}
	if b, err := e.Chunk([]byte(`{}`)); b != nil || err != nil {
		t.Error("chunk after End wrote")
	}

	for finish, want := range map[string]string{"stop": "end_turn", "length": "max_tokens", "content_filter": "refusal", "tool_calls": "tool_use"} {
		c := `{"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"` + finish + `"}]}`
		if a := accumulate(t, parseFrames(t, encode(t, "m", [][]byte{[]byte(c)}))); a.StopReason != want {
			t.Errorf("%s: stop_reason %q, want %q", finish, a.StopReason, want)
		}
	}
	// vLLM names the stop string it met in choices[].stop_reason.
	c := `{"choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop","stop_reason":"END"}]}`
	if a := accumulate(t, parseFrames(t, encode(t, "m", [][]byte{[]byte(c)}))); a.StopReason != "stop_sequence" || a.StopSequence == nil || *a.StopSequence != "END" {
		t.Errorf("stop sequence: %+v", a)
	}

	e = NewEncoder("m")
	if b, err := e.Chunk([]byte(`{"choices":[{"index":0,"delta":{"content":"par"}}]}`)); err != nil || len(b) == 0 {
		t.Fatal(err)
	}
	if b, err := e.Chunk([]byte(`not json`)); err == nil || b != nil {
		t.Error("bad chunk: want an error and nothing written")
	}
	fr := parseFrames(t, ErrorEvent(classify.ServerError, StatusOverloaded, "all targets overloaded", ""))
	if len(fr) != 1 || fr[0].Event != "error" ||
		string(fr[0].Data) != `{"type":"error","error":{"type":"overloaded_error","message":"all targets overloaded"}}` {
		t.Errorf("error frame %s", fr)
	}
}

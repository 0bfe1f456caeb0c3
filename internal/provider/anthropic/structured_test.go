package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"github.com/detour-llm/detour/internal/sse"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// sseFile opens testdata/stream/name.
func sseFile(t *testing.T, name string) io.Reader {
	t.Helper()
	b, err := os.ReadFile("testdata/stream/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.NewReader(b)
}

// chunkOf decodes the one choice of a translated chunk.
func chunkOf(t *testing.T, b []byte) (content *string, calls int, finish *string) {
	t.Helper()
	var c struct {
		Choices []struct {
			Delta struct {
				Content   *string           `json:"content"`
				ToolCalls []json.RawMessage `json:"tool_calls"`
			} `json:"delta"`
			FinishReason *string `json:"finish_reason"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(b, &c); err != nil || len(c.Choices) != 1 {
		t.Fatalf("chunk %s: %v", b, err)
	}
	ch := c.Choices[0]
	return ch.Delta.Content, len(ch.Delta.ToolCalls), ch.FinishReason
}

// The answer tool's input arrives as content, fragment by fragment: the
// tool's start is not content (the gateway can still fail over), each
// non-empty input_json_delta is one content delta, no chunk carries a tool
// call, and the end is finish_reason "stop".
func TestStructuredStreamEventByEvent(t *testing.T) {
	got := adaptertest.Events(t, testStream(sseFile(t, "json_answer.sse")))
	// message_start, content_block_start, ping, 4 deltas, block stop,
	// message_delta, message_stop.
	if len(got) != 10 {
		t.Fatalf("%d events: %+v", len(got), got)
	}
	if got[0].Content || got[1].Content || len(got[1].Chunks) != 0 || got[2].Content || got[3].Content || len(got[3].Chunks) != 0 {
		t.Fatalf("before the first fragment: %+v", got[:4])
	}
	var text strings.Builder
	for i, want := range []string{`{"name": "Scien`, `ce Fair", "date": "Friday", `, `"participants": ["Alice", "Bob"]}`} {
		ev := got[4+i]
		if !ev.Content || len(ev.Chunks) != 1 {
			t.Fatalf("fragment %d: %+v", i, ev)
		}
		c, calls, fin := chunkOf(t, ev.Chunks[0])
		if c == nil || *c != want || calls != 0 || fin != nil {
			t.Fatalf("fragment %d: %s", i, ev.Chunks[0])
		}
		text.WriteString(*c)
	}
	if got[7].Content || len(got[7].Chunks) != 0 {
		t.Fatalf("block stop: %+v", got[7])
	}
	if !got[8].Finished || len(got[8].Chunks) != 2 { // the finish, then the usage in a chunk of its own
		t.Fatalf("message_delta: %+v", got[8])
	}
	if _, calls, fin := chunkOf(t, got[8].Chunks[0]); fin == nil || *fin != "stop" || calls != 0 {
		t.Fatalf("finish: %s", got[8].Chunks[0])
	}
	if !got[9].Done {
		t.Fatalf("message_stop: %+v", got[9])
	}
	var v struct {
		Name         string
		Date         string
		Participants []string
	}
	if err := json.Unmarshal([]byte(text.String()), &v); err != nil || v.Name != "Science Fair" || len(v.Participants) != 2 {
		t.Fatalf("content %q: %v", text.String(), err)
	}
}

// The wrapping answer tool's value is sent whole, unwrapped, when its block
// ends: nothing before that is content.
func TestStructuredStreamValue(t *testing.T) {
	got := adaptertest.Events(t, testStream(sseFile(t, "json_value.sse")))
	if len(got) != 7 {
		t.Fatalf("%d events: %+v", len(got), got)
	}
	for i := 1; i < 4; i++ {
		if got[i].Content || len(got[i].Chunks) != 0 {
			t.Fatalf("event %d: %+v", i, got[i])
		}
	}
	if !got[4].Content || len(got[4].Chunks) != 1 {
		t.Fatalf("block stop: %+v", got[4])
	}
	if c, calls, _ := chunkOf(t, got[4].Chunks[0]); c == nil || *c != `["red","green","blue"]` || calls != 0 {
		t.Fatalf("value: %s", got[4].Chunks[0])
	}
	if _, _, fin := chunkOf(t, got[5].Chunks[0]); fin == nil || *fin != "stop" {
		t.Fatalf("finish: %s", got[5].Chunks[0])
	}
}

// With the client's tools beside the answer tool, a client tool call keeps
// its tool_calls index 0 and finish_reason tool_calls, even when the answer
// tool's block came first.
func TestStructuredStreamBesideClientTool(t *testing.T) {
	in := "data: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"model\":\"claude-sonnet-4-5\"}}\n\n" +
		"data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"a\",\"name\":\"detour_json_answer\",\"input\":{}}}\n\n" +
		"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{}\"}}\n\n" +
		"data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"b\",\"name\":\"get_weather\",\"input\":{}}}\n\n" +
		"data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"}}\n\n"
	got := adaptertest.Events(t, testStream(strings.NewReader(in)))
	if len(got) != 5 || !strings.Contains(string(got[3].Chunks[0]), `"tool_calls":[{"index":0,"id":"b"`) {
		t.Fatalf("client call: %+v", got)
	}
	if _, _, fin := chunkOf(t, got[4].Chunks[0]); fin == nil || *fin != "tool_calls" {
		t.Fatalf("finish: %s", got[4].Chunks[0])
	}
}

// The whole answer: the answer tool's input is the content; text beside it
// is dropped (the content must parse); a client call beside it stays a
// tool call and the finish is tool_calls.
func TestStructuredResponseBesideClientTool(t *testing.T) {
	out, err := Adapter{}.Response([]byte(`{"type":"message","stop_reason":"tool_use","content":[`+
		`{"type":"text","text":"Here it is."},`+
		`{"type":"tool_use","id":"a","name":"detour_json_answer","input":{"ok":true}},`+
		`{"type":"tool_use","id":"b","name":"get_weather","input":{"location":"Paris"}}]}`), testEP)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Choices []struct {
			FinishReason string `json:"finish_reason"`
			Message      struct {
				Content   *string
				ToolCalls []struct{ ID string } `json:"tool_calls"`
			}
		}
	}
	if err := json.Unmarshal(out, &c); err != nil {
		t.Fatal(err)
	}
	m := c.Choices[0].Message
	if m.Content == nil || *m.Content != `{"ok":true}` || len(m.ToolCalls) != 1 || m.ToolCalls[0].ID != "b" || c.Choices[0].FinishReason != "tool_calls" {
		t.Fatalf("got %s", out)
	}
}

// A client tool may not take a reserved name: its calls would come back as
// the message content. That is a translation error (the route moves on).
func TestTranslateRefusesReservedToolName(t *testing.T) {
	for _, name := range []string{AnswerTool, ValueTool} {
		body := `{"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"` + name + `"}}]}`
		if _, err := Translate(&provider.Request{Body: []byte(body)}, "m"); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: err = %v", name, err)
		}
		body = `{"messages":[{"role":"user","content":"hi"}],"tool_choice":{"type":"function","function":{"name":"` + name + `"}}}`
		if _, err := Translate(&provider.Request{Body: []byte(body)}, "m"); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("tool_choice %s: err = %v", name, err)
		}
	}
}

// A ValueTool input is gathered up to maxValue; a fragment past it ends the
// stream with sse.ErrEventTooLarge (a server_error), so a hostile upstream
// can neither grow it without bound nor have a value reach the client with
// a piece missing.
func TestStructuredStreamValueBound(t *testing.T) {
	defer func(n int) { maxValue = n }(maxValue)
	maxValue = 12
	in := "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"a\",\"name\":\"detour_json_value\",\"input\":{}}}\n\n" +
		"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"value\\\": 1\"}}\n\n" +
		"data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"23456789}\"}}\n\n"
	st := testStream(strings.NewReader(in))
	for i := 0; ; i++ {
		ev, err := st.Next()
		if err == nil {
			if ev.Content {
				t.Fatalf("event %d: content before the value was whole: %+v", i, ev)
			}
			continue
		}
		if !errors.Is(err, sse.ErrEventTooLarge) || i != 2 {
			t.Fatalf("event %d: %v, want sse.ErrEventTooLarge at the third", i, err)
		}
		break
	}
}

package responses

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/adaptertest"
	"github.com/detour-llm/detour/internal/provider/anthropic"
	"github.com/detour-llm/detour/internal/provider/chat"
)

// TestFunctionCallRoundTrip plays the loop a Responses client runs: the
// answer's function_call items go back in the next request's input with a
// function_call_output, and the next canonical request must carry the same
// call (id, name, arguments) and its result, which the Anthropic adapter
// then pairs as tool_use and tool_result.
func TestFunctionCallRoundTrip(t *testing.T) {
	// The canonical completion the Anthropic adapter makes of Anthropic's
	// published tool_use answer.
	f := adaptertest.ReadFixture(t, "../../provider/anthropic/testdata/response/tool_use.json")
	answer, err := FromCompletion(f.Want, nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	var resp struct {
		Output []json.RawMessage `json:"output"`
	}
	if err := json.Unmarshal(answer, &resp); err != nil {
		t.Fatal(err)
	}
	input := []json.RawMessage{json.RawMessage(`{"role":"user","content":"What's the weather like in San Francisco?"}`)}
	var callID string
	for _, it := range resp.Output {
		var typed struct {
			Type   string `json:"type"`
			CallID string `json:"call_id"`
		}
		_ = json.Unmarshal(it, &typed)
		input = append(input, it) // output items go back as input items, as OpenAI documents
		if typed.Type == "function_call" {
			callID = typed.CallID
		}
	}
	if callID == "" {
		t.Fatalf("no function_call in %s", answer)
	}
	input = append(input, json.RawMessage(`{"type":"function_call_output","call_id":"`+callID+`","output":"15 degrees"}`))
	in, _ := json.Marshal(input)
	next, err := Translate([]byte(`{"model":"m","input":` + string(in) + `,"tools":[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"location":{"type":"string"}}}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var canon struct {
		Messages []struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			ToolCallID string          `json:"tool_call_id"`
			ToolCalls  []chat.ToolCall `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(next.Chat, &canon); err != nil {
		t.Fatal(err)
	}
	var want struct {
		Choices []struct {
			Message struct {
				Content   *string         `json:"content"`
				ToolCalls []chat.ToolCall `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
	}
	_ = json.Unmarshal(f.Want, &want)
	m := canon.Messages
	if len(m) != 3 || m[0].Role != "user" || m[1].Role != "assistant" || m[2].Role != "tool" {
		t.Fatalf("messages %s", next.Chat)
	}
	if got, w := m[1].ToolCalls, want.Choices[0].Message.ToolCalls; len(got) != 1 || !reflect.DeepEqual(got[0], w[0]) {
		t.Fatalf("tool calls %+v, want %+v", got, w)
	}
	if wc := want.Choices[0].Message.Content; wc != nil {
		var text string
		_ = json.Unmarshal(m[1].Content, &text)
		if text != *wc {
			t.Fatalf("assistant text %q, want %q", text, *wc)
		}
	}
	if m[2].ToolCallID != callID || string(m[2].Content) != `"15 degrees"` {
		t.Fatalf("tool message %+v", m[2])
	}
	up, err := anthropic.Translate(&provider.Request{Body: next.Chat}, "claude-sonnet-4-5")
	if err != nil {
		t.Fatal(err)
	}
	var msgs struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type      string `json:"type"`
				ID        string `json:"id"`
				ToolUseID string `json:"tool_use_id"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(up, &msgs); err != nil {
		t.Fatal(err)
	}
	var used, answered string
	for _, msg := range msgs.Messages {
		for _, c := range msg.Content {
			switch c.Type {
			case "tool_use":
				used = c.ID
			case "tool_result":
				answered = c.ToolUseID
			}
		}
	}
	if used != callID || answered != callID {
		t.Fatalf("anthropic tool_use %q, tool_result %q, want %q: %s", used, answered, callID, up)
	}
}

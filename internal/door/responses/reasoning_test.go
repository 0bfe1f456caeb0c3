package responses

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// Round 53: an OpenAI-compatible model's reasoning (DeepSeek's and Kimi's
// thinking modes, vLLM's reasoning parsers: reasoning_content) reaches a
// Responses client as a reasoning item, and the client's reasoning items
// go back as the next assistant turn's reasoning_content. Without it Codex
// and the Agents SDK failed every tool loop on DeepSeek's thinking mode at
// its second step ("The reasoning_content in the thinking mode must be
// passed back to the API", a 400), as LiteLLM's Responses bridge did
// (BerriAI/litellm#26395).

// deepSeekToolCall is DeepSeek's thinking-mode answer to a tool request
// (https://api-docs.deepseek.com/guides/thinking_mode#tool-calls).
const deepSeekToolCall = `{"id":"b7f3c2a1","object":"chat.completion","created":1777000000,"model":"deepseek-v4-flash","choices":[{"index":0,"message":{"role":"assistant","content":"","reasoning_content":"The user wants the weather. I should call get_weather.","tool_calls":[{"index":0,"id":"call_00_ds4weather0001","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Hangzhou\"}"}}]},"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":120,"completion_tokens":40,"total_tokens":160,"completion_tokens_details":{"reasoning_tokens":20}}}`

func TestFromCompletionReasoningItem(t *testing.T) {
	b, err := FromCompletion([]byte(deepSeekToolCall), nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Output []struct {
			Type    string `json:"type"`
			ID      string `json:"id"`
			Status  string `json:"status"`
			Summary []any  `json:"summary"`
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
			Name string `json:"name"`
		} `json:"output"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Output) != 2 || r.Output[0].Type != "reasoning" || r.Output[1].Type != "function_call" {
		t.Fatalf("output %s", b)
	}
	rs := r.Output[0]
	if !strings.HasPrefix(rs.ID, "rs_") || rs.Status != "completed" || rs.Summary == nil || len(rs.Content) != 1 ||
		rs.Content[0].Type != "reasoning_text" || rs.Content[0].Text != "The user wants the weather. I should call get_weather." {
		t.Fatalf("reasoning item %s", b)
	}
	// OpenRouter names it reasoning; an answer without any has no item.
	b, _ = FromCompletion([]byte(`{"choices":[{"message":{"content":"hi","reasoning":"thought"},"finish_reason":"stop"}]}`), nil, 1)
	if !strings.Contains(string(b), `"content":[{"type":"reasoning_text","text":"thought"}]`) {
		t.Fatalf("OpenRouter reasoning: %s", b)
	}
	b, _ = FromCompletion([]byte(`{"choices":[{"message":{"content":"hi","reasoning_content":""},"finish_reason":"stop"}]}`), nil, 1)
	if strings.Contains(string(b), `"reasoning_text"`) {
		t.Fatalf("empty reasoning made an item: %s", b)
	}
}

// deepSeekStream is DeepSeek's thinking-mode stream: reasoning_content
// deltas, then content, then a tool call.
var deepSeekStream = []string{
	`{"id":"d1","object":"chat.completion.chunk","created":1,"model":"deepseek-v4-flash","choices":[{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":""},"finish_reason":null}]}`,
	`{"id":"d1","object":"chat.completion.chunk","created":1,"model":"deepseek-v4-flash","choices":[{"index":0,"delta":{"content":null,"reasoning_content":"The user wants "},"finish_reason":null}]}`,
	`{"id":"d1","object":"chat.completion.chunk","created":1,"model":"deepseek-v4-flash","choices":[{"index":0,"delta":{"content":null,"reasoning_content":"the weather."},"finish_reason":null}]}`,
	`{"id":"d1","object":"chat.completion.chunk","created":1,"model":"deepseek-v4-flash","choices":[{"index":0,"delta":{"content":"Checking.","reasoning_content":null},"finish_reason":null}]}`,
	`{"id":"d1","object":"chat.completion.chunk","created":1,"model":"deepseek-v4-flash","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_00_x","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Hangzhou\"}"}}]},"finish_reason":null}]}`,
	`{"id":"d1","object":"chat.completion.chunk","created":1,"model":"deepseek-v4-flash","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":10,"completion_tokens":20,"total_tokens":30,"completion_tokens_details":{"reasoning_tokens":8}}}`,
}

func TestStreamReasoningItem(t *testing.T) {
	frames := encode(t, deepSeekStream)
	want := []string{
		"response.created", "response.in_progress",
		"response.output_item.added", "response.content_part.added",
		"response.reasoning_text.delta", "response.reasoning_text.delta",
		"response.reasoning_text.done", "response.content_part.done", "response.output_item.done",
		"response.output_item.added", "response.content_part.added", "response.output_text.delta",
		"response.output_text.done", "response.content_part.done", "response.output_item.done",
		"response.output_item.added", "response.function_call_arguments.delta",
		"response.function_call_arguments.done", "response.output_item.done",
		"response.completed",
	}
	if got := types(frames); !slices.Equal(got, want) {
		t.Fatalf("events:\n got %q\nwant %q", got, want)
	}
	r := accumulate(t, frames) // openai-go's accumulator checks every index
	if len(r.Output) != 3 || r.Output[0].Type != "reasoning" {
		t.Fatalf("output %+v", r.Output)
	}
	rs := r.Output[0].AsReasoning()
	if len(rs.Content) != 1 || rs.Content[0].Type != "reasoning_text" || rs.Content[0].Text != "The user wants the weather." || rs.Status != "completed" {
		t.Fatalf("reasoning item %s", r.Output[0].RawJSON())
	}
	if r.OutputText() != "Checking." || r.Output[2].AsFunctionCall().CallID != "call_00_x" {
		t.Fatalf("text %q, call %s", r.OutputText(), r.Output[2].RawJSON())
	}
	if r.Usage.OutputTokensDetails.ReasoningTokens != 8 {
		t.Fatalf("usage %+v", r.Usage)
	}
}

// A stream the output limit cuts while the model still reasons closes its
// reasoning item incomplete; one that fails says it so in response.failed.
func TestStreamReasoningCutAndFailed(t *testing.T) {
	frames := encode(t, []string{
		`{"choices":[{"index":0,"delta":{"reasoning_content":"Let me think about"},"finish_reason":null}]}`,
		`{"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}`,
	})
	r := accumulate(t, frames)
	if r.Status != "incomplete" || len(r.Output) != 1 || r.Output[0].AsReasoning().Status != "incomplete" {
		t.Fatalf("status %q output %+v", r.Status, r.Output)
	}
	s := NewStream(nil, "route", 1)
	out, err := s.Chunk([]byte(`{"choices":[{"index":0,"delta":{"reasoning_content":"half a thought"},"finish_reason":null}]}`))
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, s.Fail("server_error", "server_error", "upstream cut")...)
	last := parseFrames(t, out)
	if f := last[len(last)-1]; f.Event != "response.failed" || !strings.Contains(string(f.Data), `"status":"incomplete","summary":[],"content":[{"type":"reasoning_text","text":"half a thought"}]`) {
		t.Fatalf("failed event %s", f.Data)
	}
}

// Reasoning after text (interleaved thinking) is an item of its own after
// the message, and the message is closed first.
func TestStreamReasoningAfterText(t *testing.T) {
	frames := encode(t, []string{
		`{"choices":[{"index":0,"delta":{"content":"First."},"finish_reason":null}]}`,
		`{"choices":[{"index":0,"delta":{"reasoning_content":"Now the call."},"finish_reason":null}]}`,
		`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}`,
	})
	r := accumulate(t, frames)
	var kinds []string
	for _, it := range r.Output {
		kinds = append(kinds, it.Type)
	}
	if !slices.Equal(kinds, []string{"message", "reasoning", "function_call"}) {
		t.Fatalf("output %q", kinds)
	}
}

// translateMessages translates a Responses body and returns its chat
// messages.
func translateMessages(t *testing.T, body string) []map[string]any {
	t.Helper()
	r, err := Translate([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Messages []map[string]any `json:"messages"`
	}
	if err := json.Unmarshal(r.Chat, &c); err != nil {
		t.Fatal(err)
	}
	return c.Messages
}

// The reasoning items Codex sends back (codex-rs serializes a reasoning
// item's content when it holds reasoning_text) and those the Agents SDK
// sends back (its providerData keeps the item's content beside a summary)
// go back as reasoning_content on the assistant turn after them.
func TestTranslateReasoningItemsGoBack(t *testing.T) {
	msgs := translateMessages(t, `{"model":"dsr","input":[
		{"type":"message","role":"user","content":[{"type":"input_text","text":"weather?"}]},
		{"type":"reasoning","summary":[],"content":[{"type":"reasoning_text","text":"I should call get_weather."}],"encrypted_content":null},
		{"type":"function_call","call_id":"call_1","name":"get_weather","arguments":"{}"},
		{"type":"function_call_output","call_id":"call_1","output":"sunny"},
		{"id":"rs_2","type":"reasoning","summary":[{"type":"summary_text","text":"a summary"}],"content":[{"type":"reasoning_text","text":"It is sunny."}],"status":"completed"},
		{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Sunny."}]},
		{"type":"message","role":"user","content":"and tomorrow?"}]}`)
	if len(msgs) != 5 {
		t.Fatalf("messages %v", msgs)
	}
	if msgs[1]["role"] != "assistant" || msgs[1]["reasoning_content"] != "I should call get_weather." || msgs[1]["tool_calls"] == nil {
		t.Fatalf("tool-call turn %v", msgs[1])
	}
	if msgs[3]["role"] != "assistant" || msgs[3]["reasoning_content"] != "It is sunny." {
		t.Fatalf("text turn %v", msgs[3])
	}
	if _, ok := msgs[4]["reasoning_content"]; ok {
		t.Fatalf("user turn %v", msgs[4])
	}
}

// What is not reasoning text stays behind: an OpenAI reasoning item
// (summary and encrypted content only), reasoning before a user turn, and
// reasoning a turn's text and its calls share joins on the one turn.
func TestTranslateReasoningItemsKeptApart(t *testing.T) {
	msgs := translateMessages(t, `{"model":"m","input":[
		{"type":"message","role":"user","content":"hi"},
		{"id":"rs_1","type":"reasoning","summary":[{"type":"summary_text","text":"summary only"}],"encrypted_content":"gAAAAB..."},
		{"type":"message","role":"assistant","content":"Hello."},
		{"type":"reasoning","summary":[],"content":[{"type":"reasoning_text","text":"orphan"}]},
		{"type":"message","role":"user","content":"call f"},
		{"type":"reasoning","summary":[],"content":[{"type":"reasoning_text","text":"one"}]},
		{"type":"message","role":"assistant","content":"Calling."},
		{"type":"reasoning","summary":[],"content":[{"type":"reasoning_text","text":"two"}]},
		{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},
		{"type":"function_call_output","call_id":"c","output":"ok"}]}`)
	if _, ok := msgs[1]["reasoning_content"]; ok {
		t.Fatalf("a summary went back as reasoning_content: %v", msgs[1])
	}
	for _, m := range msgs {
		if m["reasoning_content"] == "orphan" {
			t.Fatalf("reasoning before a user turn went somewhere: %v", msgs)
		}
	}
	if msgs[3]["reasoning_content"] != "one\ntwo" || msgs[3]["tool_calls"] == nil {
		t.Fatalf("turn %v", msgs[3])
	}
	if _, err := Translate([]byte(`{"model":"m","input":[{"type":"reasoning","content":"not a list"},{"role":"user","content":"x"}]}`)); err == nil {
		t.Fatal("a reasoning item whose content is not a list was taken")
	}
}

package responses

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/responses"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
	"github.com/detour-llm/detour/internal/provider/chat"
)

// decodeResponse decodes body with openai-go's Response type, as an SDK
// client would.
func decodeResponse(t testing.TB, body []byte) responses.Response {
	t.Helper()
	var r responses.Response
	if err := json.Unmarshal(body, &r); err != nil {
		t.Fatalf("openai-go cannot decode: %v\n%s", err, body)
	}
	if r.Object != "response" || !strings.HasPrefix(r.ID, "resp_") {
		t.Fatalf("object %q id %q", r.Object, r.ID)
	}
	return r
}

// The chat.completion example of
// https://platform.openai.com/docs/api-reference/chat/create (Default).
const chatExample = `{"id":"chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT","object":"chat.completion","created":1741569952,"model":"gpt-4.1-2025-04-14","choices":[{"index":0,"message":{"role":"assistant","content":"Hello! How can I assist you today?","refusal":null,"annotations":[]},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":19,"completion_tokens":10,"total_tokens":29,"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}},"service_tier":"default"}`

func TestFromCompletionText(t *testing.T) {
	req, err := Translate([]byte(`{"model":"route","input":"hi","instructions":"Be kind.","temperature":0.5,"metadata":{"k":"v"},"max_output_tokens":50}`))
	if err != nil {
		t.Fatal(err)
	}
	body, err := FromCompletion([]byte(chatExample), &req.Echo, 1)
	if err != nil {
		t.Fatal(err)
	}
	r := decodeResponse(t, body)
	if r.Status != "completed" || r.Model != "gpt-4.1-2025-04-14" || r.CreatedAt != 1741569952 {
		t.Fatalf("status %q model %q created %v", r.Status, r.Model, r.CreatedAt)
	}
	if r.OutputText() != "Hello! How can I assist you today?" || len(r.Output) != 1 {
		t.Fatalf("output %s", body)
	}
	m := r.Output[0].AsMessage()
	if m.Role != "assistant" || m.Status != "completed" || !strings.HasPrefix(m.ID, "msg_") {
		t.Fatalf("message %+v", m)
	}
	if u := r.Usage; u.InputTokens != 19 || u.OutputTokens != 10 || u.TotalTokens != 29 {
		t.Fatalf("usage %+v", u)
	}
	// The request's parameters come back as OpenAI echoes them.
	if r.Instructions.OfString != "Be kind." || r.Temperature != 0.5 || r.MaxOutputTokens != 50 || r.Metadata["k"] != "v" ||
		r.ToolChoice.OfToolChoiceMode != "auto" || !r.ParallelToolCalls {
		t.Fatalf("echo: %s", body)
	}
}

// TestFromCompletionAdapters turns the canonical completions the Anthropic
// and Gemini adapters produce from published vendor answers (their golden
// fixtures' "want") into Responses objects.
func TestFromCompletionAdapters(t *testing.T) {
	files := []string{
		"../../provider/anthropic/testdata/response/hello.json",
		"../../provider/anthropic/testdata/response/tool_use.json",
		"../../provider/gemini/testdata/response/basic.json",
		"../../provider/gemini/testdata/response/function_call_thinking.json",
	}
	for _, file := range files {
		t.Run(file, func(t *testing.T) {
			f := adaptertest.ReadFixture(t, file)
			var want struct {
				Choices []struct {
					Message struct {
						Content   *string         `json:"content"`
						ToolCalls []chat.ToolCall `json:"tool_calls"`
					} `json:"message"`
				} `json:"choices"`
				Usage *chat.Usage `json:"usage"`
			}
			if err := json.Unmarshal(f.Want, &want); err != nil {
				t.Fatal(err)
			}
			body, err := FromCompletion(f.Want, nil, 1)
			if err != nil {
				t.Fatal(err)
			}
			r := decodeResponse(t, body)
			msg := want.Choices[0].Message
			if msg.Content != nil && r.OutputText() != *msg.Content {
				t.Fatalf("text %q want %q", r.OutputText(), *msg.Content)
			}
			var calls []responses.ResponseFunctionToolCall
			for _, it := range r.Output {
				if it.Type == "function_call" {
					calls = append(calls, it.AsFunctionCall())
				}
			}
			if len(calls) != len(msg.ToolCalls) {
				t.Fatalf("%d calls, want %d", len(calls), len(msg.ToolCalls))
			}
			for i, tc := range msg.ToolCalls {
				if calls[i].CallID != tc.ID || calls[i].Name != tc.Function.Name || calls[i].Arguments != tc.Function.Arguments {
					t.Fatalf("call %d: %+v want %+v", i, calls[i], tc)
				}
			}
			if u := want.Usage; u != nil && (r.Usage.InputTokens != int64(u.PromptTokens) || r.Usage.OutputTokens != int64(u.CompletionTokens) ||
				r.Usage.InputTokensDetails.CachedTokens != int64(u.Cached())) {
				t.Fatalf("usage %+v want %+v", r.Usage, u)
			}
			if r.Status != "completed" {
				t.Fatalf("status %q", r.Status)
			}
		})
	}
}

func TestFromCompletionStatuses(t *testing.T) {
	cases := []struct {
		finish, status, reason string
	}{
		{"stop", "completed", ""},
		{"tool_calls", "completed", ""},
		{"length", "incomplete", "max_output_tokens"},
		{"content_filter", "incomplete", "content_filter"},
	}
	for _, c := range cases {
		body, err := FromCompletion([]byte(`{"model":"m","choices":[{"message":{"role":"assistant","content":"x"},"finish_reason":"`+c.finish+`"}],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5,"prompt_tokens_details":{"cached_tokens":1},"completion_tokens_details":{"reasoning_tokens":1}}}`), nil, 7)
		if err != nil {
			t.Fatal(err)
		}
		r := decodeResponse(t, body)
		if r.Status != responses.ResponseStatus(c.status) || r.IncompleteDetails.Reason != c.reason {
			t.Fatalf("%s: status %q reason %q", c.finish, r.Status, r.IncompleteDetails.Reason)
		}
		if r.Usage.InputTokensDetails.CachedTokens != 1 || r.Usage.OutputTokensDetails.ReasoningTokens != 1 || r.CreatedAt != 7 {
			t.Fatalf("%s: usage %+v created %v", c.finish, r.Usage, r.CreatedAt)
		}
	}
}

func TestFromCompletionRefusesUnusableBodies(t *testing.T) {
	for _, b := range []string{``, `{}`, `{"choices":[]}`, `{"choices":{}}`, `[]`} {
		if out, err := FromCompletion([]byte(b), nil, 1); err == nil {
			t.Fatalf("%q: got %s", b, out)
		}
	}
}

// TestFromCompletionRefusal: a chat refusal becomes a refusal content part.
func TestFromCompletionRefusal(t *testing.T) {
	body, err := FromCompletion([]byte(`{"model":"m","choices":[{"message":{"role":"assistant","content":null,"refusal":"I can't help with that."},"finish_reason":"stop"}]}`), nil, 1)
	if err != nil {
		t.Fatal(err)
	}
	r := decodeResponse(t, body)
	if len(r.Output) != 1 || r.Output[0].AsMessage().Content[0].Refusal != "I can't help with that." {
		t.Fatalf("%s", body)
	}
}

// Prompt-cache writes reach a Responses client as OpenAI's Responses usage
// says them, input_tokens_details.cache_write_tokens (openai-go's
// ResponseUsageInputTokensDetails, a required number), as the chat door
// says a Claude answer's cache_write_tokens: Anthropic bills them above
// plain input, and cost trackers read the member (review 48d: it was left
// out, and the writes counted as plain input).
func TestUsageCarriesCacheWrites(t *testing.T) {
	body, err := FromCompletion([]byte(`{"model":"claude","choices":[{"message":{"role":"assistant","content":"x"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1050,"completion_tokens":2,"total_tokens":1052,"prompt_tokens_details":{"cached_tokens":900,"cache_write_tokens":50}}}`), nil, 7)
	if err != nil {
		t.Fatal(err)
	}
	r := decodeResponse(t, body)
	if d := r.Usage.InputTokensDetails; d.CachedTokens != 900 || d.CacheWriteTokens != 50 {
		t.Errorf("input_tokens_details %+v, want cached 900 and cache writes 50", d)
	}
	if !strings.Contains(string(body), `"cache_write_tokens":50`) {
		t.Errorf("%s", body)
	}
}

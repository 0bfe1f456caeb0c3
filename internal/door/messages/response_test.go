package messages

import (
	"encoding/json"
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// TestAnswer translates chat.completion bodies into Anthropic Messages.
func TestAnswer(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{{
		// OpenAI Chat Completions reference, "Default" example response
		// (https://platform.openai.com/docs/api-reference/chat/create).
		name: "openai default",
		in: `{"id":"chatcmpl-123","object":"chat.completion","created":1677652288,"model":"gpt-4o-mini","system_fingerprint":"fp_44709d6fcb",
			"choices":[{"index":0,"message":{"role":"assistant","content":"\n\nHello there, how may I assist you today?"},"logprobs":null,"finish_reason":"stop"}],
			"usage":{"prompt_tokens":9,"completion_tokens":12,"total_tokens":21}}`,
		want: `{"id":"chatcmpl-123","type":"message","role":"assistant","model":"gpt-4o-mini",
			"content":[{"type":"text","text":"\n\nHello there, how may I assist you today?"}],
			"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":9,"output_tokens":12,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}`,
	}, {
		// Same reference, "Functions" example response: content null,
		// arguments a JSON string with newlines.
		name: "openai functions",
		in: `{"id":"chatcmpl-abc123","object":"chat.completion","created":1699896916,"model":"gpt-4o-mini",
			"choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_abc123","type":"function",
			"function":{"name":"get_current_weather","arguments":"{\n\"location\": \"Boston, MA\"\n}"}}]},"logprobs":null,"finish_reason":"tool_calls"}],
			"usage":{"prompt_tokens":82,"completion_tokens":17,"total_tokens":99,"prompt_tokens_details":{"cached_tokens":64}}}`,
		want: `{"id":"chatcmpl-abc123","type":"message","role":"assistant","model":"gpt-4o-mini",
			"content":[{"type":"tool_use","id":"call_abc123","name":"get_current_weather","input":{"location":"Boston, MA"}}],
			"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":18,"output_tokens":17,"cache_read_input_tokens":64,"cache_creation_input_tokens":0}}`,
	}, {
		// OpenRouter's usage with a cache write
		// (https://openrouter.ai/docs/use-cases/usage-accounting): the
		// written tokens are Anthropic's cache_creation_input_tokens, out
		// of input_tokens.
		name: "relayed cache write",
		in: `{"id":"gen-1","object":"chat.completion","created":1,"model":"anthropic/claude-opus-4.5",
			"choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],
			"usage":{"completion_tokens":2,"completion_tokens_details":{"reasoning_tokens":0},"cost":0.95,"cost_details":{"upstream_inference_cost":19},"prompt_tokens":194,"prompt_tokens_details":{"cached_tokens":0,"cache_write_tokens":100,"audio_tokens":0},"total_tokens":196}}`,
		want: `{"id":"gen-1","type":"message","role":"assistant","model":"anthropic/claude-opus-4.5",
			"content":[{"type":"text","text":"hi"}],
			"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":94,"output_tokens":2,"cache_read_input_tokens":0,"cache_creation_input_tokens":100}}`,
	}, {
		// LiteLLM's usage of a relayed Claude answer, its writes split by
		// the cache's lifetime (BerriAI/litellm,
		// tests/integration/translation/chat_completions/bases/azure_ai.py):
		// Anthropic's own cache_creation for a Messages client.
		name: "relayed cache write, split",
		in: `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"claude-opus-4-5",
			"choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],
			"usage":{"prompt_tokens":1021,"completion_tokens":393,"total_tokens":1414,"prompt_tokens_details":{"cached_tokens":0,"cache_write_tokens":1000,"cache_creation_token_details":{"ephemeral_5m_input_tokens":250,"ephemeral_1h_input_tokens":750}},"cache_creation_input_tokens":1000}}`,
		want: `{"id":"chatcmpl-1","type":"message","role":"assistant","model":"claude-opus-4-5",
			"content":[{"type":"text","text":"hi"}],
			"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":21,"output_tokens":393,"cache_read_input_tokens":0,"cache_creation_input_tokens":1000,"cache_creation":{"ephemeral_5m_input_tokens":250,"ephemeral_1h_input_tokens":750}}}`,
	}, {
		// DeepSeek reasoning model answer (reasoning_content,
		// https://api-docs.deepseek.com/guides/reasoning_model), cut by
		// length; no id or model in the body.
		name: "reasoning, length",
		in:   `{"choices":[{"index":0,"message":{"role":"assistant","reasoning_content":"Let me think.","content":"9.11 < 9.8"},"finish_reason":"length"}]}`,
		want: `{"id":"*","type":"message","role":"assistant","model":"route",
			"content":[{"type":"thinking","thinking":"Let me think.","signature":"detour1.reasoning"},{"type":"text","text":"9.11 < 9.8"}],
			"stop_reason":"max_tokens","stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}`,
	}, {
		// The canonical form of Anthropic's own stop_sequence answer (the
		// anthropic adapter maps it to "stop") and vLLM's named stop string.
		name: "stop sequence",
		in:   `{"id":"x","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"a"},"finish_reason":"stop","stop_reason":"###"}]}`,
		want: `{"id":"x","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"a"}],
			"stop_reason":"stop_sequence","stop_sequence":"###","usage":{"input_tokens":0,"output_tokens":0,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}`,
	}, {
		name: "refusal",
		in:   `{"id":"x","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"content_filter"}]}`,
		want: `{"id":"x","type":"message","role":"assistant","model":"m","content":[],
			"stop_reason":"refusal","stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}`,
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Answer([]byte(tc.in), "route")
			if err != nil {
				t.Fatal(err)
			}
			want := []byte(tc.want)
			if tc.name == "reasoning, length" {
				// A generated msg_ id: compare the rest.
				got = replaceID(t, got)
				want = replaceID(t, want)
			}
			adaptertest.SameJSON(t, got, want)
		})
	}
	for _, bad := range []string{`{}`, `{"choices":[]}`, `[`,
		`{"choices":[{"message":{"tool_calls":[{"id":"a","function":{"name":"f","arguments":"{\"a\":"}}]}}]}`} {
		if _, err := Answer([]byte(bad), "m"); err == nil {
			t.Errorf("%s: want an error", bad)
		}
	}
}

func replaceID(t *testing.T, b []byte) []byte {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if id, _ := m["id"].(string); id != "*" && len(id) != len("msg_")+24 {
		t.Errorf("generated id %q", id)
	}
	m["id"] = "*"
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

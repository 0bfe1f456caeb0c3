package splice

import "testing"

func TestPrefillRefused(t *testing.T) {
	cases := []struct {
		name   string
		status int
		body   string
		want   bool
	}{
		{"Anthropic Claude 4.6", 400, `{"type":"error","error":{"type":"invalid_request_error","message":"This model does not support assistant message prefill. The conversation must end with a user message."},"request_id":"req_011"}`, true},
		{"failoverbench wording", 400, `{"type":"error","error":{"type":"invalid_request_error","message":"This model does not support assistant message prefill…"}}`, true},
		{"other wording", 400, `{"type":"error","error":{"type":"invalid_request_error","message":"Prefilling assistant messages is not supported for this model."}}`, true},
		{"wrapped by Vertex", 400, `{"error":{"code":400,"message":"{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"This model does not support assistant message prefill. The conversation must end with a user message.\"}}","status":"INVALID_ARGUMENT"}}`, true},
		{"trailing whitespace", 400, `{"type":"error","error":{"type":"invalid_request_error","message":"messages: final assistant content cannot end with trailing whitespace"}}`, true},
		{"OpenAI does not know the parameter", 400, `{"error":{"message":"Unrecognized request argument supplied: continue_final_message","type":"invalid_request_error","param":null,"code":null}}`, true},
		{"server rejects add_generation_prompt", 422, `{"detail":[{"loc":["body","add_generation_prompt"],"msg":"extra fields not permitted"}]}`, true},
		{"a proxy's shorter wording", 400, `{"error":{"message":"Invalid request: the conversation must end with a user message"}}`, true},
		{"mid-stream error event", 200, `{"type":"error","error":{"type":"invalid_request_error","message":"This model does not support assistant message prefill."}}`, true},
		{"other bad request", 400, `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: 100000 > 64000, which is the maximum allowed"}}`, false},
		{"prefill mentioned, not refused", 400, `{"error":{"message":"prefill too long for context window"}}`, false},
		{"a 500 with the wording", 500, `This model does not support assistant message prefill.`, false},
		{"a 429", 429, `{"error":{"message":"prefill not supported; rate limited"}}`, false},
		{"empty 400", 400, ``, false},
		{"empty 200", 200, ``, false},
	}
	for _, tc := range cases {
		if got := PrefillRefused(tc.status, []byte(tc.body)); got != tc.want {
			t.Errorf("%s: PrefillRefused = %v, want %v", tc.name, got, tc.want)
		}
	}
}

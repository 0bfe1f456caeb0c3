package classify

import "testing"

// TestUnusableToolCallIn2xx: a 2xx whose only finish is the model's own
// malformed or unexpected tool call, with no content, is no answer: unknown
// (the model's output, not the client's input nor the provider's outage).
func TestUnusableToolCallIn2xx(t *testing.T) {
	run(t, []tc{
		{"openai shape", 200, nil, `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"MALFORMED_FUNCTION_CALL"}]}`, false, "unknown", "openai:finish_reason=MALFORMED_FUNCTION_CALL"},
		{"gemini shape", 200, nil, `{"candidates":[{"content":{"role":"model"},"finishReason":"MALFORMED_FUNCTION_CALL","index":0}]}`, false, "unknown", "gemini:finishReason=MALFORMED_FUNCTION_CALL"},
		{"unexpected tool call", 200, nil, `{"candidates":[{"finishReason":"UNEXPECTED_TOOL_CALL","index":0}]}`, false, "unknown", "gemini:finishReason=UNEXPECTED_TOOL_CALL"},
		{"with content it is an answer", 200, nil, `{"choices":[{"index":0,"message":{"role":"assistant","content":"Here you go"},"finish_reason":"MALFORMED_FUNCTION_CALL"}]}`, false, "ok", ""},
		{"gemini with parts is an answer", 200, nil, `{"candidates":[{"content":{"parts":[{"text":"hi"}]},"finishReason":"MALFORMED_FUNCTION_CALL"}]}`, false, "ok", ""},
		{"an empty stop is left to the adapters", 200, nil, `{"choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"stop"}]}`, false, "ok", ""},
	})
}

// TestWorkerErrorText: FastChat's worker envelope {"text","error_code"}
// carries its error message in text.
func TestWorkerErrorText(t *testing.T) {
	run(t, []tc{
		{"stream chunk", 200, nil, "data: {\"error_code\": 50001, \"text\": \"**NETWORK ERROR DUE TO HIGH TRAFFIC. PLEASE REGENERATE OR REFRESH THIS PAGE.**\\n\\n(probability tensor contains either `inf`, `nan` or element < 0)\"}\n\ndata: [DONE]\n\n", true, "server_error", "phrase:high traffic"},
		{"a success's text is no error", 200, nil, `{"text":"high traffic today","error_code":0}`, false, "ok", ""},
	})
}

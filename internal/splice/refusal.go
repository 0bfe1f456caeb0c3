package splice

import (
	"bytes"
	"net/http"
)

// PrefillRefused reports whether an upstream answer (its status and body,
// or a mid-stream error event's data with status 200) refuses the prefill
// of a continuation request, so that the caller falls back to replay and the
// refusal never reaches the client. It is not a class: the answer is still
// classified (bad_request, usually) and recorded as such; this only names
// the evidence that it was the prefill that was refused:
//
//   - Anthropic, Claude 4.6 models and later: 400 invalid_request_error
//     "This model does not support assistant message prefill. The
//     conversation must end with a user message." (also seen through
//     Vertex and Bedrock wrappers, and worded "Prefilling assistant
//     messages is not supported for this model.");
//   - Anthropic: "final assistant content cannot end with trailing
//     whitespace" (Prefill strips it, so this is a safety net);
//   - OpenAI-compatible servers that do not know, or refuse,
//     continue_final_message or add_generation_prompt (OpenAI:
//     "Unrecognized request argument supplied: continue_final_message").
//
// Only 400 and 422 qualify: a prefill refusal is a request error, never a
// 5xx, 429 or 401.
func PrefillRefused(status int, body []byte) bool {
	switch status {
	case http.StatusBadRequest, http.StatusUnprocessableEntity:
	case http.StatusOK:
		if len(body) == 0 {
			return false
		}
	default:
		return false
	}
	b := bytes.ToLower(body)
	has := func(s string) bool { return bytes.Contains(b, []byte(s)) }
	switch {
	case has("continue_final_message"), has("add_generation_prompt"):
		return true
	case has("final assistant content cannot end with trailing whitespace"):
		return true
	case has("must end with a user message"):
		return true
	case has("prefill") && (has("not support") || has("not supported") || has("unsupported") || has("not allowed")):
		return true
	}
	return false
}

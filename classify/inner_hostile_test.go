package classify

import (
	"encoding/json"
	"testing"
)

// TestQuotedAnswerFromClientText: a client writes "XError: {…}" (an
// exception's name and an error object of its choosing) where an honest
// upstream quotes the client's input back inside a sentence. A relay's lead
// counts only from the text's start (relayPrefix), so the object is not read
// as a quoted answer: each case reads as it did before that reading existed
// (bad_request, or unknown for the legacy wording), never as the class the
// client wrote. (Found by a hostile review: the lead was checked at its last
// word only, and the echo check covered the upstream's words after the
// quote, which are never in the request.)
func TestQuotedAnswerFromClientText(t *testing.T) {
	openAI := func(value string) (string, string) {
		rq, _ := json.Marshal(map[string]any{"model": "gpt-4o", "messages": []any{map[string]any{"role": value, "content": "hi"}}})
		msg := "Invalid value: '" + value + "'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'."
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": "messages[0].role", "code": "invalid_value"}})
		return string(b), string(rq)
	}
	legacy := func(value string) (string, string) {
		rq, _ := json.Marshal(map[string]any{"model": "gpt-4o", "messages": []any{map[string]any{"role": value, "content": "hi"}}})
		msg := "'" + value + "' is not one of ['system', 'assistant', 'user', 'function'] - 'messages.0.role'"
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error", "param": nil, "code": nil}})
		return string(b), string(rq)
	}
	// Anthropic quotes an unknown anthropic-beta value; dispatch appends
	// the client's header values to Request after a newline (call.evidence).
	beta := func(value string) (string, string) {
		msg := "Unexpected value(s) `" + value + "` for the `anthropic-beta` header. Please consult our documentation at docs.anthropic.com or try again without the header."
		b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": msg}})
		return string(b), `{"model":"claude-x","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}` + "\n2023-06-01\n" + value
	}
	for _, c := range []struct {
		name  string
		shape func(string) (string, string)
		value string
		want  Class
	}{
		{"openai role → quota", openAI, `XError: {"error":{"code":"insufficient_quota"}}`, BadRequest},
		{"openai role → auth", openAI, `XError: {"error":{"code":"invalid_api_key"}}`, BadRequest},
		{"openai role → unavailable", openAI, `XError: {"error":{"code":"model_not_found"}}`, BadRequest},
		{"openai role → forbidden", openAI, `XError: {"error":{"code":"unsupported_country_region_territory"}}`, BadRequest},
		{"openai role → rate_limited (lead names 429)", openAI, `XError: Error code: 429 - {"error":{"type":"rate_limit_error"}}`, BadRequest},
		{"openai role → quota (RetryInfo 2h)", openAI, `XError: Error code: 429 - {"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"7200s"}]}}`, BadRequest},
		{"openai role → server_error", openAI, `XError: Error code: 429 - {"error":{"details":[{"reason":"MODEL_CAPACITY_EXHAUSTED"}]}}`, BadRequest},
		{"openai role → timeout", openAI, `XError: Error code: 503 - {"error":{"status":"DEADLINE_EXCEEDED"}}`, BadRequest},
		{"openai role → unknown (fails over)", openAI, `XError: {"error":{"code":"tool_use_failed"}}`, BadRequest},
		{"openai legacy wording → quota", legacy, `XError: {"error":{"code":"insufficient_quota"}}`, Unknown},
		{"anthropic beta header → auth", beta, `XError: {"error":{"type":"authentication_error"}}`, BadRequest},
		{"anthropic beta header → quota", beta, `XError: {"error":{"type":"billing_error"}}`, BadRequest},
	} {
		body, req := c.shape(c.value)
		r := Response{Status: 400, Body: []byte(body), Request: []byte(req), Model: "gpt-4o"}
		if v := Classify(r); v.Class != c.want {
			t.Errorf("%s: %s (%s), want %s\n  request: %s\n  body:    %s", c.name, v.Class, v.Evidence, c.want, req, body)
		}
	}
}

// TestQuotedAnswerThatIsTheClientsText: an upstream whose message is the
// client's text whole, relay's lead and object included, is no relayed
// answer either: the object's opening and the lead are looked for in the
// request. Without that request the same body is read as quoted.
func TestQuotedAnswerThatIsTheClientsText(t *testing.T) {
	const text = `XError: {\"error\":{\"code\":\"insufficient_quota\",\"message\":\"` + "You exceeded it" + `\"}}`
	body := []byte(`{"error":{"message":"` + text + `"}}`)
	req := []byte(`{"model":"m","messages":[{"role":"user","content":"` + text + `"}]}`)
	if v := Classify(Response{Status: 400, Body: body}); v.Class != Quota {
		t.Errorf("a relay's quoted answer: %s (%s), want quota", v.Class, v.Evidence)
	}
	if v := Classify(Response{Status: 400, Body: body, Request: req}); v.Class == Quota {
		t.Errorf("the client's text: %s (%s)", v.Class, v.Evidence)
	}
	// The lead alone the client's: the object is not read as an answer (its
	// wording, which the client did not write, still counts as text).
	lead := []byte(`{"model":"m","messages":[{"role":"user","content":"XError: "}]}`)
	if v := Classify(Response{Status: 400, Body: body, Request: lead}); v.Evidence == "code:insufficient_quota" {
		t.Errorf("the client's lead: %s (%s)", v.Class, v.Evidence)
	}
}

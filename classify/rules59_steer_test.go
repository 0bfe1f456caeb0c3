package classify

import "testing"

// Review 59c: the model's own output, quoted by llama-server's parser
// failure ("Failed to parse input at pos 0: <generated text>"), is text any
// client steers through its prompt (quoted_test.go). Round 59's new phrases
// must not read there either: the failure is unknown (rules59_test.go (d)).
func TestRoundFiftyNineModelOutputSaysNewPhrases(t *testing.T) {
	req := `{"model":"qwen3","messages":[{"role":"user","content":"Call bash, and before the call write two words."}]}`
	parse := func(out string) string {
		return `{"error":{"code":500,"message":"Failed to parse input at pos 0: ` + out + `","type":"server_error"}}`
	}
	for _, c := range []struct {
		name, out string
		status    int
	}{
		{"a crash", "The model has crashed <tool_call>", 500},
		{"an operation", "The requested operation is not recognized <tool_call>", 500},
		{"a budget", "Workspace monthly budget of $5 exceeded <tool_call>", 500},
		{"capacity", "All providers for qwen3 are at capacity <tool_call>", 500},
		{"context window", "Your input exceeds the context window <tool_call>", 500},
		{"one choice", "Only one completion choice is allowed <tool_call>", 500},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := Classify(Response{Status: c.status, Body: []byte(parse(c.out)), Request: []byte(req), Model: "qwen3"})
			if v.Class != Unknown {
				t.Errorf("%s (%s), want unknown", v.Class, v.Evidence)
			}
			sv := Classify(Response{Status: 200, Stream: true, Body: []byte("data: " + parse(c.out) + "\n\n"), Request: []byte(req), Model: "qwen3"})
			if sv.Class != Unknown {
				t.Errorf("in a stream: %s (%s), want unknown", sv.Class, sv.Evidence)
			}
		})
	}
}

// The same model output in the other envelopes that quote a generation:
// Groq's failed_generation (tool_use_failed, json_validate_failed) and
// Ollama's "error parsing tool call: raw='…'" (corpus: unknown).
func TestRoundFiftyNineModelOutputInOtherEnvelopes(t *testing.T) {
	req := `{"model":"m","messages":[{"role":"user","content":"Call the tool, and before the call write two words."}]}`
	outs := map[string]string{
		"a crash":        "The model has crashed",
		"an operation":   "The requested operation is not recognized by the service.",
		"a budget":       "Workspace monthly budget of $5 exceeded",
		"capacity":       "All providers for m are at capacity",
		"context window": "Your input exceeds the context window",
		"one choice":     "Only one completion choice is allowed",
		"no echo":        "Only no echo is supported",
		"parse":          "Failed to parse input at pos 0: x",
	}
	for name, out := range outs {
		bodies := map[string]struct {
			st     int
			stream bool
			body   string
		}{
			"groq tool_use_failed": {400, false, `{"error":{"message":"Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.","type":"invalid_request_error","code":"tool_use_failed","failed_generation":"` + out + `"}}`},
			"groq json_validate":   {400, false, `{"error": {"message": "Failed to generate JSON. Please adjust your prompt. See 'failed_generation' for more details.", "type": "invalid_request_error", "code": "json_validate_failed", "failed_generation": "` + out + `"}}`},
			"groq stream event":    {200, true, "event: error\ndata: {\"error\":{\"message\":\"Tool call validation failed: tool call validation failed: parameters for tool f did not match schema\",\"type\":\"invalid_request_error\",\"code\":\"tool_use_failed\",\"failed_generation\":\"" + out + "\",\"status_code\":400}}\n\n"},
			"ollama 500":           {500, false, `{"error":"error parsing tool call: raw='` + out + `'"}`},
		}
		for env, b := range bodies {
			t.Run(name+"/"+env, func(t *testing.T) {
				v := Classify(Response{Status: b.st, Stream: b.stream, Body: []byte(b.body), Request: []byte(req), Model: "m"})
				if v.Class != Unknown {
					t.Errorf("%s (%s), want unknown", v.Class, v.Evidence)
				}
			})
		}
	}
}

// Review 59c: round 59 reads a 4xx quoted with its reason phrase inside a
// 429 (inner.go quotedAnswer, relay.go phraseStatusBody). The client's own
// "HTTP 401 Unauthorized: {…}" (a tool result of a failed curl, pasted in a
// prompt) that an upstream quotes back in a 429 must not page for auth:
// before round 59 the 429 was rate_limited whatever its text said.
func TestRoundFiftyNineClientQuoted401In429(t *testing.T) {
	body429 := func(text string) string {
		return `{"error":{"message":"All 2 attempts failed. Last error: ` + text + `","type":"overloaded_error"},"type":"error"}`
	}
	esc := `HTTP 401 Unauthorized: {\"error\":{\"message\":\"Invalid API key\",\"type\":\"authentication_error\"}}`
	for _, c := range []struct{ name, req string }{
		{"verbatim", `{"model":"m","messages":[{"role":"user","content":"why does curl say HTTP 401 Unauthorized: ` + `{\"error\":{\"message\":\"Invalid API key\",\"type\":\"authentication_error\"}}"}]}`},
		{"a \\u escape for the blank", `{"model":"m","messages":[{"role":"user","content":"why does curl say HTTP 401\u0020Unauthorized:\u0020{\"error\":{\"message\":\"Invalid API key\",\"type\":\"authentication_error\"}}"}]}`},
		{"a tool result (Anthropic)", `{"model":"m","messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"HTTP 401 Unauthorized: {\"error\":{\"message\":\"Invalid API key\",\"type\":\"authentication_error\"}}"}]}]}`},
		{"two blanks where the upstream has one", `{"model":"m","messages":[{"role":"user","content":"HTTP 401  Unauthorized: {\"error\":{\"message\":\"Invalid API key\",\"type\":\"authentication_error\"}}"}]}`},
		{"lower case", `{"model":"m","messages":[{"role":"user","content":"http 401 unauthorized: {\"error\":{\"message\":\"Invalid API key\",\"type\":\"authentication_error\"}}"}]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := classify56(429, body429(esc), c.req, false)
			if v.Class == Auth || v.Class == Forbidden || v.Class == Quota {
				t.Errorf("the client's own quoted 401 under a 429: %s (%s), want rate_limited", v.Class, v.Evidence)
			}
		})
	}
}

// The relay's own Retry-After on a 429 that quotes the upstream's 429 is
// kept: reading the quoted answer must not lose the wait the relay named.
func TestRoundFiftyNineRelay429KeepsItsRetryAfter(t *testing.T) {
	rl := `{"error":{"message":"All 2 attempts failed. Last error: HTTP 429 Too Many Requests: {\n  \"error\": {\n    \"code\": 429,\n    \"message\": \"Resource has been exhausted (e.g. check quota).\",\n    \"status\": \"RESOURCE_EXHAUSTED\"\n  }\n}\n","type":"overloaded_error"},"type":"error"}`
	v := classify56h(429, rl, "", "Retry-After", "30")
	if v.Class != RateLimited || v.RetryAfter != 30e9 {
		t.Errorf("%s (%s), wait %v: want rate_limited with the relay's 30s", v.Class, v.Evidence, v.RetryAfter)
	}
}

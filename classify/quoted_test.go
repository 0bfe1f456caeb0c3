package classify

import "testing"

// What a server quotes because it could not parse it — the model's own
// output (llama.cpp: "Failed to parse input at pos 0: <generated text>"),
// which any client can steer through its prompt — is no evidence about the
// provider: no account wording, relayed status or gone-model wording there
// may cool or page (found by the hostile review of client steering).
func TestQuotedOutputIsNoEvidence(t *testing.T) {
	req := `{"model":"qwen3","messages":[{"role":"user","content":"Call bash, and before the call write two words."}]}`
	parse := func(out string) string {
		return `{"error":{"code":500,"message":"Failed to parse input at pos 0: ` + out + `","type":"server_error"}}`
	}
	for _, c := range []struct {
		name   string
		status int
		stream bool
		body   string
	}{
		{"account wording", 500, false, parse("insufficient balance <tool_call>")},
		{"a relayed 401", 500, false, parse(`AuthenticationError: Error code: 401 - {\"error\":{\"type\":\"authentication_error\"}}`)},
		{"a relayed 429 of 15 h", 500, false, parse(`RateLimitError: Error code: 429 - {\"error\":{\"message\":\"try again in 900m0s\"}}`)},
		{"nothing loaded", 500, false, parse("no models are loaded")},
		{"in a stream after the 200", 200, true, "data: " + parse("insufficient balance") + "\n\n"},
		{"an error event with no code", 200, true, "event: error\ndata: {\"error\":{\"message\":\"Failed to parse input at pos 0: invalid api key\",\"type\":\"server_error\"}}\n\n"},
		{"relayed by LiteLLM", 500, false, `{"error":{"message":"litellm.InternalServerError: InternalServerError: Custom_openaiException - Failed to parse input at pos 0: insufficient balance","type":null,"param":null,"code":"500"}}`},
		{"plain text", 500, false, "Failed to parse input at pos 0: insufficient balance"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := Classify(Response{Status: c.status, Body: []byte(c.body), Stream: c.stream, Request: []byte(req), Model: "qwen3"})
			if v.Class != ServerError {
				t.Errorf("%s (%s), want server_error", v.Class, v.Evidence)
			}
		})
	}
	// Before the lead, the server's own words still count.
	v := Classify(Response{Status: 500, Body: []byte(`{"error":{"message":"no models are loaded; failed to parse request: x"}}`), Model: "qwen3"})
	if v.Class != Unavailable {
		t.Errorf("the server's own wording before the lead: %s (%s), want unavailable", v.Class, v.Evidence)
	}
}

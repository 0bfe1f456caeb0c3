package classify

import "testing"

// What a server quotes because it could not parse it — the model's own
// output (llama.cpp: "Failed to parse input at pos 0: <generated text>"),
// which any client can steer through its prompt — is no evidence about the
// provider: no account wording, relayed status or gone-model wording there
// may cool or page (found by the hostile review of client steering). The
// failure itself is unknown since round 59 (hunt 59a): the model's
// unparseable output proves neither side, and as server_error a client
// that steered the model into it cooled the endpoint.
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
		byType bool // read by its type: server_error
	}{
		{"account wording", 500, false, parse("insufficient balance <tool_call>"), false},
		{"a relayed 401", 500, false, parse(`AuthenticationError: Error code: 401 - {\"error\":{\"type\":\"authentication_error\"}}`), false},
		{"a relayed 429 of 15 h", 500, false, parse(`RateLimitError: Error code: 429 - {\"error\":{\"message\":\"try again in 900m0s\"}}`), false},
		{"nothing loaded", 500, false, parse("no models are loaded"), false},
		{"in a stream after the 200", 200, true, "data: " + parse("insufficient balance") + "\n\n", false},
		// No status or code to read the 5xx wording under: its type decides.
		{"an error event with no code", 200, true, "event: error\ndata: {\"error\":{\"message\":\"Failed to parse input at pos 0: invalid api key\",\"type\":\"server_error\"}}\n\n", true},
		{"relayed by LiteLLM", 500, false, `{"error":{"message":"litellm.InternalServerError: InternalServerError: Custom_openaiException - Failed to parse input at pos 0: insufficient balance","type":null,"param":null,"code":"500"}}`, false},
		{"plain text", 500, false, "Failed to parse input at pos 0: insufficient balance", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := Classify(Response{Status: c.status, Body: []byte(c.body), Stream: c.stream, Request: []byte(req), Model: "qwen3"})
			want := Unknown
			if c.byType {
				want = ServerError
			}
			if v.Class != want {
				t.Errorf("%s (%s), want %s", v.Class, v.Evidence, want)
			}
		})
	}
	// Before the lead, the server's own words still count.
	v := Classify(Response{Status: 500, Body: []byte(`{"error":{"message":"no models are loaded; failed to parse request: x"}}`), Model: "qwen3"})
	if v.Class != Unavailable {
		t.Errorf("the server's own wording before the lead: %s (%s), want unavailable", v.Class, v.Evidence)
	}
}

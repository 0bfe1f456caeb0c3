package classify

import "testing"

// TestRelayLabelsBeforeTheMessage: what a message says where it opens — a
// relayed status ("400 Unable to access model x.", "Error code: 429 - {…}",
// SageMaker's "Received server error (500) …") or a field path — is read
// past the labels a relay puts before it ("upstream error: ", "[groq] ",
// "Provider returned error: ", "litellm.APIError: "), as the metamorphic
// decorations found (metamorphic_test.go). A sentence before it is no
// label, and neither is text the client sent.
func TestRelayLabelsBeforeTheMessage(t *testing.T) {
	const q429 = `Error code: 429 - {'error': {'code': 429, 'message': 'Quota exceeded for aiplatform.googleapis.com/online_prediction_tokens_per_minute_per_base_model'}}`
	for _, c := range []struct {
		name   string
		status int
		msg    string
		req    string
		want   Class
	}{
		{"node sdk status", 500, "upstream error: 400 Unable to access model gpt-4o-mini.", "", Unavailable},
		{"node sdk status, two labels", 500, "[groq] openai error: 400 Unable to access model gpt-4o-mini.", "", Unavailable},
		{"sdk relayed status", 500, "[groq] " + q429, "", RateLimited},
		{"openrouter's words", 500, "Provider returned error: " + q429, "", RateLimited},
		{"openrouter's upstream", 500, "Upstream error from Vertex: " + q429, "", RateLimited},
		{"exception chain", 500, "litellm.RateLimitError: AzureException RateLimitError - " + q429, "", RateLimited},
		{"sagemaker", 424, "litellm.APIError: Received server error (500) from primary and could not load the entire response body.", "", ServerError},
		{"json path", 400, "Provider returned error: '$.input' is invalid. Please check the API reference.", "", BadRequest},
		{"snake path", 400, "[deepseek] max_tokens: 10000 > 8192, which is the maximum allowed", "", BadRequest},
		// Not labels: a sentence, or the client's own text.
		{"a sentence", 500, "Tool call error: " + q429, "", ServerError},
		{"a sentence, 4xx lead", 500, "The tool said error: 400 Unable to access model gpt-4o-mini.", "", ServerError},
		{"echoed", 500, "upstream error: 402 Payment required, insufficient", `{"messages":[{"role":"user","content":"upstream error: 402 Payment"}]}`, ServerError},
	} {
		r := Response{Status: c.status, Body: []byte(openaiEnvelope(c.msg))}
		if c.req != "" {
			r.Request = []byte(c.req)
		}
		if v := Classify(r); v.Class != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, v.Class, v.Evidence, c.want)
		}
	}
}

func TestRelayLabel(t *testing.T) {
	for in, want := range map[string]int{
		"upstream error: x":                 len("upstream error: "),
		"openai error: x":                   len("openai error: "),
		"[groq] x":                          len("[groq] "),
		"[groq] litellm.APIError: x":        len("[groq] litellm.APIError: "),
		"Provider returned error: x":        len("Provider returned error: "),
		"Upstream error from Alibaba: x":    len("Upstream error from Alibaba: "),
		"AzureException RateLimitError - x": len("AzureException RateLimitError - "),
		"Error: x":                          len("Error: "),
		"Tool call error: x":                0,
		"messages.0.content: x":             0,
		"Invalid value: 'XError: x":         0,
		"[unclosed x":                       0,
		"[]: x":                             0,
		"upstream error:x":                  0,
		"":                                  0,
	} {
		if got := relayLabel([]byte(in)); got != want {
			t.Errorf("relayLabel(%q) = %d, want %d", in, got, want)
		}
	}
}

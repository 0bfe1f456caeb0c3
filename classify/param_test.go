package classify

import "testing"

// A bad_request's structured param is in the verdict (Verdict.Param), so a
// reader need not parse the upstream's wording to learn which field was
// refused; any other class, or an answer naming no field, carries none.
func TestVerdictParam(t *testing.T) {
	for _, c := range []struct {
		name, body string
		status     int
		want       string
	}{
		// SambaNova's error-code reference (corpus
		// sambanova-decimal-above-max-value-top-p-400): the field is
		// named in param alone, not in the message.
		{"param only", `{"error":{"message":"Decimal above maximum value. Expected a value between 0 and 1, but got 100 instead.","type":"invalid_request_error","param":"top_p","code":"decimal_above_max_value"}}`, 400, "top_p"},
		// OpenAI's reasoning models (corpus
		// openai-unsupported-value-temperature-only-default-1-400).
		{"openai", `{"error":{"message":"Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}}`, 400, "temperature"},
		// DeepSeek (corpus deepseek-reasoner-does-not-support-parameter-presence-penalty-400): a null param.
		{"null", "{\"error\":{\"message\":\"deepseek-reasoner does not support the parameter `presence_penalty`\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"invalid_request_error\"}}", 400, ""},
		// A path names its top-level member (corpus
		// openai-image-url-invalid-type-expected-object, openai/openai-python#1635).
		{"path", `{"error": {"message": "Invalid type for 'messages[0].content[1].image_url': expected an object, but got a string instead.", "type": "invalid_request_error", "param": "messages[0].content[1].image_url", "code": "invalid_type"}}`, 400, "messages"},
		// A rate limit's param is no refused field.
		{"other class", `{"error":{"message":"Rate limit reached for requests","type":"requests","param":"temperature","code":"rate_limit_exceeded"}}`, 429, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := Classify(Response{Status: c.status, Body: []byte(c.body), Dialect: OpenAI})
			if v.Param != c.want {
				t.Errorf("Param %q, want %q (%+v)", v.Param, c.want, v)
			}
		})
	}
}

package dispatch

import (
	"testing"
)

// refusesEncoding reads a refusal of the member or its value by name
// (embedformat.go). The refusals are the sourced ones: vLLM
// before 0.5.1 (vllm-project/vllm#5734), Jina (1Panel-dev/MaxKB#2639), a
// pydantic detail list as the classifier words it, and a structured param.
func TestRefusesEncoding(t *testing.T) {
	for _, c := range []struct {
		name, param, msg string
		want             bool
	}{
		{"vLLM", "", "base64 encoding is not currently supported", true},
		{"Jina", "", "extra fields not permitted: ['encoding_format']", true},
		{"pydantic detail", "", "body.encoding_format: Extra inputs are not permitted", true},
		{"param", "encoding_format", "Input should be 'float'", true},
		{"the name alone", "", "encoding_format", true},
		{"another fault", "", "This model's maximum context length is 512 tokens.", false},
		{"another member", "dimensions", "dimensions is not supported", false},
		{"a name inside a word", "", "nobase64 here; myencoding_format", false},
		// The client's text quoted back reads as a refusal too: it buys
		// one resend after an unbilled 4xx, nothing more (embedformat.go).
		{"the client's text quoted", "", "Input 'how base64 encoding works' is too long", true},
	} {
		if got := refusesEncoding(c.param, c.msg); got != c.want {
			t.Errorf("%s: %q: %v, want %v", c.name, c.msg, got, c.want)
		}
	}
}

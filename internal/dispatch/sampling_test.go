package dispatch

import (
	"testing"

	"github.com/detour-llm/detour/classify"
)

// refusedMember reads the structured param first, then the first sampling
// member the message names as a word of its own, and only one the request
// still carries.
func TestRefusedMember(t *testing.T) {
	sent := func(names ...string) func(string) bool {
		return func(n string) bool {
			for _, s := range names {
				if s == n {
					return true
				}
			}
			return false
		}
	}
	for _, c := range []struct {
		name, param, msg string
		sent             func(string) bool
		want             string
	}{
		{"param first", "top_p", "temperature is fine", sent("temperature", "top_p"), "top_p"},
		{"param not sent", "top_p", "invalid temperature: only 1 is allowed", sent("temperature"), "temperature"},
		{"a word of its own", "", "Argument not supported on this model: stop", sent("stop"), "stop"},
		{"backticks", "", "Validation: `top_p` is immutable for this model", sent("top_p"), "top_p"},
		{"part of a longer name", "", "Invalid 'stop_sequences' and 'top_logprobs'", sent("stop", "logprobs"), ""},
		{"not sent", "", "Unsupported parameter: 'seed'", sent("temperature"), ""},
		{"not a sampling member", "max_tokens", "Unsupported parameter: 'max_tokens'", sent("max_tokens"), ""},
	} {
		if got := refusedMember(c.param, c.msg, c.sent, func(string) bool { return false }); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// A member named in words the client itself sent (an upstream quoting the
// client's text back) is no refusal.
func TestRefusedMemberNotInTheClientsWords(t *testing.T) {
	req := []byte(`{"messages":[{"content":"file:///Unsupported parameter: 'temperature' is not supported.png"}],"temperature":0.2}`)
	echoed := func(s string) bool { return classify.Echoed(req, s) }
	sent := func(string) bool { return true }
	if got := refusedMember("", "The file path /Unsupported parameter: 'temperature' is not supported.png must be a subpath", sent, echoed); got != "" {
		t.Errorf("an echo read as a refusal of %q", got)
	}
	if got := refusedMember("", "Unsupported value: 'temperature' does not support 0.2 with this model.", sent, echoed); got != "temperature" {
		t.Errorf("the model's own refusal: %q", got)
	}
}

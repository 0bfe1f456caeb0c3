package dispatch

import "testing"

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
		if got := refusedMember(c.param, c.msg, c.sent); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

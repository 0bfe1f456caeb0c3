package anthropic

import (
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// TestTranslateRefusesWhatClaudeLacks: a request for more than one choice,
// or for log-probabilities, is not sent to Claude, which would answer one
// choice and none (the client would not be told); n 1 and logprobs false
// are what every request means and go as usual.
func TestTranslateRefusesWhatClaudeLacks(t *testing.T) {
	for _, tc := range []struct {
		extra string
		ok    bool
	}{
		{`"n":2`, false},
		{`"logprobs":true`, false},
		{`"logprobs":true,"top_logprobs":3`, false},
		{`"top_logprobs":2`, false},
		{`"n":1`, true},
		{`"logprobs":false`, true},
		{`"logprobs":false,"top_logprobs":0`, true},
		{`"n":null,"logprobs":null`, true},
	} {
		body := `{"model":"m",` + tc.extra + `,"messages":[{"role":"user","content":"hi"}]}`
		_, err := Translate(adaptertest.ClientRequest(t, []byte(body)), "claude")
		if (err == nil) != tc.ok {
			t.Errorf("%s: error %v, want ok %v", tc.extra, err, tc.ok)
		}
	}
}

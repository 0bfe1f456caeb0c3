package gemini

import (
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// TestTranslateRefusesLogprobs: Gemini's log-probabilities are not
// translated back, so a request for them is not sent (the answer would
// lack them without a word); more than one choice is (candidateCount).
func TestTranslateRefusesLogprobs(t *testing.T) {
	for _, tc := range []struct {
		extra string
		ok    bool
	}{
		{`"logprobs":true`, false},
		{`"top_logprobs":2`, false},
		{`"logprobs":false`, true},
		{`"n":2`, true},
	} {
		body := `{"model":"m",` + tc.extra + `,"messages":[{"role":"user","content":"hi"}]}`
		_, err := Translate(adaptertest.ClientRequest(t, []byte(body)))
		if (err == nil) != tc.ok {
			t.Errorf("%s: error %v, want ok %v", tc.extra, err, tc.ok)
		}
	}
}

package dispatch

import (
	"strings"
	"testing"
)

// An embeddings request's token arrays are estimated at a token a number
// (probe 53b: 16,000 tokens sent as arrays were estimated at 10, so a key
// whose upstream answered no usage paid for almost nothing); numbers
// elsewhere (max_tokens, a tool schema's enum) are not input.
func TestInputEstimateCountsTokenArrays(t *testing.T) {
	toks := strings.TrimSuffix(strings.Repeat("1234, ", 4000), ", ")
	for in, want := range map[string]int{`[` + toks + `]`: 4000, `[[` + toks + `],[` + toks + `]]`: 8000} {
		got := inputEstimate([]byte(`{"model":"m","input":` + in + `}`))
		if got < want || got > want+10 {
			t.Errorf("input %.20s…: estimate %d, want about %d", in, got, want)
		}
	}
	if got := inputEstimate([]byte(`{"model":"m","max_tokens":100000,"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"enum":[1,2,3,4,5,6,7,8]}}}]}`)); got > 60 {
		t.Errorf("a chat body's numbers counted as input: %d", got)
	}
}

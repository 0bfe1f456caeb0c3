package dispatch

import (
	"strings"
	"testing"
)

// An embeddings request's token arrays are estimated at a token a number
// (probe 53b: 16,000 tokens sent as arrays were estimated at 10, so a key
// whose upstream answered no usage paid for almost nothing); numbers
// elsewhere (max_tokens, a tool schema's enum) count by their bytes, as
// text does (review 61c), not a token each.
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

// Review 61c: numbers, true, false and null outside the top-level "input"
// counted nothing, so a tool schema's enum of 30,000 numbers (169 KB the
// upstream reads and bills) was estimated at 29 tokens. Each counts now by
// its bytes, at 4 a token, and at least a token (review 61g: an enum of
// one-digit numbers, a byte each, was a quarter of what the upstream
// bills); brackets, separators and blanks count nothing.
func TestInputEstimateCountsScalars(t *testing.T) {
	vals := make([]string, 3000)
	for i := range vals {
		vals[i] = [...]string{"12345678", "true", "null", "-1.5e10", "7"}[i%5]
	}
	body := `{"tools":[{"parameters":{"enum":[` + strings.Join(vals, ", ") + `]}}]}`
	strs := len("tools") + len("parameters") + len("enum")
	// Per five values: 2 + 1 + 1 + 2 + 1 tokens.
	if got, want := inputEstimate([]byte(body)), (strs+bytesPerToken-1)/bytesPerToken+3000/5*7; got != want {
		t.Errorf("an enum of 3,000 scalars: estimate %d, want %d", got, want)
	}
	// An embeddings request's token arrays still count a token a number,
	// not their bytes again.
	if got := inputEstimate([]byte(`{"model":"m","input":[1,22,333,4444,55555],"dimensions":256}`)); got != (5+1+5+10+3)/4+5+1 {
		t.Errorf("token arrays beside a number: %d", got)
	}
}

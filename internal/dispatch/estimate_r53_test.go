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
// upstream reads and bills) was estimated at 29 tokens. They count by their
// bytes now, at 4 a token, as a string's do; brackets, separators and
// blanks do not.
func TestInputEstimateCountsScalarsByTheirBytes(t *testing.T) {
	vals := make([]string, 3000)
	for i := range vals {
		vals[i] = [...]string{"12345678", "true", "null", "-1.5e10"}[i%4]
	}
	enum := strings.Join(vals, ", ")
	scalar := len(strings.ReplaceAll(enum, ", ", ""))
	body := `{"tools":[{"parameters":{"enum":[` + enum + `]}}]}`
	strs := len("tools") + len("parameters") + len("enum")
	if got, want := inputEstimate([]byte(body)), (strs+scalar+bytesPerToken-1)/bytesPerToken; got != want {
		t.Errorf("an enum of %d scalar bytes: estimate %d, want %d", scalar, got, want)
	}
}

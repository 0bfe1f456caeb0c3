package gemini

import (
	"math"
	"testing"
)

// Counts a hostile upstream reports never wrap: candidates and thoughts
// near the largest int add to at most it, and a negative count adds
// nothing (the gateway's accounting then bounds them further).
func TestUsageCountsDoNotWrap(t *testing.T) {
	u := (&usageMetadata{PromptTokenCount: 5, CandidatesTokenCount: math.MaxInt, ThoughtsTokenCount: 10}).usage()
	if u.CompletionTokens != math.MaxInt || u.TotalTokens != math.MaxInt {
		t.Errorf("completion %d, total %d: want both saturated at MaxInt", u.CompletionTokens, u.TotalTokens)
	}
	u = (&usageMetadata{PromptTokenCount: 5, CandidatesTokenCount: -100, ThoughtsTokenCount: 7}).usage()
	if u.CompletionTokens != 7 || u.TotalTokens != 12 {
		t.Errorf("completion %d, total %d: want 7 and 12 (a negative count adds nothing)", u.CompletionTokens, u.TotalTokens)
	}
}

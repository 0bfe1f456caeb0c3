package query

import (
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/decision"
)

// Hostile 54b: the dispatcher stops a hostile upstream's token count at
// 2^53 (internal/dispatch/usage.go maxCount: "past every cap, where a
// float64 still holds every integer"), but Sums adds those counts into
// plain ints: 1,024 answers claiming 2^53 prompt tokens each (a day of one
// hostile upstream's answers, the Costs page's window) wrap the int64 and
// the page, `detour usage` and their totals show a negative number of
// input tokens. A sum should stop where a count stops (or saturate), never
// wrap.
func TestHostile54bSumsDoNotWrapOnAHostileUpstreamsCounts(t *testing.T) {
	const maxCount = 1 << 53
	s := NewSums(ByTarget)
	now := time.Now()
	for range 1025 {
		s.Add(&decision.Decision{Time: now, Client: "team-a", Route: "r", Attempts: []decision.Attempt{{Target: "t", Provider: "hostile",
			Action: decision.ActionDone, Billable: true, Usage: &decision.Usage{PromptTokens: maxCount, CompletionTokens: maxCount, TotalTokens: maxCount}}}})
	}
	rows := s.Rows()
	total := Total(ByTarget, rows)
	for _, r := range append(rows, total) {
		if r.Input < 0 || r.Output < 0 {
			t.Errorf("%s: input_tokens %d, output_tokens %d after 1,025 answers of 2^53 tokens each: the sum wrapped negative", r.Key, r.Input, r.Output)
		}
	}
}

package query

import (
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/decision"
)

// `detour usage`'s FAILOVERS counts the moves after an upstream's failure.
// A target passed over unsent (its provider lacks completions: true, its
// dialect cannot express the request) failed nowhere: before round 65 every
// /v1/completions request on a route [chat-only, completions] counted one.
func TestPassOverIsNoFailover(t *testing.T) {
	s := NewSums(ByRoute)
	s.Add(&decision.Decision{ID: "a", Time: time.Now(), Route: "mixed", Outcome: "ok", Status: 200,
		Attempts: []decision.Attempt{
			{Target: "chat", Provider: "chatonly", Class: "unknown", Evidence: decision.EvidenceUntranslated, Action: decision.ActionNextTarget},
			{Target: "coder", Provider: "vllm", Status: 429, Class: "rate_limited", Evidence: "status:429", Action: decision.ActionNextTarget},
			{Target: "backup", Provider: "vllm2", Status: 200, Action: decision.ActionDone},
		}})
	rows := s.Rows()
	if len(rows) != 1 || rows[0].Failovers != 1 {
		t.Errorf("rows %+v, want one failover (the 429's), not the pass-over", rows)
	}
}

package console

import (
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/health"
)

// A refusal Detour answered itself, by sending the same endpoint the
// request again without what it refused (decision.Attempt.ResentWithout:
// vLLM's "base64 encoding is not currently supported" to every embeddings
// request of the openai SDKs), is no unknown for the operator to place and
// no failure of the endpoint's: before, it filled the Unknowns on every
// request the endpoint then served, and hid the endpoint's real last
// failure on the health page.
func TestHandledRefusalIsNoUnknownNorLastFailure(t *testing.T) {
	c := New(Options{Size: 10})
	now := time.Now()
	c.Write(&decision.Decision{ID: decision.NewID(), Time: now, Route: "vectors", Outcome: "ok",
		Attempts: []decision.Attempt{
			{Target: "bge", Provider: "vllm", Status: 503, Class: "server_error", Evidence: "status:503", Action: "retry"},
			{Target: "bge", Provider: "vllm", Status: 200, Action: "done"},
		}})
	for i := range 3 {
		c.Write(&decision.Decision{ID: decision.NewID(), Time: now.Add(time.Duration(i+1) * time.Second), Route: "vectors", Outcome: "ok",
			Attempts: []decision.Attempt{
				{Target: "bge", Provider: "vllm", Status: 400, Class: "unknown", Evidence: "status:400", Action: "retry",
					Message: decision.UpstreamMessage("base64 encoding is not currently supported"), ResentWithout: "encoding_format"},
				{Target: "bge", Provider: "vllm", Status: 200, Action: "done"},
			}})
	}
	if gs := c.unknowns(); len(gs) != 0 {
		t.Errorf("Unknowns %+v, want none: each refusal was answered by a resend", gs)
	}
	ep, _ := c.lastFailures()
	if f := ep[health.Key{Target: "bge", Provider: "vllm"}]; f.Class != "server_error" {
		t.Errorf("the endpoint's last failure is %+v, want its 503", f)
	}

	// The same refusal not handled (a resend not made) is still an unknown.
	c.Write(&decision.Decision{ID: decision.NewID(), Time: now.Add(time.Minute), Route: "vectors", Outcome: "error",
		Attempts: []decision.Attempt{
			{Target: "bge", Provider: "vllm", Status: 400, Class: "unknown", Evidence: "status:400", Action: "stop",
				Message: decision.UpstreamMessage("base64 encoding is not currently supported")},
		}})
	if gs := c.unknowns(); len(gs) != 1 {
		t.Errorf("Unknowns %+v, want the unhandled one", gs)
	}
}

// "Classes over time" counts upstream attempts: a target Detour passed over
// unsent (its provider lacks completions: true) is none, as /metrics has
// it (round 65). Before, every /v1/completions request on a route
// [chat-only, completions] drew an unknown.
func TestClassesOverTimeLeaveOutPassOvers(t *testing.T) {
	c := New(Options{Size: 10})
	c.Write(&decision.Decision{ID: decision.NewID(), Time: time.Now(), Route: "mixed", Outcome: "ok",
		Attempts: []decision.Attempt{
			{Target: "chat", Provider: "chatonly", Class: "unknown", Evidence: decision.EvidenceUntranslated, Action: "next_target"},
			{Target: "coder", Provider: "vllm", Status: 200, Action: "done"},
		}})
	_, counts := c.perMinute()
	sum := func(class string) (n int) {
		for _, v := range counts[class] {
			n += v
		}
		return n
	}
	if sum("unknown") != 0 || sum("ok") != 1 {
		t.Errorf("unknown %d, ok %d: want the answer alone", sum("unknown"), sum("ok"))
	}
}

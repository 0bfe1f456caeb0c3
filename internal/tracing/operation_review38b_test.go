package tracing

import (
	"strings"
	"testing"
)

// An operator filtering traces by the GenAI conventions relies on an
// embeddings request being told as one: gen_ai.operation.name
// "embeddings" on the request and every attempt, and the span names
// "embeddings {model}", not "chat" (which made embedding calls count as
// chat turns on any GenAI dashboard).
func TestReview38bEmbeddingsSpansSayEmbeddings(t *testing.T) {
	tr, exp := newTest(t)
	d := failover()
	d.API = "embeddings"
	tr.Write(d)
	spans := exp.GetSpans()
	if len(spans) != 4 {
		t.Fatalf("%d spans", len(spans))
	}
	for _, s := range spans {
		if op := attrs(s.Attributes)["gen_ai.operation.name"]; op != "embeddings" || !strings.HasPrefix(s.Name, "embeddings ") {
			t.Errorf("span %q: gen_ai.operation.name %v", s.Name, op)
		}
	}
	// The other doors are chat turns.
	exp.Reset()
	for _, api := range []string{"", "chat", "messages", "responses"} {
		d := failover()
		d.API = api
		tr.Write(d)
	}
	for _, s := range exp.GetSpans() {
		if op := attrs(s.Attributes)["gen_ai.operation.name"]; op != "chat" || !strings.HasPrefix(s.Name, "chat ") {
			t.Errorf("span %q: gen_ai.operation.name %v", s.Name, op)
		}
	}
}

// A legacy Completions request (the /v1/completions door) is the GenAI
// conventions' text_completion, on the request and every attempt.
func TestCompletionsSpansSayTextCompletion(t *testing.T) {
	tr, exp := newTest(t)
	d := failover()
	d.API = "completions"
	tr.Write(d)
	for _, s := range exp.GetSpans() {
		if op := attrs(s.Attributes)["gen_ai.operation.name"]; op != "text_completion" || !strings.HasPrefix(s.Name, "text_completion ") {
			t.Errorf("span %q: gen_ai.operation.name %v", s.Name, op)
		}
	}
}

package e2e

import (
	"context"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// TestMissingAPICoolsNothing: an endpoint's health is kept for all its
// doors, and the door is the client's choice. A chat server answering an
// embeddings request with "The model does not support Embeddings API"
// (vLLM's wording, classify/testdata/corpus) once read as a gone model
// (unavailable): one client's embeddings request cooled the endpoint for
// every chat client, and in an ordered route the walk stopped there. It is
// unknown now: the walk moves on to a target that serves embeddings, and
// the chat endpoint stays as it was (docs/behaviour.md, "More signals, by
// class").
func TestMissingAPICoolsNothing(t *testing.T) {
	noEmbeddings := upstreamtest.Step{Status: 400, Body: `{"object":"error","message":"The model does not support Embeddings API","type":"BadRequestError","param":null,"code":400}`}
	fs := fakes(t, map[string]upstreamtest.Script{
		"p1": script(noEmbeddings, ok("model-a", "hi")),
		"q":  script(upstreamtest.Step{Body: openaiVectors}),
	})
	g := start(t, oneEach, fs)
	e, err := sdk(g).Embeddings.New(context.Background(), embedTwo("r"))
	if err != nil {
		t.Fatalf("embeddings through the route: %v", err)
	}
	if len(e.Data) != 2 {
		t.Errorf("embeddings: %+v", e)
	}
	wantSteps(t, g.recs.wait(t, 1), "a/p1 unknown next_target", "b/q ok done")
	if h, ok := g.health(t).Endpoint("a", "p1"); !ok || h.State == "cooling" || h.CooldownUntil != nil {
		t.Errorf("the chat endpoint after one embeddings request: %+v", h)
	}
	// Chat clients are served by it first, as before.
	g.post(t, "r", "").wantStatus(t, 200)
	wantSteps(t, g.recs.wait(t, 2), "a/p1 ok done")
}

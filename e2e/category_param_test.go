package e2e

import (
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// TestCategoryParamIsNoField: Cerebras sends "param":"quota" with its quota
// answers. Read as a request field it made a spent daily cap the client's
// bad input: the route stood still and the client was told not to retry.
// The message is Cerebras' own ("Tokens per day limit exceeded - too many
// tokens processed.", quoted in public repositories; classify/vocab22_test.go),
// in the envelope of its per-minute sibling in classify/testdata/corpus.
func TestCategoryParamIsNoField(t *testing.T) {
	capped := upstreamtest.Step{Status: 429, Body: `{"message":"Tokens per day limit exceeded - too many tokens processed.","type":"too_many_tokens_error","param":"quota","code":"token_quota_exceeded"}`}
	fs := fakes(t, map[string]upstreamtest.Script{"p1": script(capped), "q": script(ok("model-b", "hi"), ok("model-b", "hi"))})
	g := start(t, oneEach, fs)
	g.post(t, "r", "").wantStatus(t, 200)
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "a/p1 quota next_target", "b/q ok done")
	// The account cooled: the next request does not call it.
	g.post(t, "r", "").wantStatus(t, 200)
	wantSteps(t, g.recs.wait(t, 2), "b/q ok done")
	if n := fs["p1"].Calls(); n != 1 {
		t.Errorf("the capped account was called %d times, want 1", n)
	}
}

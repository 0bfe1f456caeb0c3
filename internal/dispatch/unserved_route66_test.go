package dispatch

import (
	"testing"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/decision"
)

// Round 65 left llama.cpp's and LM Studio's missing-route answers, which
// the classifier reads by their words (a type, a phrase) rather than by
// the status alone, cooling an endpoint whose operator claimed a path the
// server lacks (completions: true, responses: true): a day without the
// chat requests it serves. Sent to a claimed path and saying nothing else,
// they are the claim's fault (unknown, the unserved path's evidence); the
// same type or phrase naming anything more keeps its class.
func TestRound66MissingRouteWordsOnClaimedPath(t *testing.T) {
	client := `{"model":"coder","prompt":"def f():"}`
	bare := decision.UnservedPathEvidence("/completions", "completions")
	for _, c := range []struct{ body, want string }{
		// classify/testdata/corpus/llamacpp-file-not-found-404-unknown-path.json
		{`{"error":{"code":404,"message":"File Not Found","type":"not_found_error"}}`, bare},
		// classify/testdata/corpus/lmstudio-unexpected-endpoint-or-method-in-200.json, at the path claimed
		{`{"error":"Unexpected endpoint or method. (POST /v1/completions)"}`, bare},
		{`Unexpected endpoint or method. (POST /v1/completions)`, bare},
		// The same type about a model, and the phrase with more to say.
		{`{"type":"error","error":{"type":"not_found_error","message":"model: llama-3"}}`, ""},
		{`{"error":{"type":"not_found_error","message":"deployment retired"}}`, ""},
		{`{"error":"Unexpected endpoint: this model was retired"}`, ""},
	} {
		v := classify.Classify(classify.Response{Status: 404, Body: []byte(c.body), Model: "llama-3"})
		if v.Class != classify.Unavailable || v.Evidence == "status:404" {
			t.Fatalf("%s: the classifier reads %s %q; this test needs it read by its words", c.body, v.Class, v.Evidence)
		}
		w := &walk{call: &Call{Native: &Native{API: APICompletions, Body: []byte(client)}}}
		got := w.unservedPath(v, &outcome{native: true}, []byte(c.body), "llama-3")
		want := c.want
		if want == "" {
			want = v.Evidence
		}
		if got.Evidence != want || (want == bare) != (got.Class == classify.Unknown) {
			t.Errorf("%s: %s %q, want evidence %q", c.body, got.Class, got.Evidence, want)
		}
	}
}

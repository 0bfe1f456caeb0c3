package messages

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/adaptertest"
	"github.com/detour-llm/detour/internal/provider/anthropic"
)

// TestRoundTrip sends Messages requests through the door and back through
// the anthropic adapter: Messages → canonical chat → Messages must give the
// request we started from. The requests are the anthropic adapter's golden
// outputs (internal/provider/anthropic/testdata/request/*.json, "want",
// each built from Anthropic's published examples and citing them), which
// are already in the adapter's normal form (content as blocks, system as a
// string, tool results merged into one user turn).
func TestRoundTrip(t *testing.T) {
	files, err := filepath.Glob("../../provider/anthropic/testdata/request/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			f := adaptertest.ReadFixture(t, path)
			if bytes.Contains(f.Want, []byte(`"detour_json_`)) {
				// Structured output (response_format) becomes a reserved
				// answer tool, which no client may send back: no round trip.
				t.Skip("an answer tool of Detour's own")
			}
			tr, err := Translate(f.Want)
			if err != nil {
				t.Fatal(err)
			}
			back, err := anthropic.Translate(&provider.Request{Body: tr.Body, Stream: tr.Stream}, tr.Model)
			if err != nil {
				t.Fatal(err)
			}
			adaptertest.SameJSON(t, back, f.Want)
		})
	}
}

// TestRoundTripLosses names what the trip through chat loses on purpose
// (doc.go's table): the request after the trip equals the request with
// those members removed or rewritten.
func TestRoundTripLosses(t *testing.T) {
	// anthropic-sdk-go TestMessageNewWithOptionalParams, reduced.
	in := `{"model":"claude","max_tokens":1024,"top_k":5,"thinking":{"type":"enabled","budget_tokens":1024},
		"system":[{"type":"text","text":"a","cache_control":{"type":"ephemeral"}},{"type":"text","text":"b"}],
		"messages":[{"role":"user","content":"What is a quaternion?"},
		{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"tool_use","id":"u1","name":"f","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"u1","is_error":true,"content":"boom"}]}],
		"tools":[{"name":"f","input_schema":{"type":"object"},"cache_control":{"type":"ephemeral"}}]}`
	want := `{"model":"claude","max_tokens":1024,"system":"a\nb",
		"messages":[{"role":"user","content":[{"type":"text","text":"What is a quaternion?"}]},
		{"role":"assistant","content":[{"type":"tool_use","id":"u1","name":"f","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"u1","content":"Error: boom"}]}],
		"tools":[{"name":"f","input_schema":{"type":"object","properties":{}}}]}`
	tr, err := Translate([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	back, err := anthropic.Translate(&provider.Request{Body: tr.Body}, tr.Model)
	if err != nil {
		t.Fatal(err)
	}
	adaptertest.SameJSON(t, back, []byte(want))
	var chat map[string]json.RawMessage
	if err := json.Unmarshal(tr.Body, &chat); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"top_k", "thinking", "max_tokens"} {
		if _, ok := chat[k]; ok {
			t.Errorf("canonical body carries %s", k)
		}
	}
}

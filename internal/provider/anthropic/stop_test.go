package anthropic

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// TestTranslateWhitespaceStop: Anthropic refuses a stop sequence of
// whitespace alone ("stop_sequences: each stop sequence must contain
// non-whitespace"), which OpenAI takes (stop: ["\n"] for one-line
// answers), so such a stop string is not sent (docs/doors.md, "Chat
// Completions to Claude and Gemini targets"); the others still are.
func TestTranslateWhitespaceStop(t *testing.T) {
	for _, tc := range []struct {
		stop string
		want []string
	}{
		{`"\n"`, nil},
		{`["\n"]`, nil},
		{`["\n", " ", "\t\r\n", ""]`, nil},
		{`["\n", "END", " \n "]`, []string{"END"}},
		{`["\nObservation:", " x "]`, []string{"\nObservation:", " x "}},
	} {
		body := `{"model":"m","stop":` + tc.stop + `,"messages":[{"role":"user","content":"one line please"}]}`
		out, err := Translate(adaptertest.ClientRequest(t, []byte(body)), "claude")
		if err != nil {
			t.Fatalf("%s: %v", tc.stop, err)
		}
		var got struct {
			Stop []string `json:"stop_sequences"`
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Stop, tc.want) {
			t.Errorf("stop %s: sent %q, want %q (%s)", tc.stop, got.Stop, tc.want, out)
		}
	}
}

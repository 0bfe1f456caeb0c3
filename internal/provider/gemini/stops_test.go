package gemini

import (
	"encoding/json"
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// Gemini takes at most five stop sequences ("the number of stop_sequences
// must not exceed 5", continuedev/continue#2702): a longer list the user
// typed is sent as its first five, empty strings left out.
func TestAtMostFiveStops(t *testing.T) {
	req := adaptertest.ClientRequest(t, []byte(`{"model":"m","stop":["a","","b","c","d","e","f","g"],"messages":[{"role":"user","content":"hi"}]}`))
	body, err := TranslateFor(req, "gemini-2.5-flash")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		GenerationConfig struct{ StopSequences []string } `json:"generationConfig"`
	}
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatal(err)
	}
	if s := got.GenerationConfig.StopSequences; len(s) != 5 || s[0] != "a" || s[1] != "b" || s[4] != "e" {
		t.Errorf("stopSequences %q", s)
	}
}

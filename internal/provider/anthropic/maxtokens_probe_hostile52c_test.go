package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// e31b7fa caps a client's max_tokens at modelMaxTokens, which takes every
// Claude after 4.5 to write 64,000. Claude Opus 4.6 and Sonnet 4.6 write
// 128,000 (platform.claude.com/docs/en/models/opus-4-6/overview and
// .../sonnet-4-6/overview: "Max output: 128K tokens"; Effect-TS's
// @effect/ai-anthropic fixed the same grouping: "These models were grouped
// with the 4.5 family at 64000 output tokens, half of the 128000 the API
// actually allows"). A client asking 100,000 on them was sent as it asked
// before today; now it is silently cut to 64,000 and its answer ends at
// "length" halfway. A cap meant to stop a 400 must not lower a limit the
// model takes.
func TestHostile52cClientLimitIsNotCutBelowTheModelsMaximum(t *testing.T) {
	for _, model := range []string{"claude-opus-4-6", "claude-sonnet-4-6", "anthropic.claude-opus-4-6-v1", "claude-opus-4-7"} {
		body := `{"model":"x","max_tokens":100000,"messages":[{"role":"user","content":"write the whole report"}]}`
		out, err := Translate(&provider.Request{Body: []byte(body)}, model)
		if err != nil {
			t.Fatalf("%s: %v", model, err)
		}
		var got struct {
			MaxTokens int `json:"max_tokens"`
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		if got.MaxTokens != 100000 {
			t.Errorf("%s: max_tokens %d sent for the client's 100000; the model writes up to 128000", model, got.MaxTokens)
		}
	}
}

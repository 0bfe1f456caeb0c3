package anthropic

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// Review 51a: b96bbf8 forwards a chat client's top_k to every Claude model.
// Claude Opus 4.7 and later (Opus 4.8, Opus 5, …) refuse top_k, top_p and
// temperature with a 400 ("`top_k` is deprecated for this model.", as
// classify's own vocab29 case for temperature reads it): Anthropic's
// "Migrating to Claude Opus 4.7"
// (https://platform.claude.com/docs/en/about-claude/models/migration-guide#migrating-to-claude-opus-4-7),
// OpenRouter's Claude 4.7 migration guide. Before round 51 top_k was
// dropped and such a request (Open WebUI, SillyTavern send top_k) was
// served; now every one of them fails at that target.
func TestR51aTopKNotSentToOpus47(t *testing.T) {
	body := `{"model":"m","messages":[{"role":"user","content":"hi"}],"top_k":40}`
	out, err := Translate(&provider.Request{Body: []byte(body)}, "claude-opus-4-7")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), `"top_k"`) {
		t.Errorf("claude-opus-4-7 gets top_k, which it refuses with a 400 (before round 51 it was dropped and the request served): %s", out)
	}
}

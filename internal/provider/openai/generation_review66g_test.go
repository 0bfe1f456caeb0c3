package openai

import (
	"strings"
	"testing"
)

// Review 66g: a name with a tag after a colon — OpenRouter's variants
// ("openai/gpt-5.4:nitro", ":online", ":floor"), a fine-tune
// ("ft:o4-mini-2025-04-16:org::id", "ft:gpt-5.4-mini-2026-03-17:org::id")
// — is the same model's generation. Before, generationOf read none of
// them: "openai/gpt-5:online", a reasoning model by its prefix until round
// 66, was no longer one (its max_completion_tokens renamed behind a
// proxy), and a translation went to these models unfitted (a minimal
// effort to a fine-tuned o4-mini, an effort beside tools to 5.4: the 400s
// the fit exists for) where the bare name was fitted.
func TestGenerationReadsPastAColonTagReview66g(t *testing.T) {
	for _, c := range []struct{ model, like string }{
		{"openai/gpt-5.4:nitro", "gpt-5.4"},
		{"openai/gpt-5:online", "gpt-5"},
		{"ft:o4-mini-2025-04-16:my-org::abc123", "o4-mini"},
		{"ft:gpt-5.4-mini-2026-03-17:my-org:custom:abc123", "gpt-5.4-mini"},
	} {
		g, ok := generationOf(c.model)
		want, _ := generationOf(c.like)
		if !ok || g != want {
			t.Errorf("%s: %+v %v, want %s's %+v", c.model, g, ok, c.like, want)
		}
		if !reasoningModel(c.model) {
			t.Errorf("%s: not a reasoning model", c.model)
		}
		tools := `{"model":"x","messages":[{"role":"user","content":"hi"}],"reasoning_effort":"minimal","tools":[{"type":"function","function":{"name":"f","parameters":{}}}]}`
		if got, want := effortOf(sent(t, "https://api.openai.com/v1", c.model, tools, true)), effortOf(sent(t, "https://api.openai.com/v1", c.like, tools, true)); got != want {
			t.Errorf("%s: effort %q, %s gets %q", c.model, got, c.like, want)
		}
	}
	// A chat model's fine-tune stays none of them.
	for _, m := range []string{"ft:gpt-4o-mini-2024-07-18:org::x", "ft:gpt-4.1:org::y", "gpt-oss:20b"} {
		if _, ok := generationOf(m); ok || strings.Contains(sent(t, "https://relay.example/v1", m, `{"model":"x","max_completion_tokens":5}`, false), "max_completion_tokens") {
			t.Errorf("%s read as a reasoning model", m)
		}
	}
}

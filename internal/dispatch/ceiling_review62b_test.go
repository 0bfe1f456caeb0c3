package dispatch

import (
	"testing"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/provider"
)

// The bounds on an answer's counts (review 62b): sixteen times the body's
// bytes and a context window's worth more of prompt; the output limit it sets (the
// largest it names) times its n, else answerOutput per choice; reported
// reasoning may add reasoningRoom a choice beyond a limit the request set.
func TestCeilings(t *testing.T) {
	for _, c := range []struct {
		body                 string
		prompt, output, room int
	}{
		{`{"max_tokens":16}`, promptBeyondBody + bodyReads*17, 16, reasoningRoom},
		{`{"max_completion_tokens":100,"max_tokens":16}`, promptBeyondBody + bodyReads*45, 100, reasoningRoom},
		{`{"max_output_tokens":2048}`, promptBeyondBody + bodyReads*26, 2048, reasoningRoom},
		{`{"max_tokens":16,"n":3}`, promptBeyondBody + bodyReads*23, 48, 3 * reasoningRoom},
		{`{"max_tokens":16,"n":100000}`, promptBeyondBody + bodyReads*28, 16 * maxChoices, maxChoices * reasoningRoom},
		{`{"n":2}`, promptBeyondBody + bodyReads*7, 2 * answerOutput, 0},
		{`{"max_tokens":"16"}`, promptBeyondBody + bodyReads*19, answerOutput, 0},
		{`{"max_tokens":-5}`, promptBeyondBody + bodyReads*17, answerOutput, 0},
		{``, maxCount, maxCount, 0},
	} {
		if p, o, r := ceilings([]byte(c.body)); p != c.prompt || o != c.output || r != c.room {
			t.Errorf("%s: prompt %d output %d room %d, want %d %d %d", c.body, p, o, r, c.prompt, c.output, c.room)
		}
	}
}

// An answer's counts are cut to what the request allows (review 62b), and
// reasoning the upstream reports beside the output limit keeps its own
// room, so an honest reasoner's answer to max_tokens 16 is billed whole
// and a client cannot make reasoning free by setting max_tokens low.
func TestAccountCapsImpossibleCounts(t *testing.T) {
	body := []byte(`{"model":"m","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}`)
	for _, c := range []struct {
		name       string
		u          provider.Usage
		completion int
		capped     bool
	}{
		{"honest", provider.Usage{PromptTokens: 9, CompletionTokens: 12, TotalTokens: 21}, 12, false},
		{"reasoning beside the limit, in details", provider.Usage{PromptTokens: 9, CompletionTokens: 30016, TotalTokens: 30025,
			CompletionTokensDetails: &provider.OutputDetails{ReasoningTokens: 30000}}, 30016, false},
		{"reasoning beside the limit, in the total", provider.Usage{PromptTokens: 9, CompletionTokens: 16, TotalTokens: 30025}, 30016, false},
		{"unsigned -1", provider.Usage{PromptTokens: 9, CompletionTokens: 4294967295, TotalTokens: 4294967304}, 16, true},
		{"reasoning past any budget", provider.Usage{PromptTokens: 9, CompletionTokens: 4294967295, TotalTokens: 4294967304,
			CompletionTokensDetails: &provider.OutputDetails{ReasoningTokens: 4294967000}}, 16 + reasoningRoom, true},
		{"total past any", provider.Usage{PromptTokens: 9, CompletionTokens: 3, TotalTokens: 1 << 53}, 16 + reasoningRoom, true},
		{"prompt past the body's bound", provider.Usage{PromptTokens: 1 << 40, CompletionTokens: 3, TotalTokens: 1<<40 + 3}, 3, true},
	} {
		var a decision.Attempt
		account(&a, &config.Target{}, &outcome{usage: &c.u, ok: true, billable: true}, nil, body)
		if u := a.Usage; u == nil || u.CompletionTokens != c.completion || u.Capped != c.capped ||
			u.PromptTokens > promptBeyondBody+bodyReads*len(body) || u.TotalTokens > u.PromptTokens+u.CompletionTokens {
			t.Errorf("%s: usage %+v, want completion %d, capped %v", c.name, a.Usage, c.completion, c.capped)
		}
	}
}

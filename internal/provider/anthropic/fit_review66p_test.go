package anthropic

import (
	"encoding/json"
	"testing"
)

// Review 66p: a budget fitted below max_tokens keeps the client's display,
// as a budget fitted to adaptive does (aacf0626): the model took that
// display beside the budget the client wrote (Claude Code's "omitted", at
// a failover from Opus 4.6's 128,000 max_tokens to Sonnet 4.5's 64,000),
// and without it the model's default display streams the summarized
// thoughts the client had turned off.
func TestFitBudgetKeepsDisplayReview66p(t *testing.T) {
	for _, c := range []struct{ model, body, want string }{
		{"claude-sonnet-4-5", `{"model":"x","max_tokens":128000,"thinking":{"type":"enabled","budget_tokens":100000,"display":"omitted"},"messages":[]}`,
			`{"type":"enabled","budget_tokens":63999,"display":"omitted"}`},
		{"claude-sonnet-4-5", `{"model":"x","max_tokens":4000,"thinking":{"type":"enabled","budget_tokens":4000},"messages":[]}`,
			`{"type":"enabled","budget_tokens":3999}`},
		{"claude-opus-4-7", `{"model":"x","max_tokens":4000,"thinking":{"type":"enabled","budget_tokens":2000,"display":"omitted"},"messages":[]}`,
			`{"type":"adaptive","display":"omitted"}`},
	} {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(fitNative([]byte(c.body), c.model), &m); err != nil {
			t.Fatal(err)
		}
		if string(m["thinking"]) != c.want {
			t.Errorf("%s %s: thinking %s, want %s", c.model, c.body, m["thinking"], c.want)
		}
	}
}

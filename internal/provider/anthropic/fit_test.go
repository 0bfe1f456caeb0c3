package anthropic

import (
	"encoding/json"
	"testing"
)

// A Messages body passed through to a Claude model is fitted to what that
// model takes (probe 53a: each case below was Anthropic's 400 at a
// failover target, the client's answer a refusal for a member it wrote for
// the route's first model).
func TestFitNative(t *testing.T) {
	for _, c := range []struct{ name, model, in, want string }{
		{"adaptive at Haiku 4.5 becomes a budget", "claude-haiku-4-5",
			`{"model":"r","max_tokens":32000,"thinking":{"type":"adaptive"},"messages":[]}`,
			`{"model":"r","max_tokens":32000,"thinking":{"type":"enabled","budget_tokens":16000},"messages":[]}`},
		{"adaptive at 3.5 Haiku, which does not think, is left out", "claude-3-5-haiku-20241022",
			`{"max_tokens":4000,"thinking":{"type":"adaptive"},"messages":[]}`,
			`{"max_tokens":4000,"messages":[]}`},
		{"adaptive with no room for the least budget is left out", "claude-sonnet-4-5",
			`{"max_tokens":1000,"thinking":{"type":"adaptive"},"messages":[]}`,
			`{"max_tokens":1000,"messages":[]}`},
		{"budget thinking at Opus 4.7 becomes adaptive", "claude-opus-4-7",
			`{"max_tokens":16000,"thinking":{"type":"enabled","budget_tokens":8000},"messages":[]}`,
			`{"max_tokens":16000,"thinking":{"type":"adaptive"},"messages":[]}`},
		{"sampling at Opus 4.7 is left out", "claude-opus-4-7",
			`{"max_tokens":100,"temperature":0.7,"top_p":0.9,"top_k":40,"messages":[]}`,
			`{"max_tokens":100,"messages":[]}`},
		{"Opus 4.6's max_tokens at Sonnet 4.5, with its budget", "claude-sonnet-4-5-20250929",
			`{"max_tokens":128000,"thinking":{"type":"enabled","budget_tokens":100000},"messages":[]}`,
			`{"max_tokens":64000,"thinking":{"type":"enabled","budget_tokens":63999},"messages":[]}`},
		{"what the model takes is sent as written", "claude-opus-4-6",
			`{"max_tokens":128000,"temperature":0.2,"thinking":{"type":"adaptive"},"messages":[]}`,
			`{"max_tokens":128000,"temperature":0.2,"thinking":{"type":"adaptive"},"messages":[]}`},
		{"a name not read is sent as written", "my-finetune",
			`{"max_tokens":999999,"thinking":{"type":"adaptive"},"messages":[]}`,
			`{"max_tokens":999999,"thinking":{"type":"adaptive"},"messages":[]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := fitNative([]byte(c.in), c.model)
			if string(got) != c.want {
				t.Fatalf("\n got %s\nwant %s", got, c.want)
			}
			if !json.Valid(got) {
				t.Fatalf("not JSON: %s", got)
			}
		})
	}
}

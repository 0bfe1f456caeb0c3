package e2e

import (
	"context"
	"testing"

	"github.com/openai/openai-go/v3"
)

// TestChatChoicesAndLogprobsMoveOn: a request for two choices, or for
// log-probabilities, is not sent to Claude, which would answer one choice
// and none without saying so; its attempt fails as unknown with evidence
// translate and the route moves on to a target that has them.
func TestChatChoicesAndLogprobsMoveOn(t *testing.T) {
	for name, p := range map[string]openai.ChatCompletionNewParams{
		"n 2":      {Model: "judge", N: openai.Int(2), Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}},
		"logprobs": {Model: "judge", Logprobs: openai.Bool(true), Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}},
	} {
		t.Run(name, func(t *testing.T) {
			fs := strictFakes(t, "Hello")
			g := start(t, edgesCfg, fs)
			c := openaiSDK(g)
			if _, err := c.Chat.Completions.New(context.Background(), p); err != nil {
				t.Fatal(err)
			}
			d := g.recs.wait(t, 1)
			wantSteps(t, d, "claude/anthropic unknown next_target", "gpt/openai ok done")
			if d.Attempts[0].Evidence != "translate" || fs["anthropic"].Calls() != 0 {
				t.Errorf("claude attempt %+v, %d calls", d.Attempts[0], fs["anthropic"].Calls())
			}
		})
	}
}

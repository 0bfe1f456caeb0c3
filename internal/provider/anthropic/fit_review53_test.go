package anthropic

import (
	"strings"
	"testing"
)

// Review 53: Opus 4.6's adaptive thinking may skip thinking on a step
// (Anthropic, "Adaptive thinking": Claude decides whether and how much to
// think), so a tool loop's opening assistant turn can be a bare tool_use.
// Fitted for a model before 4.6, fitThinking turns adaptive into
// {"type":"enabled","budget_tokens":…}; with thinking enabled Anthropic
// refuses that history: "messages.1.content.0.type: Expected `thinking` or
// `redacted_thinking`, but found `tool_use`. When `thinking` is enabled, a
// final `assistant` message must start with a thinking block (preceeding
// the lastmost set of `tool_use` and `tool_result` blocks) … To avoid this
// requirement, disable `thinking`" (anomalyco/opencode#3077,
// Kilo-Org/kilocode#5219 on Opus 4.5). The Messages door already drops
// thinking in that case for unsigned blocks (door/messages/unsigned.go
// loopOpensBare); the passthrough fit does not look, so Claude Code's
// failover from Opus 4.6 to Sonnet 4.5 mid-loop is still a 400 there.
func TestReview53AdaptiveBecomesBudgetOnlyWhereTheLoopOpensWithThinking(t *testing.T) {
	const body = `{"model":"r","max_tokens":32000,"thinking":{"type":"adaptive"},"messages":[` +
		`{"role":"user","content":"List the files."},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01A","name":"Bash","input":{"command":"ls"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01A","content":"a.go\nb.go"}]}]}`
	got := string(fitNative([]byte(body), "claude-sonnet-4-5-20250929"))
	if strings.Contains(got, `"type":"enabled"`) {
		t.Fatalf("a tool loop whose opening assistant turn has no thinking block is sent with budget thinking on, which Anthropic refuses (\"a final `assistant` message must start with a thinking block\"):\n%s", got)
	}
}

package anthropic

import (
	"encoding/json"
	"strconv"

	"github.com/detour-llm/detour/internal/rawjson"
)

// fitNative fits a client's Messages body, passed through to an Anthropic
// target, to the Claude model that target names. A route name hides which
// model serves a request, so a client writes its body for the model it
// meets first, and a failover to another Claude model met a 400 for a
// member written for the first (probe 53a: Opus 4.6's adaptive thinking at
// Haiku 4.5, a temperature or budget thinking at Opus 4.7, Opus 4.6's
// 128,000 max_tokens at Sonnet 4.5). Only what Anthropic refuses for that
// model is changed (docs/doors.md, "Passthrough"):
//   - max_tokens above the model's stated maximum is that maximum
//     (knownMaxTokens), and a thinking budget at or above it one less;
//   - temperature, top_p and top_k are left out for a model that refuses
//     them (fixedSampling: Opus 4.7 and later, every model from 5 on);
//   - thinking "enabled" (budget_tokens) is "adaptive" for those models,
//     which take only adaptive thinking ("\"thinking.type.enabled\" is not
//     supported for this model");
//   - thinking "disabled" is Sonnet 5.5's "between_tools" (below effort
//     xhigh), or left out, for a model that refuses it (Opus 5.5, Sonnet
//     5.5, Fable), and "between_tools" is "disabled", or left out, for a
//     model that does not know it (review 66d);
//   - a forced tool_choice (any, tool) is auto for a model that refuses
//     forcing (Sonnet 5.5, Opus 5.5, Fable 5.1 and later);
//   - thinking "adaptive" is "enabled" with a budget of half the answer
//     (at least 1,024 tokens, Anthropic's minimum) for a model before the
//     4.6 generation ("adaptive thinking is not supported on this model"),
//     or left out where the model has no extended thinking (Claude 3 and
//     3.5), the answer has no room for the minimum, or a tool loop opened
//     without a thinking block (loopOpensBare).
//
// A name whose family is not read, and a body that is not an object, are
// sent as they came.
func fitNative(body []byte, model string) []byte {
	if _, ok := claudeVersion(model); !ok {
		return body
	}
	maxTokens := -1
	if s, e, err := rawjson.MemberSpan(body, "max_tokens"); err == nil && s >= 0 {
		if n, err := strconv.Atoi(string(body[s:e])); err == nil {
			maxTokens = n
			if most, ok := knownMaxTokens(model); ok && n > most {
				maxTokens = most
				body = rawjson.Replace(body, s, e, strconv.AppendInt(nil, int64(most), 10))
			}
		}
	}
	if fixedSampling(model) {
		for _, k := range []string{"temperature", "top_p", "top_k"} {
			body = rawjson.Without(body, k)
		}
	}
	return fitThinking(fitToolChoice(body, model), model, maxTokens)
}

// fitThinking is fitNative's thinking step; maxTokens is the body's
// max_tokens as sent upstream, -1 when not read.
func fitThinking(body []byte, model string, maxTokens int) []byte {
	s, e, err := rawjson.MemberSpan(body, "thinking")
	if err != nil || s < 0 {
		return body
	}
	var t struct {
		Type         string          `json:"type"`
		BudgetTokens *int            `json:"budget_tokens"`
		Display      json.RawMessage `json:"display"`
	}
	if json.Unmarshal(body[s:e], &t) != nil {
		return body
	}
	older := beforeAdaptive(model)
	switch {
	case t.Type == "enabled" && budgetRefused.holds(model):
		// The client's display ("omitted": Claude Code's, with
		// MAX_THINKING_TOKENS, probe 66n) is kept: adaptive thinking
		// takes it (Claude Code sends it so), and without it the model's
		// default display applies.
		return rawjson.Replace(body, s, e, withDisplay([]byte(`{"type":"adaptive"}`), t.Display))
	case t.Type == "adaptive" && older:
		if !extendedThinking(model) || maxTokens <= minBudget || loopOpensBare(rawjson.Member(body, "messages")) {
			return rawjson.Without(body, "thinking")
		}
		return rawjson.Replace(body, s, e, budgetThinking(max(minBudget, maxTokens/2)))
	case t.Type == "enabled" && t.BudgetTokens != nil && maxTokens > 0 && *t.BudgetTokens >= maxTokens:
		if maxTokens <= minBudget {
			return rawjson.Without(body, "thinking")
		}
		// The display the model took beside the budget is kept (review
		// 66p: Claude Code's "omitted" was dropped here, and the model
		// streamed the summarized thoughts the client had turned off).
		return rawjson.Replace(body, s, e, withDisplay(budgetThinking(maxTokens-1), t.Display))
	case t.Type == "disabled" && disabledRefused.holds(model):
		// Thinking is off as far as the model lets it be: Sonnet 5.5's
		// between_tools (its lowest setting, taken at effort low to high
		// only), else the model's default, adaptive thinking.
		if betweenTools.holds(model) && !highEffort(body) {
			return rawjson.Replace(body, s, e, []byte(`{"type":"between_tools"}`))
		}
		return rawjson.Without(body, "thinking")
	case t.Type == "between_tools" && !betweenTools.holds(model):
		// No thinking up front: "disabled" where the model takes it, else
		// its default.
		if extendedThinking(model) && !disabledRefused.holds(model) {
			return rawjson.Replace(body, s, e, []byte(`{"type":"disabled"}`))
		}
		return rawjson.Without(body, "thinking")
	}
	return body
}

// highEffort reports a body whose output_config.effort is xhigh or max,
// at which Sonnet 5.5 refuses between_tools (a 400; its what's-new page).
func highEffort(body []byte) bool {
	var c struct {
		Effort string `json:"effort"`
	}
	if json.Unmarshal(rawjson.Member(body, "output_config"), &c) != nil {
		return false
	}
	return c.Effort == "xhigh" || c.Effort == "max"
}

// fitToolChoice is fitNative's tool_choice step: a forced choice ("any",
// or "tool" naming one) is "auto" for a model that refuses forcing
// (forcedToolRefused: Sonnet 5.5, Opus 5.5, Fable 5.1 and later), its
// disable_parallel_tool_use kept. The model may then answer without a
// call, where the request would otherwise not be answered at all.
func fitToolChoice(body []byte, model string) []byte {
	s, e, err := rawjson.MemberSpan(body, "tool_choice")
	if err != nil || s < 0 || !forcedToolRefused.holds(model) {
		return body
	}
	var c struct {
		Type                   string `json:"type"`
		DisableParallelToolUse *bool  `json:"disable_parallel_tool_use"`
	}
	if json.Unmarshal(body[s:e], &c) != nil || c.Type != "any" && c.Type != "tool" {
		return body
	}
	auto := []byte(`{"type":"auto"}`)
	if c.DisableParallelToolUse != nil && *c.DisableParallelToolUse {
		auto = []byte(`{"type":"auto","disable_parallel_tool_use":true}`)
	}
	return rawjson.Replace(body, s, e, auto)
}

// loopOpensBare reports a conversation in a tool loop (its last turn the
// client's tool results) whose loop opened with an assistant turn that
// does not start with a thinking block: with thinking on, Anthropic
// refuses it ("a final `assistant` message must start with a thinking
// block"), and adaptive thinking may skip thinking on a step, so such a
// loop is sent without thinking (review 53; the Messages door's own check
// for unsigned blocks is the same).
func loopOpensBare(raw []byte) bool {
	var msgs []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &msgs) != nil || len(msgs) == 0 {
		return false
	}
	types := func(c json.RawMessage) []string {
		var blocks []struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(c, &blocks) != nil {
			return nil
		}
		out := make([]string, len(blocks))
		for i, b := range blocks {
			out[i] = b.Type
		}
		return out
	}
	results := func(c json.RawMessage) bool {
		ts := types(c)
		for _, t := range ts {
			if t != "tool_result" {
				return false
			}
		}
		return len(ts) > 0
	}
	last := msgs[len(msgs)-1]
	if last.Role != "user" || !results(last.Content) {
		return false
	}
	start := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role != "assistant" && !results(msgs[i].Content) {
			start = i + 1
			break
		}
	}
	for _, m := range msgs[start:] {
		if m.Role == "assistant" {
			ts := types(m.Content)
			return len(ts) == 0 || ts[0] != "thinking" && ts[0] != "redacted_thinking"
		}
	}
	return false
}

// minBudget is the least budget_tokens Anthropic takes.
const minBudget = 1024

// budgetThinking is {"type":"enabled","budget_tokens":n}.
// withDisplay is the thinking object obj with the client's display, raw,
// as its last member where the client sent one (none: obj as it came).
func withDisplay(obj, display json.RawMessage) []byte {
	if len(display) == 0 {
		return obj
	}
	return append(append(append(obj[:len(obj)-1:len(obj)-1], `,"display":`...), display...), '}')
}

func budgetThinking(n int) []byte {
	return append(strconv.AppendInt([]byte(`{"type":"enabled","budget_tokens":`), int64(n), 10), '}')
}

// extendedThinking reports whether model has extended thinking: 3.7
// Sonnet and the Claude 4 models and later.
func extendedThinking(model string) bool {
	v, ok := claudeVersion(model)
	return ok && (v.major >= 4 || v.major == 3 && v.minor == 7)
}

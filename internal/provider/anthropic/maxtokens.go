package anthropic

import (
	"regexp"
	"strconv"
)

// Claude's own output maxima by model family, for a request that names no
// limit (Anthropic's models overview): the Claude 4 models write 64,000
// tokens but Opus 4 and 4.1, which write 32,000; 3.7 Sonnet 64,000; 3.5
// 8,192; any other (Claude 3, a name not read) DefaultMaxTokens. A later
// family is taken to write at least what 4.5 does. Anthropic refuses a
// max_tokens above the model's maximum ("max_tokens: 10000 > 4096, which is
// the maximum allowed number of output tokens for …"), so the default
// follows the name. Before round 50 every model got 4096, and Codex, which
// names no limit, failed every longer answer on a Claude target (probe
// c50c).
var claudeFamily = regexp.MustCompile(`claude-(?:(opus|sonnet|haiku)-(\d+)(?:[-.](\d)(?:\D|$))?|(\d)-(\d)-(sonnet|haiku|opus))`)

// contextWindow is the context window a default is fitted into: Claude's
// standard 200,000 tokens (the 1M window needs a beta header the
// translation does not send). Newer models refuse a request whose input
// and max_tokens together exceed it ("input length and `max_tokens`
// exceed context limit"), so a long conversation gets less room to answer
// rather than a 400.
const contextWindow = 200_000

// maxTokensFor is the max_tokens sent for model when the client names
// none: the model's own maximum, fitted into the context window beside an
// input of bodyLen bytes (taken at three bytes a token, more than most
// text has, so the estimate errs long), never below DefaultMaxTokens.
func maxTokensFor(model string, bodyLen int) int {
	most := modelMaxTokens(model)
	if room := contextWindow - bodyLen/3 - 1024; room < most {
		most = room
	}
	return max(most, DefaultMaxTokens)
}

// capToModel is the client's output limit n, no more than the output
// maximum of model where its family is known: a limit is a ceiling, and
// one set for the route's first model (GPT-5 writes 128,000 tokens) made
// Anthropic refuse a fallback to Claude with a 400 ("max_tokens: 100000 >
// 64000 …"; probe 52b). A name not read keeps n: its maximum is not known.
func capToModel(model string, n int) int {
	if most, ok := knownMaxTokens(model); ok {
		return min(n, most)
	}
	return n
}

// knownMaxTokens is the output maximum of model where Anthropic's models
// overview states it for that very model: Claude 3 (4,096), 3.5 (8,192),
// 3.7 Sonnet (64,000), Opus 4 and 4.1 (32,000), the other 4.0 and 4.5
// models (64,000). A later model may write more (Opus 4.6: 128,000),
// which modelMaxTokens' floor for a default must not cap (review 52b).
func knownMaxTokens(model string) (int, bool) {
	m := claudeFamily.FindStringSubmatch(model)
	switch {
	case m == nil:
		return 0, false
	case m[1] != "":
		major, _ := strconv.Atoi(m[2])
		if major < 4 || major == 4 && (m[3] == "" || m[3] <= "5") {
			return modelMaxTokens(model), true
		}
		return 0, false
	}
	return modelMaxTokens(model), true // claude-3-5-sonnet and the like
}

// modelMaxTokens is the output maximum of the Claude model named model
// (a Bedrock or Vertex id too: the family is read where it appears; a
// relay's dotted minor version, claude-opus-4.7, as well).
func modelMaxTokens(model string) int {
	m := claudeFamily.FindStringSubmatch(model)
	switch {
	case m == nil:
		return DefaultMaxTokens
	case m[1] != "": // claude-opus-4-1, claude-sonnet-4-5-20250929
		major, _ := strconv.Atoi(m[2])
		switch {
		case major < 4:
			return DefaultMaxTokens
		case major == 4 && m[1] == "opus" && (m[3] == "" || m[3] == "0" || m[3] == "1"): // claude-opus-4-0 is Opus 4's alias (review r50)
			return 32_000
		}
		return 64_000
	}
	// claude-3-7-sonnet, claude-3-5-haiku
	switch major, minor := m[4], m[5]; {
	case major == "3" && minor == "7":
		return 64_000
	case major == "3" && minor == "5":
		return 8_192
	}
	return DefaultMaxTokens
}

// fixedSampling reports a Claude model that refuses sampling settings:
// Opus 4.7 and later answer a request naming temperature, top_p or top_k
// with a 400 ("`temperature` is deprecated for this model."; Anthropic's
// "Migrating to Claude Opus 4.7", OpenRouter's Claude 4.7 migration
// guide). A chat client's settings were chosen for whichever model the
// route gives it, so they are not sent to one of these (round 51: before,
// every such request with a temperature, most chat clients', failed there).
func fixedSampling(model string) bool {
	m := claudeFamily.FindStringSubmatch(model)
	if m == nil || m[1] != "opus" {
		return false
	}
	major, _ := strconv.Atoi(m[2])
	minor, _ := strconv.Atoi(m[3])
	return major > 4 || major == 4 && minor >= 7
}

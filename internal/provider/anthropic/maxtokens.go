package anthropic

// Claude's own output maxima by model family, for a request that names no
// limit (Anthropic's models overview): the Claude 4 models write 64,000
// tokens but Opus 4 and 4.1, which write 32,000; 3.7 Sonnet 64,000; 3.5
// 8,192; any other (Claude 3, a name not read) DefaultMaxTokens. A later
// family is taken to write at least what 4.5 does. Anthropic refuses a
// max_tokens above the model's maximum ("max_tokens: 10000 > 4096, which is
// the maximum allowed number of output tokens for …"), so the default
// follows the name, read as every rule reads it (claudeVersion,
// generation.go). Before round 50 every model got 4096, and Codex, which
// names no limit, failed every longer answer on a Claude target (probe
// c50c).

// contextWindow is the context window a default is fitted into: Claude's
// standard 200,000 tokens (the 1M window needs a beta header the
// translation does not send). Newer models refuse a request whose input
// and max_tokens together exceed it ("input length and `max_tokens`
// exceed context limit"), so a long conversation gets less room to answer
// rather than a 400.
const contextWindow = 200_000

// SentMaxTokens is the max_tokens a chat request of bodyLen bytes is
// translated to model with: the client's limit n (where limited) no more
// than the model's maximum (capToModel), else the model's own maximum
// fitted to the window (maxTokensFor). Dispatch reads it too: an answer it
// stopped waiting for counts at most this (docs/behaviour.md#budgets).
func SentMaxTokens(model string, n int, limited bool, bodyLen int) int {
	if limited {
		return capToModel(model, n)
	}
	return maxTokensFor(model, bodyLen)
}

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
// models (64,000), Opus 4.8 and every model from the 5 generation on
// (128,000: output128k; before review 66d a max_tokens above it went to
// Sonnet 5.5 or Opus 5.5 as sent, a 400). Opus 4.6 and 4.7 and Sonnet 4.6
// are not capped: their maxima are not stated here, and modelMaxTokens'
// floor for a default must not cap them (review 52b).
func knownMaxTokens(model string) (int, bool) {
	switch {
	case output128k.holds(model):
		return 128_000, true
	case beforeAdaptive(model):
		return modelMaxTokens(model), true
	}
	return 0, false
}

// beforeAdaptive reports a Claude model before the 4.6 generation, the
// first with adaptive thinking: Claude 3 to 4.5.
func beforeAdaptive(model string) bool {
	v, ok := claudeVersion(model)
	return ok && !v.atLeast(version{major: 4, minor: 6})
}

// modelMaxTokens is the output maximum of the Claude model named model
// (a Bedrock or Vertex id too: the family is read where it appears; a
// relay's dotted minor version, claude-opus-4.7, as well).
func modelMaxTokens(model string) int {
	v, ok := claudeVersion(model)
	switch {
	case !ok:
		return DefaultMaxTokens
	case v.family == "opus" && v.major == 4 && v.minor <= 1: // claude-opus-4-0 is Opus 4's alias (review r50)
		return 32_000
	case v.major >= 4, v.major == 3 && v.minor == 7: // claude-sonnet-4-5-20250929, claude-3-7-sonnet
		return 64_000
	case v.major == 3 && v.minor == 5: // claude-3-5-haiku
		return 8_192
	}
	return DefaultMaxTokens
}

// fixedSampling reports a Claude model that refuses sampling settings
// (samplingRefused): Opus 4.7 and later, and every model from the 5
// generation on (Sonnet 5: "sampling parameters (temperature, top_p,
// top_k) set to non-default values return a 400 error"), answer a request
// naming temperature, top_p or top_k with a 400 ("`temperature` is
// deprecated for this model."; Anthropic's "Migrating to Claude Opus
// 4.7"). A chat client's settings were chosen for whichever model the
// route gives it, so they are not sent to one of these (round 51: before,
// every such request with a temperature, most chat clients', failed there;
// review 66d: so did every one at Sonnet 5, Sonnet 5.5 and Fable).
func fixedSampling(model string) bool { return samplingRefused.holds(model) }

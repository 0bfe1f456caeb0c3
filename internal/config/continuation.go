package config

import "github.com/detour-llm/detour/classify"

// Mid-stream continuation options (docs/config.md#routes, docs/design.md
// "Mid-stream continuation: the building blocks").

// The values of a route's on_stream_cut.
const (
	// OnCutError ends a stream cut after its first content with an SSE
	// error event (the default).
	OnCutError = "error"
	// OnCutContinue continues a cut stream at the next endpoint or target.
	OnCutContinue = "continue"
)

// DefaultMaxContinuations is a route's max_continuations when not written.
const DefaultMaxContinuations = 2

// decodeContinuation decodes a route's on_stream_cut and max_continuations.
func (g fields) decodeContinuation(rt *Route) {
	if v, ok := g.str("on_stream_cut", false); ok && g.d.oneOf(v, "route on_stream_cut", OnCutError, OnCutContinue) {
		rt.OnStreamCut = v.s
	}
	g.setInt("max_continuations", &rt.MaxContinuations, 0)
}

// decodePrefill decodes a target's prefill: true or false; unset leaves nil.
func (g fields) decodePrefill(t *Target) {
	if v, ok := g.str("prefill", false); ok {
		var b bool
		if g.d.boolean(v, "target prefill", &b) {
			t.Prefill = &b
		}
	}
}

// AcceptsPrefill reports whether a continuation may be sent to this target
// over a provider of dialect dl as a trailing assistant message: the
// target's prefill when written, else the dialect's default — anthropic
// true (Claude models before the 4.6 generation accept it; newer ones
// refuse with a 400 that the caller recognises and answers by replay; the
// dispatcher reads the model's name and does not try them: review 66d),
// openai false (OpenAI's own API has no prefill; set true for vLLM, SGLang
// or llama.cpp servers, which take continue_final_message), gemini false.
func (t *Target) AcceptsPrefill(dl classify.Dialect) bool {
	if t.Prefill != nil {
		return *t.Prefill
	}
	return dl == classify.Anthropic
}

// Continues reports whether the route continues cut streams; the zero
// Route (e.g. the implicit route of a target named directly) does not.
func (r *Route) Continues() bool { return r.OnStreamCut == OnCutContinue }

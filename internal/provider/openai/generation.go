package openai

import (
	"bytes"
	"strings"

	"github.com/detour-llm/detour/internal/rawjson"
)

// OpenAI's reasoning models differ in what a request may say, generation
// by generation (review 66e; docs/doors.md, "OpenAI reasoning models by
// generation"). A door's translation carries what its client wrote for
// whichever model the route gives it, so it is fitted to the model's
// generation, read from the version numbers of its name: a later model
// of a known generation is served without a change here. A Chat
// Completions client's own body is its own, and goes as it was written.

// generation is what an OpenAI model name says of its request rules.
type generation struct {
	// major and minor: gpt-5.4 is 5 and 4, gpt-5 is 5 and 0; an o-series
	// model (o1, o3, o4-mini) and codex-mini-latest are oSeries.
	major, minor int
	oSeries      bool
	// Variants, as the name's dash-separated words say them.
	codex, pro, max, chat bool
}

// generationOf reads model ("gpt-5.4-mini", "openai/o3", "gpt-6"), ok
// only for one of OpenAI's reasoning models: o1 and later o-series
// models, codex-…, and gpt-N for N of 5 and later.
func generationOf(model string) (g generation, ok bool) {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	// A fine-tune is its base model's generation ("ft:o4-mini-2025-04-16:
	// org::id"), and a tag after a colon names a variant of the same model
	// (OpenRouter's "gpt-5.4:nitro", ":online"): review 66g.
	m = strings.TrimPrefix(m, "ft:")
	if i := strings.IndexByte(m, ':'); i >= 0 {
		m = m[:i]
	}
	var rest string
	switch {
	case len(m) >= 2 && m[0] == 'o' && m[1] >= '1' && m[1] <= '9':
		g.oSeries, rest = true, m[1:]
	case strings.HasPrefix(m, "codex-"):
		g.oSeries, g.codex, rest = true, true, m
	case strings.HasPrefix(m, "gpt-"):
		var n int
		if g.major, n = number(m[4:]); n == 0 || g.major < 5 {
			return g, false
		}
		rest = m[4+n:]
		if strings.HasPrefix(rest, ".") {
			if g.minor, n = number(rest[1:]); n == 0 {
				return g, false
			}
			rest = rest[1+n:]
		}
		if rest != "" && rest[0] != '-' {
			return g, false
		}
	default:
		return g, false
	}
	for _, w := range strings.Split(rest, "-") {
		switch w {
		case "codex":
			g.codex = true
		case "pro":
			g.pro = true
		case "max":
			g.max = true
		case "chat":
			g.chat = true
		}
	}
	return g, true
}

// number is the decimal number s begins with and its digits' count.
func number(s string) (v, n int) {
	for n < len(s) && n < 4 && s[n] >= '0' && s[n] <= '9' {
		v = v*10 + int(s[n]-'0')
		n++
	}
	return v, n
}

// after reports whether g is gpt-major.minor or a later generation.
func (g generation) after(major, minor int) bool {
	return !g.oSeries && (g.major > major || g.major == major && g.minor >= minor)
}

// takesNone: "gpt-5.1 defaults to none … All models before gpt-5.1 … do
// not support none"; the codex and pro models reason always.
func (g generation) takesNone() bool { return g.after(5, 1) && !g.codex && !g.pro }

// takesXhigh: "xhigh is supported for all models after
// gpt-5.1-codex-max" (and by it).
func (g generation) takesXhigh() bool {
	return g.after(5, 2) || g.major == 5 && g.minor == 1 && g.codex && g.max
}

// takesMinimal: minimal came with GPT-5 and went with GPT-5.1 ("Unsupported
// value: 'minimal' is not supported with the 'gpt-5.1' model"); the codex
// and pro models never took it.
func (g generation) takesMinimal() bool {
	return !g.oSeries && g.major == 5 && g.minor == 0 && !g.codex && !g.pro
}

// onlyHigh: "The gpt-5-pro model defaults to (and only supports) high".
func (g generation) onlyHigh() bool { return g.major == 5 && g.minor == 0 && g.pro }

// fitEffort is effort as g takes it: the nearest value it takes, the
// lowest for none where it has no none. A value not known here goes as
// sent.
func (g generation) fitEffort(effort string) string {
	if g.onlyHigh() {
		switch effort {
		case "none", "minimal", "low", "medium", "xhigh":
			return "high"
		}
		return effort
	}
	switch effort {
	case "none":
		switch {
		case g.takesNone():
			return "none"
		case g.takesMinimal():
			return "minimal"
		}
		return "low"
	case "minimal":
		if !g.takesMinimal() {
			return "low"
		}
	case "xhigh":
		if !g.takesXhigh() {
			return "high"
		}
	}
	return effort
}

// refusesSampling reports whether g refuses temperature, top_p and
// logprobs at the effort sent ("" for none sent): "only supported when
// using GPT-5.2 with reasoning effort set to none … Requests to GPT-5.2
// or GPT-5.1 with any other reasoning effort setting, or to older GPT-5
// models (e.g., gpt-5, gpt-5-mini, gpt-5-nano) that include these fields
// will raise an error"; the o-series, codex and pro models reason always.
// A later model sent no effort defaults to none (gpt-5.1's rule): where it
// does not, the refused-member resend (dispatch) still serves it.
func (g generation) refusesSampling(effort string) bool {
	if !g.takesNone() {
		return true
	}
	return effort != "" && effort != "none"
}

// needsNoneWithTools: from GPT-5.4 on, Chat Completions refuses function
// tools beside a reasoning effort other than none (and the 5.6 models at
// their default effort), pointing to /v1/responses or to none. The codex
// and pro models take no none: as sent.
func (g generation) needsNoneWithTools() bool { return g.after(5, 4) && !g.codex && !g.pro }

// refusedSamplingMembers are the members refusesSampling speaks of;
// top_logprobs goes with logprobs, which it needs.
var refusedSamplingMembers = []string{"temperature", "top_p", "logprobs", "top_logprobs"}

// fitToGeneration is a translated body fitted to the OpenAI reasoning
// model: reasoning_effort fitted to its generation (none where it is sent
// function tools and needs it), and the sampling members it refuses at
// that effort left out. body itself for any other model, and when nothing
// changes.
func fitToGeneration(body []byte, model string) []byte {
	g, ok := generationOf(model)
	if !ok || g.chat {
		return body
	}
	effort, _ := rawjson.String(rawjson.Member(body, "reasoning_effort"))
	fitted := effort
	if effort != "" {
		fitted = g.fitEffort(effort)
	}
	if g.needsNoneWithTools() && hasTools(body) {
		fitted = "none"
	}
	if fitted != effort {
		body = rawjson.WithLast(rawjson.Without(body, "reasoning_effort"), "reasoning_effort", []byte(`"`+fitted+`"`))
	}
	if g.refusesSampling(fitted) {
		for _, m := range refusedSamplingMembers {
			if rawjson.Member(body, m) != nil {
				body = rawjson.Without(body, m)
			}
		}
	}
	return body
}

// hasTools reports whether body's tools is an array with an element.
func hasTools(body []byte) bool {
	t := bytes.TrimSpace(rawjson.Member(body, "tools"))
	if len(t) == 0 || t[0] != '[' {
		return false
	}
	sc, ok := rawjson.ScanArray(t)
	if !ok {
		return false
	}
	_, _, more := sc.Next()
	return more
}

// geminiEffort is a translated reasoning_effort as Gemini's
// OpenAI-compatible endpoint takes it: "Valid values are: high, low,
// medium, none" (minimal, which its documentation maps to Gemini 3 Pro's
// low, is a 400 there; xhigh is none of them). body itself when nothing
// changes.
func geminiEffort(body []byte) []byte {
	var to string
	switch e, _ := rawjson.String(rawjson.Member(body, "reasoning_effort")); e {
	case "minimal":
		to = `"low"`
	case "xhigh":
		to = `"high"`
	default:
		return body
	}
	return rawjson.WithLast(rawjson.Without(body, "reasoning_effort"), "reasoning_effort", []byte(to))
}

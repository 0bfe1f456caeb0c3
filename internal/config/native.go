package config

import "github.com/detour-llm/detour/classify"

// decodeResponses decodes a provider's responses: true or false (default
// false). Only the openai dialect serves the Responses API; any other
// dialect setting it is an error naming the dialect.
func (g fields) decodeResponses(p *Provider) {
	g.decodeNative("responses", "the Responses API", &p.Responses, p.Dialect)
}

// decodeCompletions decodes a provider's completions: true or false
// (default false), as responses is decoded: an opt-in, since a server that
// lacks /completions answers 404, and only an openai-dialect provider may
// set it (docs/doors.md, "Legacy Completions").
func (g fields) decodeCompletions(p *Provider) {
	g.decodeNative("completions", "the legacy Completions API", &p.Completions, p.Dialect)
}

// decodeNative decodes the boolean key saying an openai-dialect provider
// serves api as is into out; set on another dialect, it is an error naming
// that dialect.
func (g fields) decodeNative(key, api string, out *bool, dialect classify.Dialect) {
	v, ok := g.str(key, false)
	if !ok {
		return
	}
	var b bool
	if !g.d.boolean(v, "provider "+key, &b) {
		return
	}
	if b && dialect != "" && dialect != classify.OpenAI {
		g.d.errorf(v.node, "provider %s: only an openai-dialect provider serves %s, not %s", key, api, dialect)
		return
	}
	*out = b
}

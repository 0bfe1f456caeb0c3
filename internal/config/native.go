package config

import "github.com/detour-llm/detour/classify"

// decodeResponses decodes a provider's responses: true or false (default
// false). Only the openai dialect serves the Responses API; any other
// dialect setting it is an error naming the dialect.
func (g fields) decodeResponses(p *Provider) {
	v, ok := g.str("responses", false)
	if !ok {
		return
	}
	var b bool
	if !g.d.boolean(v, "provider responses", &b) {
		return
	}
	if b && p.Dialect != "" && p.Dialect != classify.OpenAI {
		g.d.errorf(v.node, "provider responses: only an openai-dialect provider serves the Responses API, not %s", p.Dialect)
		return
	}
	p.Responses = b
}

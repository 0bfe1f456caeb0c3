package dispatch

import (
	"testing"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/provider"
)

// Review 66d: a cut stream continued at a Claude model that refuses
// prefill (the 4.6 generation on: Sonnet 5.5's migration guide lists
// "assistant prefill" among its 400s) goes by replay from the start; before,
// each such continuation first sent a prefill, paid a refused round trip,
// and then replayed. A target's written prefill still decides.
func TestAcceptsPrefillReadsTheModelReview66d(t *testing.T) {
	yes, no := true, false
	for _, c := range []struct {
		model   string
		dialect classify.Dialect
		written *bool
		want    bool
	}{
		{"claude-sonnet-4-5", classify.Anthropic, nil, true},
		{"claude-sonnet-5-5", classify.Anthropic, nil, false},
		{"claude-opus-4-6", classify.Anthropic, nil, false},
		{"claude-fable-5-1", classify.Anthropic, nil, false},
		{"a-relay-model", classify.Anthropic, nil, true},
		{"claude-sonnet-5-5", classify.Anthropic, &yes, true},
		{"claude-sonnet-4-5", classify.Anthropic, &no, false},
		{"claude-sonnet-5-5", classify.OpenAI, &yes, true},
		{"gpt-4o", classify.OpenAI, nil, false},
	} {
		e := &endpointRT{prov: &providerRT{cfg: &config.Provider{Dialect: c.dialect}},
			target: &targetRT{cfg: &config.Target{Prefill: c.written}}, ep: provider.Endpoint{Model: c.model}}
		if got := acceptsPrefill(e); got != c.want {
			t.Errorf("%s over %v (prefill %v): %v, want %v", c.model, c.dialect, c.written, got, c.want)
		}
	}
}

package dispatch

import (
	"math"
	"testing"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/provider"
)

func f64(x float64) *float64 { return &x }

// OpenAI prices audio tokens apart from text: gpt-4o-mini-audio-preview
// text $0.15/$0.60, audio $10/$20 per million
// (https://developers.openai.com/api/docs/models/gpt-4o-mini-audio-preview).
// An answer of 9,900 audio tokens and 100 text tokens, on a prompt of 20,
// costs 20×0.15 + 100×0.60 + 9,900×20 millionths of a dollar: $0.198063,
// not the $0.006003 of the text price (hostile 57, finding 5). The usage's
// audio counts are kept in the record, within the prompt and the output.
func TestAccountAudioBuilder57(t *testing.T) {
	voice := &config.Price{Input: 0.15, Output: 0.60, AudioInput: f64(10), AudioOutput: f64(20)}
	text := &config.Price{Input: 0.15, Output: 0.60}
	for _, c := range []struct {
		name    string
		p       *config.Price
		u       provider.Usage
		in, out int
		want    float64
	}{
		{"audio answer", voice, provider.Usage{PromptTokens: 20, CompletionTokens: 10000, TotalTokens: 10020,
			PromptTokensDetails: &provider.TokenDetails{}, CompletionTokensDetails: &provider.OutputDetails{AudioTokens: 9900}},
			0, 9900, (20*0.15 + 100*0.60 + 9900*20) / 1e6},
		{"audio prompt", voice, provider.Usage{PromptTokens: 1000, CompletionTokens: 10, TotalTokens: 1010,
			PromptTokensDetails: &provider.TokenDetails{AudioTokens: 800}},
			800, 0, (200*0.15 + 800*10 + 10*0.60) / 1e6},
		{"no audio price: text price, as before", text, provider.Usage{PromptTokens: 20, CompletionTokens: 10000, TotalTokens: 10020,
			CompletionTokensDetails: &provider.OutputDetails{AudioTokens: 9900}},
			0, 9900, (20*0.15 + 10000*0.60) / 1e6},
		{"audio past its part", voice, provider.Usage{PromptTokens: 100, CompletionTokens: 10, TotalTokens: 110,
			PromptTokensDetails: &provider.TokenDetails{CachedTokens: 60, AudioTokens: 9_000_000}, CompletionTokensDetails: &provider.OutputDetails{AudioTokens: -5}},
			40, 0, (60*0.15 + 40*10 + 10*0.60) / 1e6},
	} {
		t.Run(c.name, func(t *testing.T) {
			u := c.u
			var a decision.Attempt
			account(&a, &config.Target{Price: c.p}, &outcome{usage: &u, ok: true, billable: true}, nil, nil)
			if a.Usage.AudioInputTokens != c.in || a.Usage.AudioOutputTokens != c.out {
				t.Errorf("audio %d in, %d out; want %d, %d", a.Usage.AudioInputTokens, a.Usage.AudioOutputTokens, c.in, c.out)
			}
			if a.CostUSD == nil || math.Abs(float64(*a.CostUSD)-c.want) > 1e-12 {
				t.Errorf("cost %v, want %v", a.CostUSD, c.want)
			}
		})
	}
}

// Above a long_context threshold the tier's audio prices apply; a tier
// that names none has its target's (config's inheritance), and so does
// the estimate of a stream cut before its count.
func TestCostAudioTierBuilder57(t *testing.T) {
	p := &config.Price{Input: 1, Output: 2, AudioInput: f64(4), AudioOutput: f64(8),
		LongContext: &config.LongContextPrice{Above: 1000, Price: config.Price{Input: 2, Output: 4, AudioInput: f64(4), AudioOutput: f64(16)}}}
	small := &decision.Usage{PromptTokens: 1000, CompletionTokens: 100, AudioInputTokens: 500, AudioOutputTokens: 50}
	if got, want := cost(p, small), (500*1+500*4+50*2+50*8)/1e6; math.Abs(got-want) > 1e-12 {
		t.Errorf("at the threshold: %v, want %v", got, want)
	}
	large := &decision.Usage{PromptTokens: 2000, CompletionTokens: 100, AudioInputTokens: 500, AudioOutputTokens: 50}
	if got, want := cost(p, large), (1500*2+500*4+50*4+50*16)/1e6; math.Abs(got-want) > 1e-12 {
		t.Errorf("above the threshold: %v, want %v", got, want)
	}
}

package e2e

import (
	"context"
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Builder 57 (hostile 57, finding 5): a target's price says what its
// audio tokens cost, and a key's budget counts an audio answer at it.
// OpenAI prices gpt-4o-mini-audio-preview's text at $0.15/$0.60 and its
// audio at $10/$20 per million tokens, and its usage says which tokens
// were audio (completion_tokens_details.audio_tokens; openai-go v3
// CompletionUsageCompletionTokensDetails). Through the official openai-go
// SDK, with Modalities text and audio, a spoken answer of 9,900 audio
// tokens costs $0.198063: on a $0.05 budget the key's next request is
// refused, whole or streamed.

const b57Cfg = `
client_keys:
  - {name: team-b, key: key-team-b, budget: {usd_per_day: 0.05}}
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
targets:
  - {name: voice, model: gpt-4o-mini-audio-preview, providers: [openai], price: {input: 0.15, output: 0.60, audio_input: 10.00, audio_output: 20.00}}
routes:
  - {name: talk, targets: [voice]}
`

// b57Cost is the answer's cost at OpenAI's prices: 20 text tokens in, 100
// text and 9,900 audio tokens out.
const b57Cost = (20*0.15 + 100*0.60 + 9900*20.0) / 1e6

// b57Usage is the answer's usage as OpenAI reports it.
const b57Usage = `{"prompt_tokens":20,"completion_tokens":10000,"total_tokens":10020,` +
	`"prompt_tokens_details":{"cached_tokens":0,"audio_tokens":0},` +
	`"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":9900,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0,"text_tokens":100}}`

func b57Params() openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:      "talk",
		Modalities: []string{"text", "audio"},
		Audio:      openai.ChatCompletionAudioParam{Voice: openai.ChatCompletionAudioParamVoiceUnion{OfString: openai.String("alloy")}, Format: openai.ChatCompletionAudioParamFormatWAV},
		Messages:   []openai.ChatCompletionMessageParamUnion{openai.UserMessage("tell me a story, aloud")},
	}
}

func TestBuilder57AudioAnswerCountsAtTheAudioPrice(t *testing.T) {
	whole := upstreamtest.Step{Body: `{"id":"chatcmpl-a","object":"chat.completion","created":1,"model":"gpt-4o-mini-audio-preview",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":null,"audio":{"id":"audio_1","data":"UklGRg==","expires_at":1999999999,"transcript":"hello there"}},"finish_reason":"stop"}],` +
		`"usage":` + b57Usage + `}`}
	// Streamed (pcm16: OpenAI streams audio as deltas of message.audio),
	// the usage comes in a chunk of its own, when asked for: the client
	// here does not ask, Detour does, and the client is not sent it.
	stream := func(_ int, r upstreamtest.Request) upstreamtest.Step {
		evs := []string{
			`{"id":"chatcmpl-s","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini-audio-preview","choices":[{"index":0,"delta":{"role":"assistant","content":null,"audio":{"id":"audio_2","transcript":"hello"}},"finish_reason":null}]}`,
			`{"id":"chatcmpl-s","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini-audio-preview","choices":[{"index":0,"delta":{"audio":{"data":"AAAA"}},"finish_reason":null}]}`,
			`{"id":"chatcmpl-s","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini-audio-preview","choices":[{"index":0,"delta":{"audio":{"expires_at":1999999999,"transcript":" there"}},"finish_reason":null}]}`,
			`{"id":"chatcmpl-s","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini-audio-preview","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
		}
		if asksUsage(r.Body) {
			evs = append(evs, `{"id":"chatcmpl-s","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini-audio-preview","choices":[],"usage":`+b57Usage+`}`)
		}
		return upstreamtest.Step{Events: append(evs, "[DONE]")}
	}
	for _, c := range []struct {
		name   string
		script upstreamtest.Script
		stream bool
	}{{"whole", script(whole), false}, {"stream", stream, true}} {
		t.Run(c.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"openai": c.script})
			clk := testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
			g := startClock(t, b57Cfg, fs, clk)
			sdk := sdkAs(g, "key-team-b")
			if c.stream {
				st := sdk.Chat.Completions.NewStreaming(context.Background(), b57Params())
				for st.Next() {
					if ch := st.Current(); len(ch.Choices) == 0 {
						t.Errorf("the client was sent the usage chunk it did not ask for: %s", ch.RawJSON())
					}
				}
				if err := st.Err(); err != nil {
					t.Fatal(err)
				}
			} else {
				resp, err := sdk.Chat.Completions.New(context.Background(), b57Params())
				if err != nil {
					t.Fatal(err)
				}
				if resp.Choices[0].Message.Audio.Transcript != "hello there" || resp.Usage.CompletionTokensDetails.AudioTokens != 9900 {
					t.Errorf("the client's answer: %s", resp.RawJSON())
				}
			}
			d := g.recs.wait(t, 1)
			if d.Usage == nil || d.Usage.AudioOutputTokens != 9900 || d.Usage.AudioInputTokens != 0 || d.Usage.CompletionTokens != 10000 {
				t.Errorf("recorded usage %+v, want 9,900 of 10,000 output tokens audio", d.Usage)
			}
			if d.CostUSD == nil || math.Abs(float64(*d.CostUSD)-b57Cost) > 1e-9 {
				t.Errorf("recorded cost %s, want $%.6f", usd(d.CostUSD), b57Cost)
			}
			if r := g.post(t, "talk", "", "Authorization", "Bearer key-team-b"); r.Status != http.StatusTooManyRequests {
				t.Errorf("next request: %d, want 429: 9,900 audio output tokens cost $%.3f on a $0.05 budget", r.Status, b57Cost)
			}
		})
	}
}

package e2e

import (
	"strings"
	"testing"
)

// The Vercel AI SDK (ai.mjs) through its four providers that can point at
// Detour (OpenAI Responses, OpenAI chat, Anthropic, openai-compatible), for
// every upstream kind: text and tool loops, whole and streamed, with an
// image that must reach the upstream translated; a second turn; embeddings;
// and the errors it must read.
func TestNodeVercelAISDK(t *testing.T) {
	for _, kind := range nodeKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			res, up := nodeRun(t, kind, "ai.mjs")
			wantImages(t, up, 4)
			for _, p := range []string{"responses", "chat", "anthropic", "compat"} {
				for _, name := range []string{p + "_generate", p + "_stream"} {
					var c struct {
						Text   string `json:"text"`
						Finish string `json:"finish"`
						Usage  struct {
							InputTokens, OutputTokens int
						} `json:"usage"`
					}
					if !res.Case(t, name, &c) {
						continue
					}
					if c.Text != nodeReply || c.Finish != "stop" || c.Usage.OutputTokens == 0 {
						t.Errorf("%s: %+v", name, c)
					}
				}
				var img struct {
					Text string `json:"text"`
				}
				if res.Case(t, p+"_image", &img) && img.Text != nodeReply {
					t.Errorf("%s_image: text %q", p, img.Text)
				}
				for _, name := range []string{p + "_tools", p + "_stream_tools"} {
					var c struct {
						Text  string        `json:"text"`
						Steps int           `json:"steps"`
						Calls []weatherCall `json:"calls"`
					}
					if !res.Case(t, name, &c) {
						continue
					}
					wantWeather(t, name, c.Calls)
					if c.Text != nodeReply || c.Steps != 2 {
						t.Errorf("%s: %+v", name, c)
					}
				}
			}
			// A conversation's second turn: the Responses provider refers to
			// the first answer by id unless told store: false, and Detour
			// stores nothing, so the 400 says how (docs/doors.md).
			for _, name := range []string{"responses_two_turns_nostore", "chat_two_turns", "anthropic_two_turns", "compat_two_turns"} {
				var c struct {
					Text string `json:"text"`
				}
				if res.Case(t, name, &c) && c.Text != nodeReply {
					t.Errorf("%s: %+v", name, c)
				}
			}
			if e := res.CaseError(t, "responses_two_turns"); e.Status != 400 || !strings.Contains(e.Message, "store: false") {
				t.Errorf("responses_two_turns: %+v, want a 400 naming store: false", e)
			}
			var one struct {
				Vector []float64 `json:"vector"`
			}
			res.Case(t, "openai_embed", &one)
			if !sameVectors(kind, [][]float64{one.Vector}, wantVectors[:1]) {
				t.Errorf("embed: %v", one.Vector)
			}
			for _, name := range []string{"openai_embed_many", "compat_embed_many"} {
				var c struct {
					Vectors [][]float64 `json:"vectors"`
				}
				if !res.Case(t, name, &c) {
					continue
				}
				if !sameVectors(kind, c.Vectors, wantVectors) {
					t.Errorf("%s: %v", name, c.Vectors)
				}
			}
			if e := res.CaseError(t, "error_model"); e.Status != 404 {
				t.Errorf("unknown model: %+v, want an APICallError with status 404", e)
			}
		})
	}
}

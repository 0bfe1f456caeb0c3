package e2e

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/clienttest"
)

// Probe 69h: the Vercel AI SDK's Google provider (@ai-sdk/google,
// e2e/testdata/node/google.mjs) with its baseURL at Detour's /v1beta, in
// front of a Gemini upstream (passthrough) and an OpenAI and a Claude
// upstream (translated): generateText, streamText, a tool over two steps
// (whole and streamed), generateObject, an image, and its APICallError for
// an unknown route and a refused member.
func TestNodeAISDKGoogle(t *testing.T) {
	for _, kind := range []string{"openai", "anthropic", "gemini"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			g := geminiDoorGateway(t, kind)
			res := clienttest.RunNode(t, g.URL, "google.mjs", "DETOUR_ERROR_ROUTES=failover=failover-route,cut=cut-route")
			if testing.Verbose() {
				t.Logf("stdout: %s\nstderr: %s", res.Stdout, res.Stderr)
			}
			type usage struct{ InputTokens, OutputTokens, TotalTokens int }
			var gen struct {
				Text, Finish string
				Usage        usage
			}
			if res.Case(t, "generate", &gen) && (gen.Text != nodeReply || gen.Finish != "stop" || gen.Usage.TotalTokens == 0) {
				t.Errorf("generate: %+v", gen)
			}
			var st struct {
				Text, Finish string
				Usage        usage
			}
			if res.Case(t, "stream", &st) && (st.Text != nodeReply || st.Finish != "stop" || st.Usage.TotalTokens == 0) {
				t.Errorf("stream: %+v", st)
			}
			var img struct{ Text string }
			if res.Case(t, "image", &img) && img.Text != nodeReply {
				t.Errorf("image: %+v", img)
			}
			for _, name := range []string{"tools", "stream_tools"} {
				var r struct {
					Text, Finish string
					Steps        int
					Calls        []weatherCall `json:"calls"`
				}
				if !res.Case(t, name, &r) {
					continue
				}
				wantWeather(t, name, r.Calls)
				if r.Text != nodeReply || r.Finish != "stop" || r.Steps != 2 {
					t.Errorf("%s: %+v", name, r)
				}
			}
			var obj struct {
				Object struct {
					City  string `json:"city"`
					Sunny bool   `json:"sunny"`
				} `json:"object"`
			}
			if res.Case(t, "object", &obj) && (obj.Object.City != "Paris" || !obj.Object.Sunny) {
				t.Errorf("object: %+v", obj)
			}
			// The provider's requests: the Gemini door's paths, the key in
			// x-goog-api-key.
			type thrown *struct {
				Class, Name, Message, Body string
				Status                     int
			}
			var errs struct {
				Unknown, Bad  thrown
				StreamUnknown thrown `json:"stream_unknown"`
			}
			if !res.Case(t, "errors", &errs) {
				return
			}
			for name, e := range map[string]thrown{"unknown": errs.Unknown, "stream_unknown": errs.StreamUnknown} {
				if e == nil || e.Name != "AI_APICallError" || e.Status != 404 || !strings.Contains(e.Body, "NOT_FOUND") || !strings.Contains(e.Message, "detour-route") {
					t.Errorf("%s route: %+v, want APICallError 404 NOT_FOUND naming the known routes", name, e)
				}
			}
			var fail struct {
				Failover struct{ Text string }
				Cut      struct {
					Text, Finish string
					Error        *struct{ Name, Message string }
				}
			}
			if res.Case(t, "failures", &fail) {
				if fail.Failover.Text != nodeReply {
					t.Errorf("failover: %+v", fail.Failover)
				}
				// A stream cut after its first words: those words, then an
				// error part carrying Detour's message (before probe 69h the
				// words were lost).
				if c := fail.Cut; c.Text != "half an answer" || c.Error == nil || !strings.Contains(c.Error.Message, "cut") || c.Finish != "error" {
					t.Errorf("a stream cut after its commit point: %+v, want its words and an error", c)
				}
			}
			if kind == "gemini" { // passed through: the Recorder serves it
				return
			}
			if e := errs.Bad; e == nil || e.Name != "AI_APICallError" || e.Status != 400 || !strings.Contains(e.Body, "INVALID_ARGUMENT") || !strings.Contains(e.Message, "cachedContent") {
				t.Errorf("cachedContent at %s: %+v, want APICallError 400 INVALID_ARGUMENT naming it", kind, e)
			}
		})
	}
}

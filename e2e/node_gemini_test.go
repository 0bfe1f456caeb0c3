package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/clienttest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Google's Gen AI SDK (@google/genai, e2e/testdata/node/gemini.mjs) pointed
// at Detour by httpOptions.baseUrl: the Gemini door (docs/doors.md,
// "Google Gemini") in front of each upstream dialect — a Gemini target
// natively, OpenAI and Claude translated — and, once, Detour's failures
// as the SDK raises them.

// geminiDoorCfg is nodeCfg's with a target that fails (503) before the
// route's own, and one whose stream is cut after its first chunk.
func geminiDoorCfg(kind, up string) string {
	cfg := strings.Replace(nodeCfg(kind, up), "providers:\n", `providers:
  - {name: down, dialect: openai, base_url: "{down}", api_key: `+secret+`}
  - {name: cut, dialect: openai, base_url: "{cut}", api_key: `+secret+`}
`, 1)
	cfg = strings.Replace(cfg, "targets:\n", `targets:
  - {name: down, model: gpt-4o-mini, providers: [down]}
  - {name: cut, model: gpt-4o-mini, providers: [cut]}
`, 1)
	target := map[string]string{"openai": "gpt", "anthropic": "claude", "gemini": "gem"}[kind]
	return cfg + `  - {name: failover-route, targets: [down, ` + target + `]}
  - {name: cut-route, targets: [cut]}
`
}

// geminiDoorGateway is a gateway whose routes (geminiDoorCfg) end at a
// Recorder upstream of kind's dialect, beside a failing "down" target and
// a stream cut after its first words: the Google clients' tests share it.
func geminiDoorGateway(t *testing.T, kind string) *gateway {
	t.Helper()
	up, err := clienttest.NewRecorder(nodeReply, &clienttest.ToolCall{Name: "get_weather", Input: json.RawMessage(`{"location":"Paris"}`)})
	if err != nil {
		t.Fatal(err)
	}
	up.Object = clienttest.Object
	t.Cleanup(up.Close)
	fs := fakes(t, map[string]upstreamtest.Script{
		"down": script(upstreamtest.Step{Status: 503, Body: `{"error":{"message":"overloaded","type":"server_error"}}`}),
		"cut":  script(upstreamtest.Step{Events: upstreamtest.ChatStream("gpt-4o-mini", "half an answer")[:2], Cut: true}),
	})
	return start(t, geminiDoorCfg(kind, up.URL), fs)
}

func TestNodeGeminiSDK(t *testing.T) {
	for _, kind := range []string{"openai", "anthropic", "gemini"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			g := geminiDoorGateway(t, kind)
			var env []string
			if kind == "openai" { // Detour's own failures, whatever the kind: once
				env = append(env, "DETOUR_ERROR_ROUTES=failover=failover-route,cut=cut-route")
			}
			if kind == "anthropic" { // the chat route has no target that embeds
				env = append(env, "DETOUR_EMBED_REFUSED=1")
			}
			res := clienttest.RunNode(t, g.URL, "gemini.mjs", env...)
			if testing.Verbose() {
				t.Logf("stdout: %s\nstderr: %s", res.Stdout, res.Stderr)
			}
			type usage struct{ PromptTokenCount, CandidatesTokenCount, TotalTokenCount int }
			var gen struct {
				Text, Finish, Role, ModelVersion string
				Usage                            usage
			}
			if res.Case(t, "generate", &gen) && (gen.Text != nodeReply || gen.Finish != "STOP" || gen.Role != "model" || gen.Usage.TotalTokenCount == 0) {
				t.Errorf("generate: %+v", gen)
			}
			var st struct {
				Text, Finish string
				Usage        usage
				Chunks       int
			}
			if res.Case(t, "stream", &st) && (st.Text != nodeReply || st.Finish != "STOP" || st.Usage.TotalTokenCount == 0) {
				t.Errorf("stream: %+v", st)
			}
			var chat struct {
				Text    string
				History []string
			}
			if res.Case(t, "chat_stream", &chat) && (chat.Text != nodeReply || strings.Join(chat.History, ",") != "user,model") {
				t.Errorf("chat_stream: %+v, want the turn in the curated history", chat)
			}
			var img struct{ Text, Finish string }
			if res.Case(t, "image", &img) && img.Text != nodeReply {
				t.Errorf("image: %+v", img)
			}
			for _, name := range []string{"tools", "stream_tools"} {
				var r struct {
					Text, Finish string
					Calls        []weatherCall `json:"calls"`
				}
				if !res.Case(t, name, &r) {
					continue
				}
				wantWeather(t, name, r.Calls)
				if r.Text != nodeReply || r.Finish != "STOP" {
					t.Errorf("%s: %+v", name, r)
				}
			}
			var js struct {
				Object struct {
					City  string `json:"city"`
					Sunny bool   `json:"sunny"`
				} `json:"object"`
			}
			if res.Case(t, "json", &js) && (js.Object.City != "Paris" || !js.Object.Sunny) {
				t.Errorf("json: %+v", js)
			}
			var count struct{ TotalTokens int }
			if res.Case(t, "count", &count) && count.TotalTokens <= 0 {
				t.Errorf("count: %+v", count)
			}
			var models struct {
				Names []string
				One   struct{ Name string }
			}
			if res.Case(t, "models", &models) && (!strings.Contains(strings.Join(models.Names, ","), "models/detour-route") || models.One.Name != "models/detour-route") {
				t.Errorf("models: %+v", models)
			}
			// embedContent: one content and several, each sent by the SDK as
			// :batchEmbedContents, to the vectors route (OpenAI's
			// text-embedding-3-small, or Gemini's gemini-embedding-001 for
			// the gemini kind); the recorder's vectors are i+1+j/4, scaled
			// to unit length by the Gemini adapter.
			var emb struct {
				One, Several, Failover []int
				First                  []float64
				Refused                struct {
					Class  string
					Status int
					Body   struct {
						Error struct{ Status, Message string }
					}
				}
			}
			if res.Case(t, "embed", &emb) {
				if fmt.Sprint(emb.One) != "[4]" || fmt.Sprint(emb.Several) != "[3 3 3]" || len(emb.First) != 3 || emb.First[0] <= 0 {
					t.Errorf("embed: %+v", emb)
				}
				if kind == "openai" && fmt.Sprint(emb.Failover) != "[3 3]" {
					t.Errorf("embed over a failover: %+v", emb.Failover)
				}
				if e := emb.Refused; kind == "anthropic" && (e.Class != "ApiError" || e.Status != 400 || e.Body.Error.Status != "INVALID_ARGUMENT" || !strings.Contains(e.Body.Error.Message, "serves")) {
					t.Errorf("embed at a Claude-only route: %+v, want ApiError 400 INVALID_ARGUMENT", e)
				}
			}
			// The SDK's requests went to the Gemini door's paths, with the key
			// in x-goog-api-key.
			if kind != "openai" {
				return
			}
			type apiErr struct {
				Thrown  bool
				Class   string
				Status  int
				Message string
				Body    struct {
					Error struct {
						Code    int
						Message string
						Status  string
					}
				}
			}
			var errs struct {
				Unknown, Bad, Cut apiErr
				Failover          struct{ Text string }
			}
			if !res.Case(t, "errors", &errs) {
				return
			}
			if e := errs.Unknown; e.Class != "ApiError" || e.Status != 404 || e.Body.Error.Status != "NOT_FOUND" || !strings.Contains(e.Body.Error.Message, "detour-route") {
				t.Errorf("unknown route: %+v, want ApiError 404 NOT_FOUND naming the known routes", e)
			}
			if e := errs.Bad; e.Class != "ApiError" || e.Status != 400 || e.Body.Error.Status != "INVALID_ARGUMENT" || !strings.Contains(e.Body.Error.Message, "candidateCount") {
				t.Errorf("candidateCount 2 at OpenAI: %+v, want ApiError 400 INVALID_ARGUMENT", e)
			}
			if errs.Failover.Text != nodeReply {
				t.Errorf("failover: %+v", errs.Failover)
			}
			if e := errs.Cut; e.Class != "ApiError" || e.Status < 500 || e.Body.Error.Code != e.Status {
				t.Errorf("a stream cut after its commit point: %+v, want an ApiError from the error frame", e)
			}
		})
	}
}

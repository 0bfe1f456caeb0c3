package e2e

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/clienttest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// The JavaScript clients most used against OpenAI and Anthropic APIs —
// the official `openai` and `@anthropic-ai/sdk` packages and the Vercel AI
// SDK (`ai` with @ai-sdk/openai, @ai-sdk/anthropic and
// @ai-sdk/openai-compatible) — run by node from e2e/testdata/node through
// Detour to a loopback upstream of each dialect (a clienttest.Recorder,
// which answers every dialect and calls get_weather when it is offered).
// They are skipped unless DETOUR_CLIENTS_DIR holds the versions
// e2e/testdata/node/package.json pins (see internal/clienttest.RunNode);
// docs/doors.md ("JavaScript clients") lists what each needs.

const nodeReply = "hi from the upstream"

// nodeCfg routes "detour-route" to the target of the given kind and
// "detour-vectors" to an embeddings target (Gemini's for gemini, OpenAI's
// otherwise), all at the recorder up.
func nodeCfg(kind, up string) string {
	target, vectors := map[string]string{
		"openai":        "gpt",
		"openai-native": "gpt-native",
		"anthropic":     "claude",
		"gemini":        "gem",
	}[kind], "small"
	if kind == "gemini" {
		vectors = "gem-vectors"
	}
	return strings.ReplaceAll(`
client_keys: [test]
providers:
  - {name: openai, dialect: openai, base_url: "{up}", api_key: `+secret+`}
  - {name: openai-native, dialect: openai, base_url: "{up}", api_key: `+secret+`, responses: true}
  - {name: anthropic, dialect: anthropic, base_url: "{up}", api_key: `+secret+`}
  - {name: gemini, dialect: gemini, base_url: "{up}", api_key: `+secret+`}
targets:
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
  - {name: gpt-native, model: gpt-4o-mini, providers: [openai-native]}
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: gem, model: gemini-2.0-flash, providers: [gemini]}
  - {name: small, model: text-embedding-3-small, providers: [openai]}
  - {name: gem-vectors, model: gemini-embedding-001, providers: [gemini]}
routes:
  - {name: detour-route, targets: [`+target+`]}
  - {name: detour-vectors, targets: [`+vectors+`]}
`, "{up}", up)
}

// nodeRun is one script's run through a gateway whose route goes to kind.
func nodeRun(t *testing.T, kind, script string, env ...string) (clienttest.NodeResult, *clienttest.Recorder) {
	t.Helper()
	return nodeRunParallel(t, kind, 1, script, env...)
}

// nodeRunParallel is nodeRun with an upstream answering that many calls of
// get_weather at once.
func nodeRunParallel(t *testing.T, kind string, calls int, script string, env ...string) (clienttest.NodeResult, *clienttest.Recorder) {
	t.Helper()
	return nodeRunWith(t, kind, func(r *clienttest.Recorder) { r.Parallel = calls }, script, env...)
}

// nodeRunWith is nodeRun with the recorder set up by set. The recorder
// answers a structured-output request with clienttest.Object.
func nodeRunWith(t *testing.T, kind string, set func(*clienttest.Recorder), script string, env ...string) (clienttest.NodeResult, *clienttest.Recorder) {
	t.Helper()
	up, err := clienttest.NewRecorder(nodeReply, &clienttest.ToolCall{Name: "get_weather", Input: json.RawMessage(`{"location":"Paris"}`)})
	if err != nil {
		t.Fatal(err)
	}
	up.Object = clienttest.Object
	set(up)
	t.Cleanup(up.Close)
	g := start(t, nodeCfg(kind, up.URL), nil)
	res := clienttest.RunNode(t, g.URL, script, env...)
	if testing.Verbose() {
		t.Logf("stdout: %s\nstderr: %s", res.Stdout, res.Stderr)
	}
	return res, up
}

var nodeKinds = []string{"openai", "openai-native", "anthropic", "gemini"}

// wantVectors are the recorder's vectors for two inputs (clienttest's
// vector), as the client must read them whatever encoding travelled.
var wantVectors = [][]float64{{1, 1.25, 1.5}, {2, 2.25, 2.5}}

// sameVectors reports whether got are the upstream's vectors want as a
// client of a route to kind reads them: a Gemini target's scaled to unit
// length, as OpenAI's are (docs/doors.md, "Embeddings"), to float32's
// precision; every other kind's exactly as the upstream sent them.
func sameVectors(kind string, got, want [][]float64) bool {
	if kind != "gemini" {
		return reflect.DeepEqual(got, want)
	}
	if len(got) != len(want) {
		return false
	}
	for i, w := range want {
		var n float64
		for _, x := range w {
			n += x * x
		}
		n = math.Sqrt(n)
		if len(got[i]) != len(w) {
			return false
		}
		for j, x := range w {
			if math.Abs(got[i][j]-x/n) > 1e-6 {
				return false
			}
		}
	}
	return true
}

type weatherCall struct {
	Name      string            `json:"name"`
	Arguments map[string]string `json:"arguments"`
	Input     map[string]string `json:"input"`
}

func wantWeather(t *testing.T, name string, calls []weatherCall) {
	t.Helper()
	wantWeatherN(t, name, 1, calls)
}

func wantWeatherN(t *testing.T, name string, n int, calls []weatherCall) {
	t.Helper()
	ok := len(calls) == n
	for _, c := range calls {
		ok = ok && c.Name == "get_weather" && (c.Arguments["location"] == "Paris" || c.Input["location"] == "Paris")
	}
	if !ok {
		t.Errorf("%s: tool calls %+v, want %d get_weather for Paris", name, calls, n)
	}
}

// A tool call after some text in the same answer ("Let me check."), as
// models often write, whole and streamed, through every client and
// dialect: the text and the call reach the client, the call's result goes
// back with the text in the history. The AI SDK's Responses provider
// refers to that text by id in its next step unless store is false
// (docs/doors.md): a 400 saying so, and the loop works with store: false.
func TestNodeToolCallAfterText(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 20 node scripts; the plain tool cases run in TestNode*SDK, TestNodeOpenAIAgents, TestNodeLangChain")
	}
	for _, kind := range nodeKinds {
		for _, sc := range []struct {
			script string
			cases  []string
		}{
			{"openai.mjs", []string{"chat_tools", "chat_stream_tools", "responses_tools", "responses_stream_tools"}},
			{"anthropic.mjs", []string{"tools", "tools_stream"}},
			{"ai.mjs", []string{"responses_tools", "responses_tools_nostore", "chat_tools", "chat_stream_tools",
				"anthropic_tools", "anthropic_stream_tools", "compat_tools", "compat_stream_tools"}},
			{"agents.mjs", []string{"responses_tools", "responses_stream_tools", "chat_tools", "chat_stream_tools"}},
			{"langchain.mjs", []string{"chat_tools", "chat_stream_tools", "responses_tools", "responses_stream_tools",
				"anthropic_tools", "anthropic_stream_tools"}},
		} {
			t.Run(kind+"/"+sc.script, func(t *testing.T) {
				t.Parallel()
				res, up := nodeRunWith(t, kind, func(r *clienttest.Recorder) { r.Preamble = "Let me check. " },
					sc.script, "DETOUR_CASES="+strings.Join(sc.cases, ","))
				for _, name := range sc.cases {
					if sc.script == "ai.mjs" && name == "responses_tools" {
						if e := res.CaseError(t, name); e.Status != 400 || !strings.Contains(e.Message, "store: false") {
							t.Errorf("%s: %+v, want the 400 naming store: false", name, e)
						}
						continue
					}
					var c struct {
						Text  string        `json:"text"`
						Calls []weatherCall `json:"calls"`
					}
					if !res.Case(t, name, &c) {
						continue
					}
					wantWeather(t, name, c.Calls)
					if !strings.HasSuffix(c.Text, nodeReply) {
						t.Errorf("%s: text after the tool result %q", name, c.Text)
					}
				}
				// Every request that carries the tool result carries the
				// preamble before it, in the upstream's own dialect.
				for _, r := range up.Requests() {
					b := string(r.Body)
					if strings.Contains(b, "sunny in Paris") && !strings.Contains(b, "Let me check.") {
						t.Errorf("%s %s: the tool result went back without the text before the call: %.600s", r.Method, r.Path, b)
					}
				}
			})
		}
	}
}

// Two tool calls in one answer (parallel tool calls), whole and streamed,
// through every client and dialect: both reach the client, both results
// go back, and the answer to them arrives.
func TestNodeParallelToolCalls(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 20 node scripts; the plain tool cases run in TestNode*SDK, TestNodeOpenAIAgents, TestNodeLangChain")
	}
	for _, kind := range nodeKinds {
		for _, sc := range []struct {
			script string
			cases  []string
		}{
			{"openai.mjs", []string{"chat_tools", "chat_stream_tools", "responses_tools", "responses_stream_tools"}},
			{"anthropic.mjs", []string{"tools", "tools_stream"}},
			{"ai.mjs", []string{"responses_tools", "responses_stream_tools", "chat_tools", "chat_stream_tools",
				"anthropic_tools", "anthropic_stream_tools", "compat_tools", "compat_stream_tools"}},
			{"agents.mjs", []string{"responses_tools", "responses_stream_tools", "chat_tools", "chat_stream_tools"}},
			{"langchain.mjs", []string{"chat_tools", "chat_stream_tools", "responses_tools", "responses_stream_tools",
				"anthropic_tools", "anthropic_stream_tools"}},
		} {
			t.Run(kind+"/"+sc.script, func(t *testing.T) {
				t.Parallel()
				res, _ := nodeRunParallel(t, kind, 2, sc.script, "DETOUR_CASES="+strings.Join(sc.cases, ","))
				for _, name := range sc.cases {
					var c struct {
						Text  string        `json:"text"`
						Calls []weatherCall `json:"calls"`
					}
					if !res.Case(t, name, &c) {
						continue
					}
					wantWeatherN(t, name, 2, c.Calls)
					if c.Text != nodeReply {
						t.Errorf("%s: text after the tool results %q", name, c.Text)
					}
				}
			})
		}
	}
}

func TestNodeOpenAISDK(t *testing.T) {
	for _, kind := range nodeKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			res, up := nodeRun(t, kind, "openai.mjs")
			wantImages(t, up, 2)
			for _, name := range []string{"chat_image", "responses_image"} {
				var c struct {
					Text string `json:"text"`
				}
				if res.Case(t, name, &c) && c.Text != nodeReply {
					t.Errorf("%s: text %q", name, c.Text)
				}
			}
			for _, name := range []string{"chat", "chat_stream", "responses", "responses_stream"} {
				var c struct {
					Text  string         `json:"text"`
					Usage map[string]any `json:"usage"`
				}
				if !res.Case(t, name, &c) {
					continue
				}
				if c.Text != nodeReply || len(c.Usage) == 0 {
					t.Errorf("%s: text %q usage %v", name, c.Text, c.Usage)
				}
			}
			var plain struct {
				Text  string `json:"text"`
				Empty int    `json:"empty"`
			}
			if res.Case(t, "chat_stream_plain", &plain) && (plain.Text != nodeReply || plain.Empty != 0) {
				t.Errorf("chat_stream_plain: %+v, want the text and no chunk without choices", plain)
			}
			for _, name := range []string{"chat_tools", "chat_stream_tools", "responses_tools", "responses_stream_tools"} {
				var c struct {
					Text  string        `json:"text"`
					Calls []weatherCall `json:"calls"`
				}
				if !res.Case(t, name, &c) {
					continue
				}
				wantWeather(t, name, c.Calls)
				if c.Text != nodeReply {
					t.Errorf("%s: text after the tool result %q", name, c.Text)
				}
			}
			wantBase64(t, kind, res)
			for _, name := range []string{"embeddings", "embeddings_float"} {
				var c struct {
					Vectors [][]float64 `json:"vectors"`
				}
				if !res.Case(t, name, &c) {
					continue
				}
				want := wantVectors
				if name == "embeddings_float" {
					want = wantVectors[:1]
				}
				if !sameVectors(kind, c.Vectors, want) {
					t.Errorf("%s: vectors %v, want %v", name, c.Vectors, want)
				}
			}
			var m struct {
				IDs []string `json:"ids"`
			}
			res.Case(t, "models", &m)
			if !contains(m.IDs, "detour-route") {
				t.Errorf("models: %v", m.IDs)
			}
			var one struct {
				ID, Object string
			}
			if res.Case(t, "model", &one) && (one.ID != "detour-route" || one.Object != "model") {
				t.Errorf("models.retrieve: %+v", one)
			}
			if e := res.CaseError(t, "error_model"); e.Class != "NotFoundError" || e.Status != 404 {
				t.Errorf("unknown model: %+v, want the SDK's NotFoundError", e)
			}
			if e := res.CaseError(t, "error_key"); e.Class != "AuthenticationError" || e.Status != 401 {
				t.Errorf("wrong key: %+v, want the SDK's AuthenticationError", e)
			}
		})
	}
}

// wantBase64 checks the openai script's embeddings_base64 case: strings
// that decode to the upstream's vectors.
func wantBase64(t *testing.T, kind string, res clienttest.NodeResult) {
	t.Helper()
	var c struct {
		Types   []string    `json:"types"`
		Vectors [][]float64 `json:"vectors"`
	}
	if res.Case(t, "embeddings_base64", &c) &&
		(!reflect.DeepEqual(c.Types, []string{"string", "string"}) || !sameVectors(kind, c.Vectors, wantVectors)) {
		t.Errorf("embeddings_base64: %+v, want two base64 strings of %v", c, wantVectors)
	}
}

// An OpenAI-compatible upstream that ignores encoding_format answers
// floats; the client that asked for base64 still gets base64.
func TestNodeOpenAISDKBase64FromAFloatsUpstream(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai": script(upstreamtest.Step{Body: `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[1,1.25,1.5]},{"object":"embedding","index":1,"embedding":[2,2.25,2.5]}],"model":"nomic-embed-text","usage":{"prompt_tokens":4,"total_tokens":4}}`}),
	})
	g := start(t, strings.ReplaceAll(nodeCfg("openai", "{openai}"), "{up}", "{openai}"), fs)
	res := clienttest.RunNode(t, g.URL, "openai.mjs", "DETOUR_CASES=embeddings,embeddings_base64")
	wantBase64(t, "openai", res)
	var c struct {
		Vectors [][]float64 `json:"vectors"`
	}
	if res.Case(t, "embeddings", &c) && !reflect.DeepEqual(c.Vectors, wantVectors) {
		t.Errorf("embeddings: %v", c.Vectors)
	}
}

func TestNodeAnthropicSDK(t *testing.T) {
	for _, kind := range nodeKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			res, up := nodeRun(t, kind, "anthropic.mjs")
			wantImages(t, up, 1)
			for _, name := range []string{"messages", "messages_stream", "messages_raw_stream", "image"} {
				var c struct {
					Text string `json:"text"`
					Stop string `json:"stop"`
				}
				if !res.Case(t, name, &c) {
					continue
				}
				if c.Text != nodeReply || c.Stop != "end_turn" {
					t.Errorf("%s: text %q stop %q", name, c.Text, c.Stop)
				}
			}
			for _, name := range []string{"tools", "tools_stream"} {
				var c struct {
					Stop, Stop2, Text string
					Calls             []weatherCall `json:"calls"`
				}
				if !res.Case(t, name, &c) {
					continue
				}
				wantWeather(t, name, c.Calls)
				if c.Stop != "tool_use" || c.Text != nodeReply || c.Stop2 != "end_turn" {
					t.Errorf("%s: %+v", name, c)
				}
			}
			for _, name := range []string{"tool_runner", "tool_runner_nothread", "tool_runner_stream_nothread"} {
				// Its server-side thread is Anthropic's alone: refused for
				// other targets with Anthropic's code for it,
				// thread_unsupported_request, on which the runner (its
				// thread made with unsupportedRequestBehavior
				// "continue_unthreaded": messages.ts _toolRunnerThread)
				// sends the whole conversation; thread: false does from
				// the start (docs/doors.md).
				var c struct {
					Text, Stop string
					Ran        int
				}
				if res.Case(t, name, &c) && (c.Text != nodeReply || c.Stop != "end_turn" || c.Ran != 1) {
					t.Errorf("%s: %+v", name, c)
				}
			}
			// Anthropic's structured output reaches every dialect's own
			// (the upstream answers the object only when asked its way).
			for _, name := range []string{"parse", "parse_stream"} {
				wantObject(t, res, name)
			}
			var n struct {
				InputTokens int `json:"input_tokens"`
			}
			res.Case(t, "count_tokens", &n)
			if n.InputTokens <= 0 {
				t.Errorf("count_tokens: %d", n.InputTokens)
			}
			var m struct {
				IDs []string `json:"ids"`
			}
			res.Case(t, "models", &m)
			if !contains(m.IDs, "detour-route") {
				t.Errorf("models: %v", m.IDs)
			}
			var one struct {
				ID, Type string
			}
			if res.Case(t, "model", &one) && (one.ID != "detour-route" || one.Type != "model") {
				t.Errorf("models.retrieve: %+v", one)
			}
			if e := res.CaseError(t, "error_model"); e.Class != "NotFoundError" || e.Status != 404 || e.Type != "not_found_error" {
				t.Errorf("unknown model: %+v, want the SDK's NotFoundError", e)
			}
			if e := res.CaseError(t, "error_key"); e.Class != "AuthenticationError" || e.Status != 401 || e.Type != "authentication_error" {
				t.Errorf("wrong key: %+v, want the SDK's AuthenticationError", e)
			}
		})
	}
}

// wantImages fails t unless at least n requests up received carry the
// scripts' PNG (lib.mjs), in whatever shape the upstream's dialect takes
// it: the image was translated, not dropped.
func wantImages(t *testing.T, up *clienttest.Recorder, n int) {
	t.Helper()
	got := 0
	for _, r := range up.Requests() {
		if strings.Contains(string(r.Body), "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==") {
			got++
		}
	}
	if got < n {
		t.Errorf("%d upstream requests carry the image, want %d", got, n)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

package e2e

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/clienttest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// The agent and application frameworks users put in front of a gateway —
// the OpenAI Agents SDK (@openai/agents, e2e/testdata/node/agents.mjs)
// and LangChain JS (@langchain/openai, @langchain/anthropic,
// langchain.mjs) — through Detour to a loopback upstream of each dialect
// (a clienttest.Recorder answering get_weather with a call for Paris and
// a structured-output request with clienttest.Object, see nodeRunWith). Gated like
// node_clients_test.go (see internal/clienttest.RunNode).

// nodeObject is clienttest.Object as the scripts print it.
var nodeObject = map[string]any{"city": "Paris", "sunny": true}

// wantObject checks a case printing {"object": …}.
func wantObject(t *testing.T, res clienttest.NodeResult, name string) {
	t.Helper()
	var c struct {
		Object map[string]any `json:"object"`
	}
	if res.Case(t, name, &c) && !reflect.DeepEqual(c.Object, nodeObject) {
		t.Errorf("%s: object %v, want %v", name, c.Object, nodeObject)
	}
}

func TestNodeOpenAIAgents(t *testing.T) {
	for _, kind := range nodeKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			res, up := nodeRun(t, kind, "agents.mjs")
			for _, api := range []string{"responses", "chat"} {
				var run struct {
					Text  string `json:"text"`
					Usage struct {
						Input, Output int
					} `json:"usage"`
				}
				if res.Case(t, api+"_run", &run) && (run.Text != nodeReply || run.Usage.Output == 0) {
					t.Errorf("%s_run: %+v", api, run)
				}
				var st struct {
					Text   string   `json:"text"`
					Deltas string   `json:"deltas"`
					Types  []string `json:"types"`
				}
				if res.Case(t, api+"_stream", &st) && (st.Text != nodeReply || st.Deltas != nodeReply ||
					!contains(st.Types, "raw_model_stream_event:response_done")) {
					t.Errorf("%s_stream: %+v", api, st)
				}
				for _, name := range []string{api + "_tools", api + "_stream_tools"} {
					var c struct {
						Text      string        `json:"text"`
						Calls     []weatherCall `json:"calls"`
						Ran       int           `json:"ran"`
						Responses int           `json:"responses"`
					}
					if !res.Case(t, name, &c) {
						continue
					}
					wantWeather(t, name, c.Calls)
					if c.Text != nodeReply || c.Ran != 1 || c.Responses != 2 {
						t.Errorf("%s: %+v, want the tool run once and the answer after it", name, c)
					}
				}
				wantObject(t, res, api+"_structured")
				wantObject(t, res, api+"_stream_structured")
			}
			// Model settings (store: false, reasoning, truncation, text
			// verbosity among them) are taken, and the sampling ones reach
			// the upstream in its dialect.
			var set struct {
				Text  string        `json:"text"`
				Calls []weatherCall `json:"calls"`
			}
			if res.Case(t, "responses_settings", &set) {
				wantWeather(t, "responses_settings", set.Calls)
				if set.Text != nodeReply {
					t.Errorf("responses_settings: %+v", set)
				}
			}
			sampled := false
			for _, r := range up.Requests() {
				sampled = sampled || strings.Contains(string(r.Body), `"temperature":0.2`)
			}
			if !sampled {
				t.Errorf("no upstream request carries the agent's temperature 0.2")
			}
			var two struct {
				Text  string `json:"text"`
				Items int    `json:"items"`
			}
			if res.Case(t, "responses_two_turns", &two) && (two.Text != nodeReply || two.Items != 4) {
				t.Errorf("responses_two_turns: %+v, want the answer and four items of history", two)
			}
			if e := res.CaseError(t, "responses_previous_id"); e.Class != "BadRequestError" || e.Status != 400 ||
				!strings.Contains(e.Message, "previous_response_id") || !strings.Contains(e.Message, "whole conversation") {
				t.Errorf("previousResponseId: %+v, want a 400 naming previous_response_id and what to send", e)
			}
			if e := res.CaseError(t, "error_model"); e.Class != "NotFoundError" || e.Status != 404 {
				t.Errorf("unknown model: %+v, want the openai SDK's NotFoundError", e)
			}
		})
	}
}

func TestNodeLangChain(t *testing.T) {
	for _, kind := range nodeKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			res, _ := nodeRun(t, kind, "langchain.mjs")
			for _, api := range []string{"chat", "responses", "anthropic"} {
				for _, name := range []string{api + "_invoke", api + "_stream"} {
					var c struct {
						Text  string `json:"text"`
						Usage struct {
							Input, Output int
						} `json:"usage"`
					}
					if res.Case(t, name, &c) && (c.Text != nodeReply || c.Usage.Output == 0) {
						t.Errorf("%s: %+v", name, c)
					}
				}
				for _, name := range []string{api + "_tools", api + "_stream_tools"} {
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
				wantObject(t, res, api+"_structured")
				wantObject(t, res, api+"_structured_tool")
				if e := res.CaseError(t, api+"_error_model"); e.Status != 404 {
					t.Errorf("%s_error_model: %+v, want status 404", api, e)
				}
			}
			wantObject(t, res, "anthropic_structured_json")
			var docs struct {
				Vectors [][]float64 `json:"vectors"`
			}
			if res.Case(t, "embed_documents", &docs) && !sameVectors(kind, docs.Vectors, wantVectors) {
				t.Errorf("embedDocuments: %v, want %v", docs.Vectors, wantVectors)
			}
			var q struct {
				Vector []float64 `json:"vector"`
			}
			if res.Case(t, "embed_query", &q) && !sameVectors(kind, [][]float64{q.Vector}, wantVectors[:1]) {
				t.Errorf("embedQuery: %v, want %v", q.Vector, wantVectors[0])
			}
			if res.Case(t, "embed_dimensions", &q) && !sameVectors(kind, [][]float64{q.Vector}, [][]float64{wantVectors[0][:2]}) {
				t.Errorf("embedQuery with dimensions 2: %v, want %v", q.Vector, wantVectors[0][:2])
			}
			if e := res.CaseError(t, "error_key"); e.Status != 401 || !strings.Contains(e.Class+e.Name, "Auth") {
				t.Errorf("wrong key: %+v, want an authentication error with status 401", e)
			}
		})
	}
}

// nodeFrameworkErrorsCfg routes limited-route to an upstream answering
// 429 (at {lim}), broken-route to one whose stream is cut after "partial "
// ({cut}), and failover-route to the 429 one first, then a healthy one at
// good — all of the kind's dialect (see nodeErrorsCfg).
func nodeFrameworkErrorsCfg(kind, good string) string {
	dialect, native := strings.TrimSuffix(kind, "-native"), strings.HasSuffix(kind, "-native")
	model := map[string]string{"openai": "gpt-4o-mini", "anthropic": "claude-sonnet-4-5", "gemini": "gemini-2.0-flash"}[dialect]
	return strings.NewReplacer("{d}", dialect, "{m}", model, "{good}", good, "{n}", strconv.FormatBool(native)).Replace(`
client_keys: [test]
providers:
  - {name: lim, dialect: {d}, base_url: "{lim}", api_key: ` + secret + `, responses: {n}}
  - {name: cut, dialect: {d}, base_url: "{cut}", api_key: ` + secret + `, responses: {n}}
  - {name: good, dialect: {d}, base_url: "{good}", api_key: ` + secret + `, responses: {n}}
targets:
  - {name: limited, model: {m}, providers: [lim]}
  - {name: broken, model: {m}, providers: [cut]}
  - {name: healthy, model: {m}, providers: [good]}
routes:
  - {name: limited-route, targets: [limited]}
  - {name: broken-route, targets: [broken]}
  - {name: failover-route, targets: [limited, healthy]}
`)
}

// What the frameworks make of Detour's failures, through every dialect: an
// upstream's 429 is the openai (or Anthropic) SDK's RateLimitError with
// status 429, as the framework passes it on; a stream cut after its first
// words is that text and then an error carrying Detour's message, never a
// clean end; and a route whose first target answers 429 fails over to the
// next, so every case — whole, streamed, tools, structured — succeeds.
func TestNodeFrameworkErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 16 node scripts; TestNodeClientErrors covers the SDKs under them")
	}
	type nodeScript struct {
		file            string
		whole, streamed []string // cases on limited-route / broken-route
		failover        []string // cases on failover-route
	}
	scripts := []nodeScript{
		{"agents.mjs", []string{"responses_run", "chat_run"}, []string{"responses_stream", "chat_stream"},
			[]string{"responses_run", "responses_stream", "responses_tools", "responses_stream_structured", "chat_run", "chat_stream_tools"}},
		{"langchain.mjs", []string{"chat_invoke", "responses_invoke", "anthropic_invoke"}, []string{"chat_stream", "responses_stream", "anthropic_stream"},
			[]string{"chat_invoke", "chat_stream", "chat_tools", "responses_stream_tools", "responses_structured", "anthropic_invoke", "anthropic_stream", "anthropic_structured"}},
	}
	for _, kind := range nodeKinds {
		for _, sc := range scripts {
			t.Run(kind+"/"+sc.file, func(t *testing.T) {
				t.Parallel()
				good, err := clienttest.NewRecorder(nodeReply, &clienttest.ToolCall{Name: "get_weather", Input: json.RawMessage(`{"location":"Paris"}`)})
				if err != nil {
					t.Fatal(err)
				}
				good.Object = clienttest.Object
				t.Cleanup(good.Close)
				dialect := strings.TrimSuffix(kind, "-native")
				fs := fakes(t, map[string]upstreamtest.Script{
					"lim": script(upstreamtest.Step{Status: 429, Body: limitedBody[dialect], Header: map[string]string{"Retry-After": "7"}}),
					"cut": cutScript(kind),
				})
				g := start(t, nodeFrameworkErrorsCfg(kind, good.URL), fs)
				res := clienttest.RunNode(t, g.URL, sc.file, "DETOUR_MODEL=limited-route", "DETOUR_STREAM_MODEL=broken-route",
					"DETOUR_CASES="+strings.Join(append(sc.whole, sc.streamed...), ","))
				if testing.Verbose() {
					t.Logf("stdout: %s\nstderr: %s", res.Stdout, res.Stderr)
				}
				for _, name := range sc.whole {
					if e := res.CaseError(t, name); e.Status != 429 || e.Class != "RateLimitError" {
						t.Errorf("%s: %+v, want the SDK's RateLimitError with status 429", name, e)
					}
				}
				for _, name := range sc.streamed {
					var c struct {
						Text  string                `json:"text"`
						Error *clienttest.NodeError `json:"error"`
					}
					if err := json.Unmarshal(res.Cases[name], &c); err != nil {
						t.Errorf("%s: %v: %s", name, err, res.Cases[name])
						continue
					}
					// A translated Responses stream ends with an error event
					// before response.failed: LangChain's ChatOpenAI ignores
					// response.failed (docs/doors.md), the openai SDK under
					// both frameworks throws at the error event.
					if c.Text != "partial " || c.Error == nil || !strings.Contains(c.Error.Message, "stream was cut") {
						t.Errorf("%s: %s, want the text before the cut and then Detour's error", name, res.Cases[name])
					}
				}
				ok := clienttest.RunNode(t, g.URL, sc.file, "DETOUR_MODEL=failover-route", "DETOUR_CASES="+strings.Join(sc.failover, ","))
				for _, name := range sc.failover {
					var c struct {
						Text   string         `json:"text"`
						Object map[string]any `json:"object"`
					}
					if ok.Case(t, name, &c) && c.Text != nodeReply && !reflect.DeepEqual(c.Object, nodeObject) {
						t.Errorf("failover %s: %s", name, ok.Cases[name])
					}
				}
				if len(fs["lim"].Requests()) == 0 || len(good.Requests()) < len(sc.failover) {
					t.Errorf("the 429 upstream got %d requests, the healthy one %d: no failover", len(fs["lim"].Requests()), len(good.Requests()))
				}
			})
		}
	}
}

package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/clienttest"
	"github.com/detour-llm/detour/internal/gatewaytest"
)

// Probe 69h: the real Gemini CLI (clienttest.RunGemini, 0.61.0) pointed at
// a real Detour by GOOGLE_GEMINI_BASE_URL, with its default model ("auto")
// and routes named after the model names the CLI picks itself, as
// docs/doors.md ("Gemini CLI 0.61.0", "Serving it") tells an operator to
// do: the router's JSON call (gemini-3.5-flash-lite), the turn
// (gemini-3.8-flash) and a read_file round trip, through a Gemini upstream
// (passthrough) and an OpenAI and a Claude upstream (translated).

// geminiCLIKey is the client key the CLI presents (GEMINI_API_KEY); it
// must reach no upstream and no record.
const geminiCLIKey = "cliG3m9Xq2WvR7LpT4sBnY8kDz"

// geminiCLIRoutes are the model names Gemini CLI 0.61.0 calls on its own
// (docs/doors.md "Gemini CLI 0.61.0"): the router, the two models it
// picks between, the web search's model.
var geminiCLIRoutes = []string{"gemini-3.5-flash-lite", "gemini-3.8-flash", "gemini-3.1-pro-preview", "gemini-3-flash-preview"}

func geminiCLICfg(kind, up string) string {
	target := map[string]string{"openai": "gpt", "anthropic": "claude", "gemini": "gem"}[kind]
	cfg := `
client_keys: [` + geminiCLIKey + `]
providers:
  - {name: openai, dialect: openai, base_url: "` + up + `", api_key: ` + secret + `}
  - {name: anthropic, dialect: anthropic, base_url: "` + up + `", api_key: ` + secret + `}
  - {name: gemini, dialect: gemini, base_url: "` + up + `", api_key: ` + secret + `}
targets:
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: gem, model: gemini-2.0-flash, providers: [gemini]}
routes:
`
	for _, r := range geminiCLIRoutes {
		cfg += "  - {name: " + r + ", targets: [" + target + "]}\n"
	}
	return cfg
}

// spied is one request as it reached the upstream, nothing masked.
type spied struct {
	Method, Path, Query string
	Header              http.Header
	Body                []byte
}

// spy is a loopback proxy in front of an upstream keeping every request
// whole (the Recorder masks keys; this is where a leaked key would show).
type spy struct {
	URL  string
	mu   sync.Mutex
	reqs []spied
}

func newSpy(t *testing.T, upstream string) *spy {
	t.Helper()
	target, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1
	s := &spy{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.reqs = append(s.reqs, spied{r.Method, r.URL.Path, r.URL.RawQuery, r.Header.Clone(), b})
		s.mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(b))
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	s.URL = srv.URL
	return s
}

func (s *spy) all() []spied {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]spied(nil), s.reqs...)
}

// syncBuffer is a log sink safe for the gateway's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// upstreamCalls are the model calls an upstream of kind got, in order.
func upstreamCalls(kind string, reqs []clienttest.Request) []clienttest.Request {
	var out []clienttest.Request
	for _, r := range reqs {
		switch {
		case kind == "openai" && strings.HasSuffix(r.Path, "/chat/completions"),
			kind == "anthropic" && strings.HasSuffix(r.Path, "/v1/messages"),
			kind == "gemini" && strings.Contains(r.Path, "/models/"):
			out = append(out, r)
		}
	}
	return out
}

func TestGeminiCLIThroughDetour(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Gemini CLI")
	}
	for _, kind := range []string{"gemini", "openai", "anthropic"} {
		t.Run(kind, func(t *testing.T) {
			for _, tc := range []struct {
				name  string
				tool  *clienttest.ToolCall
				files map[string]string
				// prompt, the reply the upstream gives, the model calls
				// the CLI makes: the router's, the turn's (and the answer
				// to the tool's result).
				prompt, reply string
				calls         int
			}{
				{name: "turn", prompt: "say hi", reply: "hi from the upstream", calls: 2},
				{name: "read_file", tool: &clienttest.ToolCall{Name: "read_file", Input: json.RawMessage(`{"file_path":"notes.txt"}`)},
					files: map[string]string{"notes.txt": "probe69h-file-content\n"}, prompt: "read notes.txt", reply: "done reading", calls: 3},
				// The search is one more call, to gemini-3-flash-preview with
				// Gemini's googleSearch tool: a Gemini target searches; the
				// others' translation refuses it (400 naming the member, which
				// the CLI gives the model as the tool's error) and the turn
				// goes on.
				{name: "web_search", tool: &clienttest.ToolCall{Name: "google_web_search", Input: json.RawMessage(`{"query":"detour gateway"}`)},
					prompt: "search the web for detour gateway", reply: "done searching", calls: 4},
			} {
				if tc.name == "web_search" && kind != "gemini" {
					tc.calls = 3 // the search never reaches the upstream
				}
				t.Run(tc.name, func(t *testing.T) {
					rec, err := clienttest.NewRecorder(tc.reply, tc.tool)
					if err != nil {
						t.Fatal(err)
					}
					defer rec.Close()
					// The router's complexity score: a low one picks the flash model.
					rec.Object = `{"complexity_reasoning":"Simple.","complexity_score":10}`
					up := newSpy(t, rec.URL)
					logs := &syncBuffer{}
					recs := gatewaytest.NewRecords()
					gw, _ := gatewaytest.Start(t, gatewaytest.Config(t, geminiCLICfg(kind, up.URL)),
						app.Options{Logger: slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
							Decisions: recs, Backoff: func() time.Duration { return 10 * time.Millisecond }})

					res := clienttest.RunGemini(t, gw, tc.prompt, clienttest.Options{
						Files: tc.files, Env: []string{"GEMINI_API_KEY=" + geminiCLIKey}})
					if res.Err != nil {
						t.Fatalf("gemini: %v\nstdout: %.3000s\nstderr: %.3000s", res.Err, res.Stdout, res.Stderr)
					}
					var out struct {
						Response string          `json:"response"`
						Error    json.RawMessage `json:"error"`
					}
					if err := json.Unmarshal([]byte(res.Stdout), &out); err != nil {
						t.Fatalf("no JSON on stdout: %v", err)
					}
					if len(out.Error) > 0 || !strings.Contains(out.Response, tc.reply) {
						t.Errorf("gemini's response %q (error %s), want %q\nstderr: %.2000s", out.Response, out.Error, tc.reply, res.Stderr)
					}

					calls := upstreamCalls(kind, rec.Requests())
					if len(calls) != tc.calls {
						for _, c := range rec.Requests() {
							t.Logf("upstream: %s %s %.300s ... %s", c.Method, c.Path, c.Body, c.Body[max(0, len(c.Body)-1500):])
						}
						t.Fatalf("the upstream got %d model calls, want %d", len(calls), tc.calls)
					}
					checkRouterCall(t, kind, calls[0])
					checkTurnCall(t, kind, calls[1])
					// Decision records: the Gemini door's, the routes the CLI named.
					wantRoutes := []string{"gemini-3.5-flash-lite", "gemini-3.8-flash"}
					switch tc.name {
					case "read_file":
						wantRoutes = append(wantRoutes, "gemini-3.8-flash")
						checkToolResult(t, kind, calls[2], "probe69h-file-content")
					case "web_search":
						wantRoutes = []string{"gemini-3.5-flash-lite", "gemini-3.8-flash", "gemini-3-flash-preview", "gemini-3.8-flash"}
						if kind == "gemini" {
							if s := calls[2]; s.Path != "/v1beta/models/gemini-2.0-flash:generateContent" || !strings.Contains(string(s.Body), `"googleSearch":{}`) {
								t.Errorf("the search call: %s %.300s", s.Path, s.Body)
							}
							checkToolResult(t, kind, calls[3], `Web search results for \"detour gateway\":\n\ndone searching`)
						} else {
							// Refused before any target: a 400, no decision record.
							wantRoutes = []string{"gemini-3.5-flash-lite", "gemini-3.8-flash", "gemini-3.8-flash"}
							checkToolResult(t, kind, calls[2], `Gemini's own tool googleSearch is served by Gemini targets alone`)
						}
					}
					var recJSON []byte
					for i, want := range wantRoutes {
						d := recs.Wait(t, i+1)
						if d.API != "gemini" || d.Outcome != "ok" || d.Route != want {
							t.Errorf("decision %d: api %q outcome %q route %q, want gemini ok %s", i+1, d.API, d.Outcome, d.Route, want)
						}
						b, _ := json.Marshal(d)
						recJSON = append(recJSON, b...)
					}

					// Keys: the client's reaches no upstream, the provider's only
					// the upstream's own key header; neither is in the records,
					// the log or what the CLI printed.
					for _, r := range up.all() {
						all := r.Method + " " + r.Path + "?" + r.Query + "\n" + string(r.Body)
						for k, v := range r.Header {
							all += "\n" + k + ": " + strings.Join(v, ",")
						}
						if strings.Contains(all, geminiCLIKey) {
							t.Errorf("the client key reached the upstream: %s %s", r.Method, r.Path)
						}
						var keyAt string
						switch kind {
						case "gemini":
							keyAt = r.Header.Get("X-Goog-Api-Key")
						case "openai":
							keyAt = strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
						case "anthropic":
							keyAt = r.Header.Get("X-Api-Key")
						}
						if keyAt != secret || strings.Count(all, secret) != 1 || strings.Contains(r.Query, "key=") {
							t.Errorf("%s %s?%s: the provider key travels other than in its one header (%q)", r.Method, r.Path, r.Query, keyAt)
						}
					}
					for where, s := range map[string]string{"records": string(recJSON), "log": logs.String(),
						"stdout": res.Stdout, "stderr": res.Stderr} {
						if strings.Contains(s, geminiCLIKey) || strings.Contains(s, secret) {
							t.Errorf("a key in the %s", where)
						}
					}
				})
			}
		})
	}
}

// checkRouterCall: the CLI's router call (gemini-3.5-flash-lite, a JSON
// answer by a schema written with Gemini's upper-case type names) as the
// upstream got it.
func checkRouterCall(t *testing.T, kind string, r clienttest.Request) {
	t.Helper()
	body := string(r.Body)
	switch kind {
	case "gemini":
		if r.Path != "/v1beta/models/gemini-2.0-flash:generateContent" || !strings.Contains(body, `"responseJsonSchema"`) {
			t.Errorf("router call: %s %.300s", r.Path, body)
		}
	case "openai":
		var b struct {
			ResponseFormat struct {
				Type       string `json:"type"`
				JSONSchema struct {
					Schema json.RawMessage `json:"schema"`
				} `json:"json_schema"`
			} `json:"response_format"`
		}
		json.Unmarshal(r.Body, &b) //nolint:errcheck // checked below
		if b.ResponseFormat.Type != "json_schema" || !validJSONSchemaTypes(b.ResponseFormat.JSONSchema.Schema) {
			t.Errorf("router call's response_format: %s %s, want json_schema with JSON Schema type names", b.ResponseFormat.Type, b.ResponseFormat.JSONSchema.Schema)
		}
	case "anthropic":
		var b struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"input_schema"`
			} `json:"tools"`
			ToolChoice struct{ Type, Name string } `json:"tool_choice"`
		}
		json.Unmarshal(r.Body, &b) //nolint:errcheck // checked below
		if len(b.Tools) != 1 || b.ToolChoice.Name != b.Tools[0].Name || !validJSONSchemaTypes(b.Tools[0].InputSchema) {
			t.Errorf("router call: tools %.600s, tool_choice %+v: want the answer tool forced, its schema with JSON Schema type names", r.Body[strings.Index(body, `"tools"`)+1:], b.ToolChoice)
		}
	}
}

// validJSONSchemaTypes reports whether every "type" in schema is one of
// JSON Schema's names (lower case: "OBJECT" is Gemini's, which OpenAI's
// and Anthropic's validators refuse).
func validJSONSchemaTypes(schema json.RawMessage) bool {
	var v any
	if json.Unmarshal(schema, &v) != nil || v == nil {
		return false
	}
	ok := true
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			if s, isStr := x["type"].(string); isStr {
				switch s {
				case "object", "array", "string", "integer", "number", "boolean", "null":
				default:
					ok = false
				}
			}
			for _, y := range x {
				walk(y)
			}
		case []any:
			for _, y := range x {
				walk(y)
			}
		}
	}
	walk(v)
	return ok
}

// checkTurnCall: the turn's call, streamed, with the CLI's tools.
func checkTurnCall(t *testing.T, kind string, r clienttest.Request) {
	t.Helper()
	body := string(r.Body)
	switch kind {
	case "gemini":
		if r.Path != "/v1beta/models/gemini-2.0-flash:streamGenerateContent" || r.Query != "alt=sse" ||
			!strings.Contains(body, `"parametersJsonSchema"`) || !strings.Contains(body, `"thinkingConfig"`) {
			t.Errorf("turn: %s?%s %.300s", r.Path, r.Query, body)
		}
	default:
		if !strings.Contains(body, `"stream":true`) || !strings.Contains(body, `"read_file"`) || !strings.Contains(body, "Gemini CLI") {
			t.Errorf("turn: %s %.300s", r.Path, body)
		}
	}
}

// checkToolResult: the answer to the tool's result carries the file's
// content, as each dialect writes a result.
func checkToolResult(t *testing.T, kind string, r clienttest.Request, want string) {
	t.Helper()
	var b map[string]json.RawMessage
	if err := json.Unmarshal(r.Body, &b); err != nil {
		t.Fatal(err)
	}
	var msgs []map[string]json.RawMessage
	switch kind {
	case "gemini":
		json.Unmarshal(b["contents"], &msgs) //nolint:errcheck // checked below
	default:
		json.Unmarshal(b["messages"], &msgs) //nolint:errcheck // checked below
	}
	if len(msgs) == 0 {
		t.Fatalf("no history in %.300s", r.Body)
	}
	last := string(msgs[len(msgs)-1]["parts"]) + string(msgs[len(msgs)-1]["content"])
	var mark string
	switch kind {
	case "gemini":
		mark = `"functionResponse"`
	case "openai":
		mark = `tool` // role tool; content the response object
		last += string(msgs[len(msgs)-1]["role"])
	case "anthropic":
		mark = `"tool_result"`
	}
	if !strings.Contains(last, mark) || !strings.Contains(last, want) {
		t.Errorf("the last message %s does not carry the tool's result %q", last, want)
	}
}

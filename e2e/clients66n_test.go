package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/detour-llm/detour/internal/clienttest"
)

// Probe 66n: the real clients — Claude Code, Codex, the openai Node SDK's
// parse helpers, the AI SDK's generateObject, LangChain's
// withStructuredOutput — through a real gateway to loopback upstreams
// that refuse what the 2026 models refuse (review 66d's Claude 5
// generation, review 66e's GPT-5.4 and 5.6 Chat Completions). A rules
// front (rules66n) stands before a clienttest.Recorder: a request the
// rules refuse gets the 400, every other is the Recorder's answer (a turn,
// a tool round trip, structured output). Gated like every real-client test
// (internal/clienttest).

// rules66n is a loopback upstream enforcing the rules, in front of rec.
type rules66n struct {
	URL string
	rec *clienttest.Recorder
	srv *httptest.Server

	mu   sync.Mutex
	seen []seen66n
}

// seen66n is one model call the front got: the refusal's words when it
// refused (refused true).
type seen66n struct {
	Path    string
	Body    string
	Refused bool
	Why     string
}

func newRules66n(t *testing.T, rec *clienttest.Recorder) *rules66n {
	t.Helper()
	u, _ := url.Parse(rec.URL)
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.FlushInterval = -1
	f := &rules66n{rec: rec}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.ContentLength = int64(len(body))
		var status int
		var msg string
		refused := false
		switch p := strings.TrimSuffix(r.URL.Path, "/"); {
		case r.Method == http.MethodPost && strings.HasSuffix(p, "/messages"):
			if m, no := claude66nRefuses(body); no {
				refused, status = true, 400
				b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]string{"type": "invalid_request_error", "message": m}})
				msg = string(b)
			}
		case r.Method == http.MethodPost && strings.HasSuffix(p, "/chat/completions"):
			if param, no := gpt66nRefuses(body); no {
				refused, status = true, 400
				msg = `{"error":{"message":"fake upstream: request refused by rule","type":"invalid_request_error","param":"` + param + `","code":null}}`
			}
		}
		if r.Method == http.MethodPost {
			f.mu.Lock()
			f.seen = append(f.seen, seen66n{Path: r.URL.Path, Body: string(body), Refused: refused, Why: msg})
			f.mu.Unlock()
		}
		if refused {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			io.WriteString(w, msg)
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	f.URL = f.srv.URL
	t.Cleanup(f.srv.Close)
	return f
}

func (f *rules66n) calls() []seen66n {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen66n(nil), f.seen...)
}

// refusals returns the calls the rules refused.
func (f *rules66n) refusals() []seen66n {
	var out []seen66n
	for _, s := range f.calls() {
		if s.Refused {
			out = append(out, s)
		}
	}
	return out
}

// claude66nBase is a Claude model's Anthropic id for a Bedrock id
// (us.anthropic.claude-sonnet-5-5-v1:0 is claude-sonnet-5-5).
func claude66nBase(m string) string {
	if i := strings.Index(m, "anthropic."); i >= 0 {
		m = m[i+len("anthropic."):]
	}
	if i := strings.LastIndex(m, "-v"); i > 0 && strings.Contains(m[i:], ":") {
		m = m[:i]
	}
	return m
}

// claude66nRefuses is review 66d's claude5Refuses for a Bedrock id's model
// too, and what it leaves out: a prefill (a last assistant turn) from the
// 4.6 generation on, with Anthropic's words, and a forced tool choice at
// Haiku 5.1.
func claude66nRefuses(body []byte) (string, bool) {
	var req map[string]json.RawMessage
	if json.Unmarshal(body, &req) != nil {
		return "", true
	}
	var model string
	_ = json.Unmarshal(req["model"], &model)
	base := claude66nBase(model)
	var rest struct {
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
		ToolChoice *struct{ Type string } `json:"tool_choice"`
	}
	_ = json.Unmarshal(body, &rest)
	if base != "claude-sonnet-4-5" && len(rest.Messages) > 0 && rest.Messages[len(rest.Messages)-1].Role == "assistant" {
		return "This model does not support assistant message prefill. The conversation must end with a user message.", true
	}
	if base == "claude-haiku-5-1" && rest.ToolChoice != nil && (rest.ToolChoice.Type == "any" || rest.ToolChoice.Type == "tool") {
		return `tool_choice: type "tool" and "any" are not supported for this model.`, true
	}
	if base == "claude-haiku-5-1" {
		base = "claude-sonnet-5" // the generation's sampling and output rules
	}
	req["model"], _ = json.Marshal(base)
	b, _ := json.Marshal(req)
	return claude5Refuses(b)
}

// gpt66nEfforts are the efforts GPT-5.4 and 5.6 take.
var gpt66nEfforts = map[string]bool{"none": true, "low": true, "medium": true, "high": true, "xhigh": true}

// gpt66nRefuses is review 66e's GPT-5.4 / 5.6 Chat Completions: function
// tools beside an effort other than none (at 5.6 without one too: its
// default is not none), an effort the model does not take, and sampling
// beside an effort other than none. It returns the refused member.
func gpt66nRefuses(body []byte) (string, bool) {
	var b struct {
		Model       string            `json:"model"`
		Tools       []json.RawMessage `json:"tools"`
		Effort      *string           `json:"reasoning_effort"`
		Temperature *float64          `json:"temperature"`
		TopP        *float64          `json:"top_p"`
	}
	if json.Unmarshal(body, &b) != nil {
		return "body", true
	}
	is56 := strings.HasPrefix(b.Model, "gpt-5.6")
	if !is56 && !strings.HasPrefix(b.Model, "gpt-5.4") {
		return "", false
	}
	effort := "none"
	if b.Effort != nil {
		effort = *b.Effort
	} else if is56 {
		effort = "medium"
	}
	switch {
	case !gpt66nEfforts[effort]:
		return "reasoning_effort", true
	case len(b.Tools) > 0 && effort != "none":
		return "reasoning_effort", true
	case (b.Temperature != nil || b.TopP != nil) && effort != "none":
		return "temperature", true
	}
	return "", false
}

const clients66nCfg = `
client_keys: [test]
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{front}", api_key: ` + secret + `}
  - {name: openai, dialect: openai, base_url: "{front}/v1", api_key: ` + secret + `}
targets:
  - {name: sonnet55, model: claude-sonnet-5-5, providers: [anthropic]}
  - {name: opus55, model: claude-opus-5-5, providers: [anthropic]}
  - {name: haiku51, model: claude-haiku-5-1, providers: [anthropic]}
  - {name: bedrock55, model: us.anthropic.claude-sonnet-5-5-v1:0, providers: [anthropic]}
  - {name: gpt56, model: gpt-5.6, providers: [openai]}
routes:
  - {name: claude-sonnet-4-20250514, targets: [sonnet55]}
  - {name: claude-opus-4-6, targets: [opus55]}
  - {name: gpt-5.2-codex, targets: [gpt56]}
  - {name: gpt-5.1-codex-max, targets: [sonnet55]}
`

// start66n starts a gateway whose providers are a rules front before rec.
func start66n(t *testing.T, rec *clienttest.Recorder) (*gateway, *rules66n) {
	t.Helper()
	front := newRules66n(t, rec)
	return start(t, strings.ReplaceAll(clients66nCfg, "{front}", front.URL), nil), front
}

// wantNoRefusal fails t for every call the rules front refused.
func wantNoRefusal(t *testing.T, front *rules66n) {
	t.Helper()
	for _, c := range front.refusals() {
		t.Errorf("refused %s: %s\n%.1500s", c.Path, c.Why, strip66n(c.Body))
	}
}

// Claude Code 2.1.332 (one turn, a Bash round trip) at Sonnet 5.5 and
// Opus 5.5 behind routes named for the models it knows, as it writes its
// body for them: MAX_THINKING_TOKENS=8000 is budget thinking with display
// "omitted" (Sonnet 4), MAX_THINKING_TOKENS=0 is thinking "disabled" and
// temperature 1 (Sonnet 4, Opus 4.6) — each a 400 at those models — and at
// a gpt-5.6 chat target every call carries its tools. Every call passes
// the rules, fitted: adaptive keeping the display (before probe 66n it was
// dropped, so the model's default display applied), between_tools at
// Sonnet 5.5, no thinking and no temperature at Opus 5.5,
// reasoning_effort none at gpt-5.6.
func TestClients66nClaudeCodeAtTheNewestModels(t *testing.T) {
	for _, c := range []struct {
		model, env string
		want       []string // in every upstream body
		not        []string // in none
	}{
		{"claude-sonnet-4-20250514", "MAX_THINKING_TOKENS=8000", []string{`"thinking":{"type":"adaptive","display":"omitted"}`, `"model":"claude-sonnet-5-5"`}, []string{`budget_tokens`}},
		{"claude-sonnet-4-20250514", "MAX_THINKING_TOKENS=0", []string{`"thinking":{"type":"between_tools"}`}, []string{`"temperature"`}},
		{"claude-opus-4-6", "MAX_THINKING_TOKENS=0", []string{`"model":"claude-opus-5-5"`}, []string{`"temperature"`, `"thinking"`}},
		{"gpt56", "", []string{`"reasoning_effort":"none"`, `"model":"gpt-5.6"`}, nil},
	} {
		t.Run(c.model+"/"+c.env, func(t *testing.T) {
			rec, err := clienttest.NewRecorder("done", &clienttest.ToolCall{Name: "Bash", Input: json.RawMessage(`{"command":"echo c66n-tool-ran","description":"Print a marker"}`)})
			if err != nil {
				t.Fatal(err)
			}
			defer rec.Close()
			g, front := start66n(t, rec)
			var env []string
			if c.env != "" {
				env = []string{c.env}
			}
			res := clienttest.RunClaude(t, g.URL, "run echo", clienttest.Options{Args: []string{"--model", c.model, "--allowedTools", "Bash(echo:*)"}, Env: env})
			var out struct {
				Result  string
				IsError bool `json:"is_error"`
			}
			if err := json.Unmarshal([]byte(res.Stdout), &out); err != nil || res.Err != nil || out.IsError || out.Result != "done" {
				t.Errorf("claude: %v, result %q (is_error %v)\nstderr: %.1500s", res.Err, out.Result, out.IsError, res.Stderr)
			}
			wantNoRefusal(t, front)
			calls := front.calls()
			if len(calls) < 2 || !strings.Contains(calls[len(calls)-1].Body, "c66n-tool-ran") {
				t.Fatalf("%d upstream calls, want the tool call and the answer to its result", len(calls))
			}
			for i, call := range calls {
				for _, w := range c.want {
					if !strings.Contains(call.Body, w) {
						t.Errorf("call %d: no %s in %.1500s", i, w, strip66n(call.Body))
					}
				}
				for _, n := range c.not {
					if strings.Contains(call.Body, n) {
						t.Errorf("call %d: %s in %.1500s", i, n, strip66n(call.Body))
					}
				}
			}
		})
	}
}

// Codex 0.171.0 (one turn, an exec_command round trip, its effort xhigh)
// through the Responses door at a gpt-5.6 chat target and at Sonnet 5.5:
// every call passes (effort none beside its tools at gpt-5.6; at Sonnet
// 5.5 no thinking, no sampling, tool_choice auto).
func TestClients66nCodexAtTheNewestModels(t *testing.T) {
	for _, model := range []string{"gpt-5.2-codex", "gpt-5.1-codex-max"} {
		t.Run(model, func(t *testing.T) {
			rec, err := clienttest.NewRecorder("done", &clienttest.ToolCall{Name: "exec_command", Input: json.RawMessage(`{"cmd":"echo c66n-tool-ran"}`)})
			if err != nil {
				t.Fatal(err)
			}
			defer rec.Close()
			g, front := start66n(t, rec)
			res := clienttest.RunCodex(t, g.URL, "run echo", clienttest.Options{Args: []string{
				"-m", model, "--disable", "multi_agent", "-c", `web_search="disabled"`, "-c", `model_reasoning_effort="xhigh"`}})
			if res.Err != nil || strings.TrimSpace(res.Stdout) != "done" {
				t.Errorf("codex: %v, printed %q\nstderr: %.2000s", res.Err, res.Stdout, res.Stderr)
			}
			wantNoRefusal(t, front)
			if calls := front.calls(); len(calls) < 2 || !strings.Contains(calls[len(calls)-1].Body, "c66n-tool-ran") {
				t.Errorf("%d upstream calls, want the tool call and the answer to its result", len(calls))
			}
		})
	}
}

// strip66n drops the long members of a body for the log.
func strip66n(body string) string {
	var m map[string]any
	if json.Unmarshal([]byte(body), &m) != nil {
		return body
	}
	for _, k := range []string{"system", "tools", "messages", "input", "instructions"} {
		if v, ok := m[k]; ok {
			b, _ := json.Marshal(v)
			m[k] = len(b)
		}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// The JavaScript clients' structured-output helpers at Sonnet 5.5 (JSON
// outputs), Haiku 5.1 and a Bedrock id (the answer tool under auto, which
// the fake model calls): every case through the OpenAI doors — the openai
// SDK's parse (chat and Responses, whole and streamed), the AI SDK's
// Output.object (Responses and chat, generateText and streamText),
// LangChain's ChatOpenAI withStructuredOutput — gets the object, no call
// refused. LangChain's ChatAnthropic jsonSchema method passes through as
// output_config.format. What a Messages client forces (ChatAnthropic's
// default withStructuredOutput, the AI SDK's Anthropic provider at a model
// name it does not know: a forced tool) goes as tool_choice auto, which
// the fake answers in prose: those cases are logged, not asserted
// (docs/doors.md, "Passthrough").
func TestClients66nStructuredHelpers(t *testing.T) {
	asserted := []string{"parse_chat", "parse_chat_stream", "parse_responses", "parse_responses_stream",
		"ai_responses", "ai_responses_stream", "ai_chat", "ai_chat_stream", "lc_chat", "lc_chat_stream", "lc_responses", "lc_anthropic_json"}
	for _, target := range []string{"sonnet55", "haiku51", "bedrock55"} {
		t.Run(target, func(t *testing.T) {
			rec, err := clienttest.NewRecorder("Sure, Paris is sunny.", &clienttest.ToolCall{Name: "detour_json_answer", Input: json.RawMessage(clienttest.Object)})
			if err != nil {
				t.Fatal(err)
			}
			defer rec.Close()
			rec.Object = clienttest.Object
			g, front := start66n(t, rec)
			res := clienttest.RunNode(t, g.URL, "structured66n.mjs", "DETOUR_MODEL="+target)
			for _, name := range asserted {
				wantObject(t, res, name)
			}
			for _, name := range []string{"lc_anthropic", "ai_anthropic", "ai_anthropic_stream"} {
				t.Logf("%s: %.300s", name, res.Cases[name])
			}
			wantNoRefusal(t, front)
			for _, c := range front.calls() {
				if strings.Contains(c.Path, "/chat/completions") || strings.Contains(c.Path, "/responses") {
					t.Errorf("a Claude target's request reached %s", c.Path)
				}
			}
		})
	}
}

package e2e

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/detour-llm/detour/internal/clienttest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Probe 55a: the requests clients make besides generating text — model
// lists, count_tokens, the Responses API's side endpoints — through Detour,
// from the official SDKs (anthropic-sdk-go v2.17.0, openai-go v3.102.0).

// p55aCfg: a Claude target, an OpenAI target serving Responses natively
// (responses: true, as OpenAI itself does), a route whose first target is
// OpenAI (count_tokens is an estimate there), one whose first is Claude.
const p55aCfg = `
client_keys: [client-key-1]
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `, responses: true}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: gpt, model: gpt-5-mini, providers: [openai]}
routes:
  - {name: deep, targets: [claude, gpt]}
  - {name: cheap, targets: [gpt, claude]}
`

// The Responses API's side endpoints, as openai-go calls them. Detour is
// stateless, so retrieve, delete, cancel and input_items cannot be served,
// nor does it serve input_tokens or compact: the SDK raises a clear
// *openai.Error whose message says so (probe 55a: it said "unknown path").
func TestC55aResponsesSideEndpoints(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(), "openai": script()})
	g := start(t, p55aCfg, fs)
	c := openai.NewClient(option.WithBaseURL(g.URL+"/v1"), option.WithAPIKey("client-key-1"), option.WithMaxRetries(0))
	ctx := context.Background()
	check := func(name string, err error) {
		t.Helper()
		var e *openai.Error
		if !errors.As(err, &e) {
			t.Errorf("%s: %v (%T), want an *openai.Error", name, err, err)
			return
		}
		t.Logf("%s: %d type=%q code=%q message=%q", name, e.StatusCode, e.Type, e.Code, e.Message)
		if e.StatusCode != http.StatusNotFound || !strings.Contains(e.Message, "Detour serves POST /v1/responses alone") || e.Type == "" {
			t.Errorf("%s: status %d, type %q, message %q", name, e.StatusCode, e.Type, e.Message)
		}
	}
	_, err := c.Responses.Get(ctx, "resp_123", responses.ResponseGetParams{})
	check("Get", err)
	check("Delete", c.Responses.Delete(ctx, "resp_123"))
	_, err = c.Responses.Cancel(ctx, "resp_123")
	check("Cancel", err)
	_, err = c.Responses.InputItems.List(ctx, "resp_123", responses.InputItemListParams{})
	check("InputItems.List", err)
	_, err = c.Responses.InputTokens.Count(ctx, responses.InputTokenCountParams{Model: openai.String("cheap"),
		Input: responses.InputTokenCountParamsInputUnion{OfString: openai.String("hi")}})
	check("InputTokens.Count", err)
	_, err = c.Responses.Compact(ctx, responses.ResponseCompactParams{Model: "cheap",
		Input: responses.ResponseCompactParamsInputUnion{OfString: openai.String("hi")}})
	check("Compact", err)
}

// count_tokens on a route whose first target is not Anthropic is an
// estimate. search_result blocks (content: text blocks), whose text the
// translation sends to the model, were skipped: each carries 8,000 bytes
// of text here, ~2,000 tokens the estimate counted as 0 (probe 55a).
func TestC55aCountTokensEstimateSkipsSearchResults(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(), "openai": script()})
	g := start(t, p55aCfg, fs)
	c := anthropicSDK(g, nil)
	text := strings.Repeat("lorem ipsum dolor sit amet ", 296) // 7,992 bytes
	for name, block := range map[string]string{
		"search_result":                  `{"type":"search_result","source":"https://example.com/a","title":"a","content":[{"type":"text","text":"` + text + `"}]}`,
		"tool_result with search_result": "",
	} {
		body := `{"model":"cheap","messages":[{"role":"user","content":[` + block + `,{"type":"text","text":"summarise"}]}]}`
		if name == "tool_result with search_result" {
			body = `{"model":"cheap","messages":[{"role":"user","content":"find it"},` +
				`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"search","input":{}}]},` +
				`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"search_result","source":"https://example.com/a","title":"a","content":[{"type":"text","text":"` + text + `"}]}]}]}],` +
				`"tools":[{"name":"search","input_schema":{"type":"object"}}]}`
		}
		n, err := c.Messages.CountTokens(context.Background(), anthropic.MessageCountTokensParams{},
			aoption.WithRequestBody("application/json", []byte(body)))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if n.InputTokens < 1500 {
			t.Errorf("%s: count_tokens estimate %d, want about 2,000 (8,000 bytes of text the model reads)", name, n.InputTokens)
		}
	}
}

// p55aFront is a recording reverse proxy in front of the gateway: every
// request a CLI makes to its base URL, with Detour's status.
type p55aFront struct {
	URL  string
	mu   sync.Mutex
	seen []string
}

func newP55aFront(t *testing.T, target string) *p55aFront {
	t.Helper()
	u, _ := url.Parse(target)
	rp := httputil.NewSingleHostReverseProxy(u)
	f := &p55aFront{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &p55aStatus{ResponseWriter: w, status: 200}
		rp.ServeHTTP(rec, r)
		f.mu.Lock()
		f.seen = append(f.seen, fmt.Sprintf("%s %s -> %d", r.Method, r.URL.RequestURI(), rec.status))
		f.mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

func (f *p55aFront) requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.seen...)
}

type p55aStatus struct {
	http.ResponseWriter
	status int
}

func (s *p55aStatus) WriteHeader(c int) { s.status = c; s.ResponseWriter.WriteHeader(c) }
func (s *p55aStatus) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// runCodexBuiltin runs Codex CLI with its built-in "openai" provider
// pointed at Detour through front (openai_base_url, which is what
// OPENAI_BASE_URL users get) rather than the custom provider
// internal/clienttest configures. A first answer calling a tool whose usage
// passes model_auto_compact_token_limit makes Codex compact mid-turn.
func runCodexBuiltin(t *testing.T) (clienttest.Result, []string, time.Duration) {
	t.Helper()
	usage := `{"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[],"usage":{"prompt_tokens":90000,"completion_tokens":10,"total_tokens":90010}}`
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai": func(n int, r upstreamtest.Request) upstreamtest.Step {
			if n == 1 {
				return upstreamtest.Step{Events: append(toolCallStream()[:3], usage, `[DONE]`)}
			}
			return okStream("gpt-4o-mini", "done ", "waiting")
		},
		"anthropic": script(ok("x", "x")),
	})
	g := start(t, codexCfg, fs)
	front := newP55aFront(t, g.URL)
	started := time.Now()
	res := clienttest.RunCodex(t, front.URL, "wait for the agents", clienttest.Options{
		Args: []string{"-m", "codex-route", "-c", `model_provider="openai"`, "-c", `openai_base_url="` + front.URL + `/v1"`,
			"-c", "model_auto_compact_token_limit=1000", "-c", "model_context_window=100000"},
		Env: []string{"OPENAI_API_KEY=test"}})
	took := time.Since(started)
	t.Logf("codex (%v): err %v\nstdout %.1000s\nstderr %.4000s", took, res.Err, res.Stdout, res.Stderr)
	reqs := front.requests()
	for _, s := range reqs {
		t.Log(s)
	}
	return res, reqs, took
}

// Codex's built-in "openai" provider opens a WebSocket to
// GET {base_url}/responses first (codex-rs responses_websocket). Detour
// answered the upgrade 405 "use POST", which Codex 0.171.0 treats as a
// failure to retry: 7 GETs, "Reconnecting... 2/5" to "5/5" on stderr as
// ERRORs, and about 6 s before "Falling back from WebSockets to HTTPS
// transport" (probe 55a). Answered 426 Upgrade Required, Codex falls back
// at once: one GET, no reconnects.
func TestC55aCodexFallsBackFromWebSocketAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Codex CLI")
	}
	res, reqs, took := runCodexBuiltin(t)
	gets := 0
	for _, s := range reqs {
		if strings.HasPrefix(s, "GET /v1/responses") {
			gets++
		}
	}
	if gets > 1 || strings.Contains(res.Stderr, "Reconnecting...") {
		t.Errorf("Codex tried the WebSocket %d times (%v in all), stderr has reconnects: %v; Detour's answer to the upgrade should make it fall back at once",
			gets, took, strings.Contains(res.Stderr, "Reconnecting..."))
	}
}

// The same without the CLI: the upgrade request Codex sends, and the
// status that makes it fall back at once.
func TestC55aResponsesWebSocketUpgradeAnswered426(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(), "openai": script()})
	g := start(t, p55aCfg, fs)
	r := g.raw(t, http.MethodGet, "/v1/responses", "", "Connection", "Upgrade", "Upgrade", "websocket",
		"Sec-WebSocket-Version", "13", "Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ==", "Authorization", "Bearer client-key-1")
	if r.Status != http.StatusUpgradeRequired {
		t.Errorf("WebSocket upgrade of /v1/responses: %d %s, want 426 (Codex falls back to HTTPS at once on it)", r.Status, r.Body)
	}
}

// With the built-in "openai" provider Codex compacts remotely
// (remote_compaction_v2: a POST /v1/responses whose input ends with
// {"type":"compaction_trigger"}). Only OpenAI's Responses API keeps what a
// compaction item stands for, so a route without a responses: true target
// refuses it; the refusal, which Codex prints ("Error running remote
// compact task: …"), names the way out: a custom provider, which compacts
// with an ordinary request (README, "OpenAI SDK and Codex"; probe 55a).
func TestC55aCodexBuiltinProviderIsToldHowToCompact(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Codex CLI")
	}
	res, _, _ := runCodexBuiltin(t)
	if !strings.Contains(res.Stderr, "compaction_trigger") || !strings.Contains(res.Stderr, "custom provider") {
		t.Errorf("Codex's built-in provider met remote compaction on a translated route and was not told of the custom provider: stderr %.2000s", res.Stderr)
	}
}

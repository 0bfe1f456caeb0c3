package e2e

// Clients 58 (probe 58): what real clients do with Detour's error answers, where the
// upstream that failed was another vendor. Each test names the client
// source it is checked against; every upstream body is a corpus case
// (classify/testdata/corpus), copied from its cited public source.

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"regexp"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/detour-llm/detour/internal/clienttest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// p58MaxTokensOverflow is Claude Code's own reading of Anthropic's "the
// output limit does not fit beside this prompt" answer (Claude Code
// 2.1.332, the function YGe in the bundled cli: status 400 and this regexp;
// its retry loop then sets max_tokens = limit - input - 1000 and sends the
// turn again instead of reporting "Prompt is too long"). Anthropic's own
// words: classify/testdata/corpus/anthropic-input-length-and-max-tokens-exceed-context-limit.json
// (anthropics/claude-code#408).
var p58MaxTokensOverflow = regexp.MustCompile("input length and `max_tokens` exceed context limit: (\\d+) \\+ (\\d+) > (\\d+)")

// p58Messages asks the Messages door once with anthropic-sdk-go (retries
// off) and returns the error's status and message.
func p58Messages(t *testing.T, g *gateway, route string) (int, string, string) {
	t.Helper()
	c := anthropic.NewClient(aoption.WithBaseURL(g.URL+"/"), aoption.WithAPIKey("test"), aoption.WithMaxRetries(0))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := c.Messages.New(ctx, anthropic.MessageNewParams{Model: anthropic.Model(route), MaxTokens: 4096,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}})
	var e *anthropic.Error
	if !errors.As(err, &e) {
		t.Fatalf("%v, want an *anthropic.Error", err)
	}
	var body struct {
		Error struct{ Type, Message string } `json:"error"`
	}
	_ = json.Unmarshal([]byte(e.RawJSON()), &body)
	return e.StatusCode, body.Error.Type, body.Error.Message
}

// TestClients58OutputLimitOverflowToldAsAnthropicDoes: an OpenAI-dialect
// upstream (vLLM, FastChat, OpenAI itself) says the prompt fits but the
// prompt plus the requested output does not, and gives both counts. Before
// round 58 the Messages door worded every context_length failure "prompt
// is too long: N tokens > M maximum", which Claude Code reads as a
// conversation to compact (or, for a short one, "cannot be compacted");
// Anthropic's own answer for the same case is "input length and
// `max_tokens` exceed context limit: I + O > L", on which Claude Code
// lowers max_tokens and sends the turn again, and Detour tells that now.
func TestClients58OutputLimitOverflowToldAsAnthropicDoes(t *testing.T) {
	for _, c := range []struct {
		corpus            string
		input, out, limit int
	}{
		// vllm-project/vllm#34340: 203462 input tokens, 65536 asked, window 262144.
		{"vllm-400-max-tokens-or-max-completion-tokens-too-large-request-has-input-tokens", 203462, 65536, 262144},
		// ogx-ai/ogx#4534: 568 in the messages, 6048 in the completion, window 6048.
		{"vllm-maximum-context-length-6048", 568, 6048, 6048},
		// yakGPT/yakGPT#13 (OpenAI): 3245 in the messages, 1050 in the completion, window 4097.
		{"openai-context-length-completion-legacy", 3245, 1050, 4097},
	} {
		t.Run(c.corpus, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{
				"gpt": script(corpus(t, c.corpus)), "claude": script(corpus(t, c.corpus)), "gem": script(corpus(t, c.corpus)),
			})
			g := start(t, c50eCfg, fs)
			status, typ, msg := p58Messages(t, g, "via-gpt")
			t.Logf("Messages door: %d %s %q", status, typ, msg)
			m := p58MaxTokensOverflow.FindStringSubmatch(msg)
			if status != 400 || m == nil {
				t.Fatalf("told %d %q; Claude Code lowers max_tokens only on Anthropic's %q", status, msg, p58MaxTokensOverflow)
			}
			if m[1] != strconv.Itoa(c.input) || m[2] != strconv.Itoa(c.out) || m[3] != strconv.Itoa(c.limit) {
				t.Errorf("counts %v, want %d + %d > %d", m[1:], c.input, c.out, c.limit)
			}
		})
	}
}

// TestClients58ClaudeCodeLowersMaxTokensOnAnotherVendorsOverflow: the real
// Claude Code CLI, its output limit set to 6048
// (CLAUDE_CODE_MAX_OUTPUT_TOKENS; Detour passes an output limit of 16384
// or less on to an OpenAI-dialect target, docs/doors.md), on a route whose
// vLLM endpoint has a 6048-token window. vLLM refuses an output limit that
// does not fit beside the prompt with ogx-ai/ogx#4534's body (corpus
// vllm-maximum-context-length-6048: 568 in the messages, 6048 in the
// completion) and serves one that fits. Anthropic's words for that answer
// would make Claude Code send the turn again with max_tokens
// 6048 - 568 - 1000 = 4480 and get its answer; Detour's "prompt is too
// long" made it stop before round 58.
func TestClients58ClaudeCodeLowersMaxTokensOnAnotherVendorsOverflow(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Claude Code CLI")
	}
	overflow := corpus(t, "vllm-maximum-context-length-6048")
	var mu sync.Mutex
	var asked []any
	gpt := func(n int, r upstreamtest.Request) upstreamtest.Step {
		var body struct {
			MaxTokens           *int `json:"max_tokens"`
			MaxCompletionTokens *int `json:"max_completion_tokens"`
		}
		_ = json.Unmarshal(r.Body, &body)
		limit := body.MaxTokens
		if limit == nil {
			limit = body.MaxCompletionTokens
		}
		mu.Lock()
		defer mu.Unlock()
		if limit == nil {
			asked = append(asked, "none")
			return overflow
		}
		asked = append(asked, *limit)
		if *limit > 6048-568 {
			return overflow
		}
		return okStream("gpt-4o", "hello ", "from vllm")
	}
	fs := fakes(t, map[string]upstreamtest.Script{"gpt": gpt, "claude": script(overflow), "gem": script(overflow)})
	g := start(t, c50eCfg, fs)
	target, _ := url.Parse(g.URL)
	var n atomic.Int32
	rp := httputil.NewSingleHostReverseProxy(target)
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && r.URL.Path == "/v1/messages" {
			n.Add(1)
		}
		rp.ServeHTTP(w, r)
	}))
	defer proxy.Close()
	res := clienttest.RunClaude(t, proxy.URL, "say hi", clienttest.Options{Args: []string{"--model", "via-gpt"},
		Env: []string{"CLAUDE_CODE_MAX_OUTPUT_TOKENS=6048"}})
	var out struct {
		Result  string `json:"result"`
		IsError bool   `json:"is_error"`
	}
	_ = json.Unmarshal([]byte(res.Stdout), &out)
	mu.Lock()
	t.Logf("%d POST /v1/messages; output limits the upstream was asked: %v; Claude Code shows (is_error %v): %q\nstderr: %.300s",
		n.Load(), asked, out.IsError, out.Result, res.Stderr)
	mu.Unlock()
	if out.IsError || n.Load() < 2 {
		t.Errorf("Claude Code stopped (%d requests, %q) instead of sending the turn again with a smaller max_tokens", n.Load(), out.Result)
	}
}

// TestClients58ContextLengthAtAnUpstream5xxMessagesDoor: llama.cpp's
// llama-server answers a full context with 500 "Context size has been
// exceeded." (corpus llamacpp-context-size-has-been-exceeded-500), TGI with
// 422. Detour reads both as context_length and at the Messages door words
// them "prompt is too long (…)", typed invalid_request_error; before round
// 58 it kept the upstream's status. Anthropic answers "prompt is too long" with 400
// (platform.claude.com/docs/en/api/errors: invalid_request_error is 400),
// and @langchain/anthropic raises its ContextOverflowError only at 400
// (dist/utils/errors.js:10 `e.status === 400 && …includes("prompt is too
// long")`), the error LangChain's agents summarise on; at 500 its
// AsyncCaller retries the same over-long prompt (6 times by default,
// @langchain/core dist/utils/async_caller.js:133-160: 500 is not in
// STATUS_NO_RETRY), x-should-retry unread.
func TestClients58ContextLengthAtAnUpstream5xxMessagesDoor(t *testing.T) {
	for _, name := range []string{"llamacpp-context-size-has-been-exceeded-500", "tgi-inputs-must-have-less-than-tokens-422"} {
		t.Run(name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{
				"gpt": script(corpus(t, name)), "claude": script(corpus(t, name)), "gem": script(corpus(t, name)),
			})
			g := start(t, c50eCfg, fs)
			status, typ, msg := p58Messages(t, g, "via-gpt")
			t.Logf("Messages door: %d %s %q", status, typ, msg)
			res := c50eRunNode(t, g.URL, "via-gpt", "lc_anthropic")
			lc := res["lc_anthropic"]
			if status != 400 {
				t.Errorf("a context_length failure told at the Messages door with status %d and type %s; Anthropic's is 400", status, typ)
			}
			if lc.Error == nil || !lc.Error.Overflow || lc.Attempts != 1 {
				t.Errorf("@langchain/anthropic: %+v after %d requests, want ContextOverflowError after one", lc.Error, lc.Attempts)
			}
		})
	}
}

// TestClients58ClaudeCodeLowersMaxTokensOnClaudesOwnOverflow is the control
// for the test above: the same Claude Code run against a Claude endpoint
// that answers Anthropic's own "input length and `max_tokens` exceed
// context limit: 189136 + 20000 > 204648" (corpus
// anthropic-input-length-and-max-tokens-exceed-context-limit, from
// anthropics/claude-code#408) and then serves. Claude Code sends the turn
// again with a smaller max_tokens and gets its answer. PASSES now.
func TestClients58ClaudeCodeLowersMaxTokensOnClaudesOwnOverflow(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Claude Code CLI")
	}
	overflow := corpus(t, "anthropic-input-length-and-max-tokens-exceed-context-limit")
	var mu sync.Mutex
	var asked []any
	var calls atomic.Int32
	claude := func(n int, r upstreamtest.Request) upstreamtest.Step {
		var body map[string]any
		_ = json.Unmarshal(r.Body, &body)
		mu.Lock()
		asked = append(asked, body["max_tokens"])
		mu.Unlock()
		if calls.Add(1) == 1 {
			return overflow
		}
		return upstreamtest.Step{Events: anthropicStream([]string{"hello ", "from claude"})}
	}
	fs := fakes(t, map[string]upstreamtest.Script{"gpt": script(overflow), "claude": claude, "gem": script(overflow)})
	g := start(t, c50eCfg, fs)
	res := clienttest.RunClaude(t, g.URL, "say hi", clienttest.Options{Args: []string{"--model", "via-claude"}})
	var out struct {
		Result  string `json:"result"`
		IsError bool   `json:"is_error"`
	}
	_ = json.Unmarshal([]byte(res.Stdout), &out)
	mu.Lock()
	t.Logf("upstream calls %d, max_tokens asked %v; Claude Code shows (is_error %v): %q", calls.Load(), asked, out.IsError, out.Result)
	mu.Unlock()
	if out.IsError || calls.Load() < 2 {
		t.Errorf("Claude Code did not send the turn again on Anthropic's own words: %q", out.Result)
	}
}

// TestClients58CodexReadsAFullContextAsOne: the real Codex CLI on a route
// whose upstream answers a full context window: OpenAI's own
// context_length_exceeded (corpus openai-context-length-exceeded) and
// Claude's "prompt is too long" (corpus anthropic-prompt-too-long-200k).
// Codex tells its user "Codex ran out of room in the model's context
// window…" (and compacts) for CodexErr::ContextWindowExceeded, which
// openai/codex maps only from a response.failed event whose error code is
// context_length_exceeded (codex-rs/codex-api SSE parser); an HTTP 400
// before the stream is CodexErr::InvalidRequest
// (codex-rs/core/src/api_bridge.rs map_api_error). Detour answers the
// Responses door's streamed request before its commit point with an HTTP
// status, so the check is what Codex prints.
func TestClients58CodexReadsAFullContextAsOne(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Codex CLI")
	}
	for _, c := range []struct{ route, corpus string }{
		{"codex-route", "openai-context-length-exceeded"},
		{"codex-claude", "anthropic-prompt-too-long-200k"},
		// llama-server's 500 (corpus llamacpp-context-size-has-been-exceeded-500).
		{"codex-route", "llamacpp-context-size-has-been-exceeded-500"},
	} {
		t.Run(c.corpus, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"openai": script(corpus(t, c.corpus)), "anthropic": script(corpus(t, c.corpus))})
			g := start(t, codexCfg, fs)
			r := g.raw(t, http.MethodPost, "/v1/responses", `{"model":"`+c.route+`","input":"hi","stream":true}`, "Authorization", "Bearer test")
			t.Logf("Responses door: %d x-should-retry=%q %s", r.Status, r.Header.Get("X-Should-Retry"), r.Body)
			res := clienttest.RunCodex(t, g.URL, "say hi", clienttest.Options{Args: []string{"-m", c.route}})
			t.Logf("err %v\nstdout: %.800s\nstderr: %.1500s", res.Err, res.Stdout, res.Stderr)
			n := len(fs["openai"].Requests()) + len(fs["anthropic"].Requests()) - 1
			if !regexp.MustCompile(`ran out of room in the model's context window`).MatchString(res.Stdout + res.Stderr) {
				t.Errorf("Codex did not read a full context window (%d upstream calls)", n)
			}
		})
	}
}

// TestClients58CodexOnOtherClasses: the real Codex CLI on each class Detour
// tells at the Responses door, from OpenAI and from Claude. Exploratory:
// it logs what Codex printed and how often the upstream was called.
func TestClients58CodexOnOtherClasses(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Codex CLI")
	}
	for _, c := range []struct {
		name, route string
		first       upstreamtest.Step
		want        string
	}{
		{"quota-gpt", "codex-route", corpus(t, "openai-insufficient-quota-429"), "Quota exceeded"},
		{"limit-short-claude", "codex-claude", corpus(t, "anthropic-rate-limit-input-tokens-per-minute", "Retry-After", "1"), "hello from"},
		{"overloaded-claude", "codex-claude", corpus(t, "anthropic-overloaded-529"), "hello from"},
		{"refusal-claude", "codex-claude", corpus(t, "anthropic-output-blocked-content-filtering-policy-details-null-400"), ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{
				"openai":    script(c.first, okStream("gpt-4o-mini", "hello ", "from gpt")),
				"anthropic": script(c.first, upstreamtest.Step{Events: anthropicStream([]string{"hello ", "from claude"})}),
			})
			g := start(t, codexCfg, fs)
			res := clienttest.RunCodex(t, g.URL, "say hi", clienttest.Options{Args: []string{"-m", c.route}})
			n := len(fs["openai"].Requests()) + len(fs["anthropic"].Requests())
			out := res.Stdout + res.Stderr
			if i := regexp.MustCompile(`(?s)say hi\n`).FindStringIndex(out); i != nil {
				out = out[i[1]:]
			}
			t.Logf("%s: %d upstream calls; err %v; Codex: %.900s", c.name, n, res.Err, out)
			if c.want != "" && !regexp.MustCompile(regexp.QuoteMeta(c.want)).MatchString(out) {
				t.Errorf("%s: Codex printed no %q", c.name, c.want)
			}
		})
	}
}

// TestClients58ClaudeCodeOnOtherVendorsPassingFailures: the real Claude Code
// CLI where another vendor's failure that passes in a moment reaches the
// Messages door (Gemini's 503 "model is overloaded", OpenAI's 429 "try
// again in 976ms"); the endpoint serves the next request. Claude Code
// should come back and show the answer. Exploratory: logs the requests.
func TestClients58ClaudeCodeOnOtherVendorsPassingFailures(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Claude Code CLI")
	}
	for _, c := range []struct{ name, up, corpus string }{
		{"overloaded-gem", "gem", "gemini-503-stream-array-model-overloaded-unavailable"},
		{"limit-gpt", "gpt", "openai-429-tpm-try-again-in-976ms"},
	} {
		t.Run(c.name, func(t *testing.T) {
			first := corpus(t, c.corpus)
			fs := fakes(t, map[string]upstreamtest.Script{
				"gpt":    script(first, first, okStream("gpt-4o", "hello ", "from gpt")),
				"claude": script(first),
				"gem":    script(first, first, upstreamtest.Step{Events: []string{geminiText("hello from gemini")}}),
			})
			g := start(t, c50eCfg, fs)
			target, _ := url.Parse(g.URL)
			var n atomic.Int32
			var statuses []string
			var mu sync.Mutex
			rp := httputil.NewSingleHostReverseProxy(target)
			rp.ModifyResponse = func(r *http.Response) error {
				mu.Lock()
				statuses = append(statuses, strconv.Itoa(r.StatusCode)+" retry-after="+r.Header.Get("Retry-After")+" x-should-retry="+r.Header.Get("X-Should-Retry"))
				mu.Unlock()
				return nil
			}
			proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Method == http.MethodPost && r.URL.Path == "/v1/messages" {
					n.Add(1)
				}
				rp.ServeHTTP(w, r)
			}))
			defer proxy.Close()
			res := clienttest.RunClaude(t, proxy.URL, "say hi", clienttest.Options{Args: []string{"--model", "via-" + c.up}})
			var out struct {
				Result  string `json:"result"`
				IsError bool   `json:"is_error"`
			}
			_ = json.Unmarshal([]byte(res.Stdout), &out)
			mu.Lock()
			t.Logf("%s: %d POST /v1/messages %v; Claude Code shows (is_error %v): %q", c.name, n.Load(), statuses, out.IsError, out.Result)
			mu.Unlock()
			if out.IsError {
				t.Errorf("%s: Claude Code gave up: %q", c.name, out.Result)
			}
		})
	}
}

package e2e

// Probe c50e (round 50): failures as the official clients see them. Each
// case is one upstream answer from classify/testdata/corpus (file named in
// c50eCases) answered at every call; the route has that one target, so the
// failure reaches the client. The real clients (openai-go, anthropic-sdk-go,
// and the JS openai, @anthropic-ai/sdk and LangChain packages under
// $DETOUR_CLIENTS_DIR) run with their own retry loops on, and a counting
// transport tells how often each came back.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
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

const c50eCfg = `
client_keys: [test]
providers:
  - {name: gpt, dialect: openai, base_url: "{gpt}", api_key: ` + secret + `}
  - {name: claude, dialect: anthropic, base_url: "{claude}", api_key: ` + secret + `}
  - {name: gem, dialect: gemini, base_url: "{gem}", api_key: ` + secret + `}
targets:
  - {name: gpt, model: gpt-4o, providers: [gpt]}
  - {name: claude, model: claude-sonnet-4-5, providers: [claude]}
  - {name: gem, model: gemini-2.5-pro, providers: [gem]}
routes:
  - {name: via-gpt, targets: [gpt]}
  - {name: via-claude, targets: [claude]}
  - {name: via-gem, targets: [gem]}
`

type c50eCase struct {
	name, up, corpus string
	extra            []string // headers added to the corpus answer
	class            string
	retry            bool // the client should come back (its own retry loop)
}

// c50eCases: each upstream answer and whether a client's own retry may help.
var c50eCases = []c50eCase{
	{name: "ctx-claude", up: "claude", corpus: "anthropic-prompt-too-long-200k", class: "context_length"},
	{name: "ctx-gpt", up: "gpt", corpus: "openai-context-length-exceeded", class: "context_length"},
	{name: "ctx-gem", up: "gem", corpus: "gemini-input-token-count-exceeds-max", class: "context_length"},
	{name: "quota-gpt", up: "gpt", corpus: "openai-insufficient-quota-429", class: "quota"},
	{name: "quota-claude", up: "claude", corpus: "anthropic-credit-balance-too-low", class: "quota"},
	{name: "auth-claude", up: "claude", corpus: "anthropic-invalid-x-api-key-401", class: "auth"},
	// Anthropic's 429 with a wait past the SDKs' one-minute horizon.
	{name: "limit-long-claude", up: "claude", corpus: "anthropic-rate-limit-input-tokens-per-minute", extra: []string{"Retry-After", "120"}, class: "rate_limited"},
	// The same 429 naming a one-second wait: the client should come back after it.
	{name: "limit-short-claude", up: "claude", corpus: "anthropic-rate-limit-input-tokens-per-minute", extra: []string{"Retry-After", "1"}, class: "rate_limited", retry: true},
	{name: "refusal-claude", up: "claude", corpus: "anthropic-output-blocked-content-filtering-policy-details-null-400", class: "refusal"},
	{name: "bad-request-claude", up: "claude", corpus: "anthropic-400-tools-tool-names-must-be-unique", class: "bad_request"},
	{name: "overflow-claude", up: "claude", corpus: "anthropic-request-too-large-413", class: "overflow"},
	{name: "overloaded-claude", up: "claude", corpus: "anthropic-overloaded-529", class: "server_error", retry: true},
}

func c50eFakes(t *testing.T, c c50eCase) map[string]*upstreamtest.Server {
	st := corpus(t, c.corpus, c.extra...)
	sc := map[string]upstreamtest.Script{}
	for _, p := range []string{"gpt", "claude", "gem"} {
		sc[p] = script(st)
	}
	return fakes(t, sc)
}

// c50eGoResult is one Go SDK call's outcome.
type c50eGoResult struct {
	attempts    int
	status      int
	typ, code   string
	message     string
	shouldRetry string
}

func c50eGo(t *testing.T, g *gateway, door, route string) c50eGoResult {
	var n atomic.Int32
	var last atomic.Value
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var r c50eGoResult
	switch door {
	case "chat", "responses":
		c := openai.NewClient(option.WithBaseURL(g.URL+"/v1/"), option.WithAPIKey("test"),
			option.WithMiddleware(func(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
				n.Add(1)
				resp, err := next(req)
				if resp != nil {
					last.Store(resp.Header.Get("X-Should-Retry"))
				}
				return resp, err
			}))
		var err error
		if door == "chat" {
			_, err = c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: route,
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}})
		} else {
			_, err = c.Responses.New(ctx, responses.ResponseNewParams{Model: route,
				Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("hi")}})
		}
		var e *openai.Error
		if !errors.As(err, &e) {
			t.Fatalf("%s %s: %v, want an *openai.Error", door, route, err)
		}
		r = c50eGoResult{status: e.StatusCode, typ: e.Type, code: e.Code, message: e.Message}
	case "messages":
		c := anthropic.NewClient(aoption.WithBaseURL(g.URL+"/"), aoption.WithAPIKey("test"),
			aoption.WithMiddleware(func(req *http.Request, next aoption.MiddlewareNext) (*http.Response, error) {
				n.Add(1)
				resp, err := next(req)
				if resp != nil {
					last.Store(resp.Header.Get("X-Should-Retry"))
				}
				return resp, err
			}))
		_, err := c.Messages.New(ctx, anthropic.MessageNewParams{Model: anthropic.Model(route), MaxTokens: 50,
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}})
		var e *anthropic.Error
		if !errors.As(err, &e) {
			t.Fatalf("%s %s: %v, want an *anthropic.Error", door, route, err)
		}
		var body struct {
			Error struct{ Type, Message string } `json:"error"`
		}
		_ = json.Unmarshal([]byte(e.RawJSON()), &body)
		r = c50eGoResult{status: e.StatusCode, typ: body.Error.Type, message: body.Error.Message}
	}
	r.attempts = int(n.Load())
	r.shouldRetry, _ = last.Load().(string)
	return r
}

// TestC50eGoSDKs: openai-go (chat, responses) and anthropic-sdk-go
// (messages), default retries (2), per class.
func TestC50eGoSDKs(t *testing.T) {
	for _, c := range c50eCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for _, door := range []string{"chat", "responses", "messages"} {
				g := start(t, c50eCfg, c50eFakes(t, c))
				r := c50eGo(t, g, door, "via-"+c.up)
				t.Logf("%s: attempts %d status %d type %q code %q x-should-retry %q message %q", door, r.attempts, r.status, r.typ, r.code, r.shouldRetry, r.message)
				if !c.retry && r.attempts != 1 {
					t.Errorf("%s: the SDK sent the request %d times; a %s failure must not be retried by the client", door, r.attempts, c.class)
				}
				if c.retry && r.attempts < 2 {
					t.Errorf("%s: the SDK did not retry a %s failure", door, c.class)
				}
				switch c.class {
				case "context_length":
					if door == "messages" && (r.status != 400 || !strings.Contains(strings.ToLower(r.message), "prompt is too long")) {
						t.Errorf("messages: %d %q, want 400 'prompt is too long' (Claude Code, LangChain ChatAnthropic)", r.status, r.message)
					}
					if door != "messages" && r.code != "context_length_exceeded" {
						t.Errorf("%s: code %q, want context_length_exceeded", door, r.code)
					}
				case "server_error":
					if door == "messages" && r.typ != "overloaded_error" {
						t.Errorf("messages: type %q, want overloaded_error", r.typ)
					}
				case "auth":
					if r.status != 401 {
						t.Errorf("%s: status %d", door, r.status)
					}
				}
			}
		})
	}
}

// c50eNode runs the JS clients against one route; one JSON line per client.
const c50eNode = `
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { ChatOpenAI } from '@langchain/openai';
import { ChatAnthropic } from '@langchain/anthropic';
import { ContextOverflowError } from '@langchain/core/errors';
const base = process.env.C50E_BASE, model = process.env.C50E_MODEL;
const counts = {};
const counted = (name) => async (url, init) => { counts[name] = (counts[name] || 0) + 1; return fetch(url, init); };
const clients = {
  openai_chat: () => new OpenAI({ baseURL: base + '/v1', apiKey: 'test', fetch: counted('openai_chat') }).chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }] }),
  openai_responses: () => new OpenAI({ baseURL: base + '/v1', apiKey: 'test', fetch: counted('openai_responses') }).responses.create({ model, input: 'hi' }),
  anthropic: () => new Anthropic({ baseURL: base, apiKey: 'test', fetch: counted('anthropic') }).messages.create({ model, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }),
  lc_openai_chat: () => new ChatOpenAI({ model, apiKey: 'test', maxRetries: 2, configuration: { baseURL: base + '/v1', fetch: counted('lc_openai_chat') } }).invoke('hi'),
  lc_openai_responses: () => new ChatOpenAI({ model, apiKey: 'test', maxRetries: 2, useResponsesApi: true, configuration: { baseURL: base + '/v1', fetch: counted('lc_openai_responses') } }).invoke('hi'),
  lc_anthropic: () => new ChatAnthropic({ model, apiKey: 'test', maxRetries: 2, anthropicApiUrl: base, clientOptions: { fetch: counted('lc_anthropic') } }).invoke('hi'),
};
const only = (process.env.C50E_ONLY || '').split(',').filter(Boolean);
for (const [name, fn] of Object.entries(clients)) {
  if (only.length && !only.includes(name)) continue;
  let out = { client: name };
  try { await fn(); out.ok = true; } catch (e) {
    out.error = { class: e?.constructor?.name, name: e?.name, status: e?.status ?? e?.cause?.status, type: e?.error?.error?.type ?? e?.error?.type ?? e?.type, code: e?.code ?? e?.error?.code, message: String(e?.message).slice(0, 300), overflow: ContextOverflowError.isInstance(e), lcCode: e?.lc_error_code };
  }
  out.attempts = counts[name] || 0;
  console.log(JSON.stringify(out));
}
`

type c50eNodeOut struct {
	Client   string `json:"client"`
	OK       bool   `json:"ok"`
	Attempts int    `json:"attempts"`
	Error    *struct {
		Class, Name, Type, Message, LcCode string
		Code                               any
		Status                             int
		Overflow                           bool
	} `json:"error"`
}

func c50eRunNode(t *testing.T, base, route string, only ...string) map[string]c50eNodeOut {
	t.Helper()
	dir := os.Getenv("DETOUR_CLIENTS_DIR")
	if dir == "" {
		dir = filepath.Join(os.Getenv("HOME"), ".cache", "detour", "npm-clients")
	}
	modules := filepath.Join(dir, "node_modules")
	if _, err := os.Stat(filepath.Join(modules, "@langchain", "openai")); err != nil {
		t.Skip("no JS clients under", dir)
	}
	cmd := exec.Command("node", "--input-type=module", "-e", c50eNode)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "C50E_BASE="+base, "C50E_MODEL="+route, "C50E_ONLY="+strings.Join(only, ","))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	res := map[string]c50eNodeOut{}
	for _, line := range strings.Split(string(out), "\n") {
		var o c50eNodeOut
		if json.Unmarshal([]byte(line), &o) == nil && o.Client != "" {
			res[o.Client] = o
			t.Logf("%s", line)
		}
	}
	return res
}

// TestC50eNodeClients: the JS clients, their own retries on, per class.
func TestC50eNodeClients(t *testing.T) {
	for _, c := range c50eCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			g := start(t, c50eCfg, c50eFakes(t, c))
			res := c50eRunNode(t, g.URL, "via-"+c.up)
			for name, o := range res {
				if o.Error == nil {
					t.Errorf("%s: no error", name)
					continue
				}
				sdk := !strings.HasPrefix(name, "lc_")
				if sdk && !c.retry && o.Attempts != 1 {
					t.Errorf("%s: sent %d times; a %s failure must not be retried", name, o.Attempts, c.class)
				}
				if c.retry && o.Attempts < 2 {
					t.Errorf("%s: did not retry a %s failure", name, c.class)
				}
				if c.class == "context_length" && strings.HasPrefix(name, "lc_") && !o.Error.Overflow {
					t.Errorf("%s: LangChain did not raise ContextOverflowError (summarization fallback stays dark): %s", name, o.Error.Message)
				}
				if c.class == "quota" && strings.HasPrefix(name, "lc_") && o.Attempts != 1 {
					t.Errorf("%s: LangChain retried a quota failure %d times", name, o.Attempts)
				}
			}
		})
	}
}

// c50eMidStream: the upstream streams "partial " and then fails with its
// own error event (after Detour's commit point, so the failure reaches the
// client inside the stream). Claude: the `event: error` of
// classify/testdata/corpus/anthropic-sse-api-error-midstream-after-deltas.json;
// Gemini: the trailing error of gemini-stream-trailing-error-503-high-demand.json.
func c50eMidStream(t *testing.T) map[string]*upstreamtest.Server {
	blocks := corpus(t, "anthropic-sse-api-error-midstream-after-deltas").Events
	claude := append(anthropicEvents("claude-sonnet-4-5", "partial ")[:4], blocks[len(blocks)-1])
	var gemErr bytes.Buffer
	if err := json.Compact(&gemErr, []byte(strings.TrimPrefix(strings.Join(corpus(t, "gemini-stream-trailing-error-503-high-demand").Events, "\n"), "data: "))); err != nil {
		t.Fatal(err)
	}
	gem := []string{`data: {"candidates":[{"content":{"role":"model","parts":[{"text":"partial "}]},"index":0}],"modelVersion":"gemini-2.5-pro"}`, "data: " + gemErr.String()}
	return fakes(t, map[string]upstreamtest.Script{
		"gpt":    script(upstreamtest.Step{Status: 500}),
		"claude": script(upstreamtest.Step{Events: claude}),
		"gem":    script(upstreamtest.Step{Events: gem}),
	})
}

const c50eNodeStream = `
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { ChatOpenAI } from '@langchain/openai';
import { ChatAnthropic } from '@langchain/anthropic';
const base = process.env.C50E_BASE, model = process.env.C50E_MODEL;
const oa = new OpenAI({ baseURL: base + '/v1', apiKey: 'test', maxRetries: 0 });
const an = new Anthropic({ baseURL: base, apiKey: 'test', maxRetries: 0 });
async function collect(iter, textOf) {
  let text = '', types = [];
  try { for await (const ev of iter) { if (ev?.type) types.push(ev.type); text += textOf(ev) ?? ''; } }
  catch (e) { return { text, types, error: String(e?.message ?? e).slice(0, 300), errClass: e?.constructor?.name, status: e?.status }; }
  return { text, types, ended: true };
}
const lcText = (c) => typeof c.content === 'string' ? c.content : (c.content || []).map((p) => p.text || '').join('');
const clients = {
  openai_chat: async () => collect(await oa.chat.completions.create({ model, messages: [{ role: 'user', content: 'hi' }], stream: true }), (c) => c.choices?.[0]?.delta?.content),
  openai_responses: async () => collect(await oa.responses.create({ model, input: 'hi', stream: true }), (e) => e.type === 'response.output_text.delta' ? e.delta : ''),
  anthropic: async () => collect(an.messages.stream({ model, max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }), (e) => e.type === 'content_block_delta' ? e.delta.text : ''),
  lc_openai_chat: async () => collect(await new ChatOpenAI({ model, apiKey: 'test', maxRetries: 0, configuration: { baseURL: base + '/v1' } }).stream('hi'), lcText),
  lc_openai_responses: async () => collect(await new ChatOpenAI({ model, apiKey: 'test', maxRetries: 0, useResponsesApi: true, configuration: { baseURL: base + '/v1' } }).stream('hi'), lcText),
  lc_anthropic: async () => collect(await new ChatAnthropic({ model, apiKey: 'test', maxRetries: 0, anthropicApiUrl: base }).stream('hi'), lcText),
};
for (const [name, fn] of Object.entries(clients)) {
  let out;
  try { out = await fn(); } catch (e) { out = { error: String(e?.message ?? e).slice(0, 300), errClass: e?.constructor?.name, early: true }; }
  out.types = (out.types || []).filter((t, i, a) => a.indexOf(t) === i);
  console.log(JSON.stringify({ client: name, ...out }));
}
`

// TestC50eMidStreamError: each client must end a stream that failed after
// its first words with an error naming the provider's words, never as a
// short success.
func TestC50eMidStreamError(t *testing.T) {
	dir := os.Getenv("DETOUR_CLIENTS_DIR")
	if dir == "" {
		dir = filepath.Join(os.Getenv("HOME"), ".cache", "detour", "npm-clients")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@langchain", "openai")); err != nil {
		t.Skip("no JS clients under", dir)
	}
	words := map[string]string{"claude": "Internal server error", "gem": "high demand"}
	for _, up := range []string{"claude", "gem"} {
		t.Run(up, func(t *testing.T) {
			t.Parallel()
			g := start(t, c50eCfg, c50eMidStream(t))
			cmd := exec.Command("node", "--input-type=module", "-e", c50eNodeStream)
			cmd.Dir = dir
			cmd.Env = append(os.Environ(), "C50E_BASE="+g.URL, "C50E_MODEL=via-"+up)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("node: %v\n%s", err, out)
			}
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				var o struct {
					Client, Text, Error string
					Types               []string
					Ended               bool
				}
				if json.Unmarshal([]byte(line), &o) != nil {
					continue
				}
				t.Logf("%s", line)
				failed := o.Error != "" || slices.Contains(o.Types, "response.failed") || slices.Contains(o.Types, "error")
				if !failed || o.Text != "partial " {
					t.Errorf("%s: text %q, ended cleanly %v: want the text and then an error", o.Client, o.Text, o.Ended)
				}
				if o.Error != "" && !strings.Contains(o.Error, words[up]) {
					t.Errorf("%s: error %q does not carry the provider's words %q", o.Client, o.Error, words[up])
				}
			}
		})
	}
}

// TestC50eGoMidStreamError: openai-go (chat, responses) and anthropic-sdk-go
// streams that fail after "partial " must end in stream.Err(), not a clean end.
func TestC50eGoMidStreamError(t *testing.T) {
	words := map[string]string{"claude": "Internal server error", "gem": "high demand"}
	for _, up := range []string{"claude", "gem"} {
		t.Run(up, func(t *testing.T) {
			g := start(t, c50eCfg, c50eMidStream(t))
			ctx := context.Background()
			route := "via-" + up
			oc := openai.NewClient(option.WithBaseURL(g.URL+"/v1/"), option.WithAPIKey("test"), option.WithMaxRetries(0))
			check := func(door, text string, err error) {
				t.Logf("%s: text %q err %v", door, text, err)
				if text != "partial " || err == nil {
					t.Errorf("%s: text %q err %v: want the text and then an error", door, text, err)
				} else if !strings.Contains(err.Error(), words[up]) {
					t.Errorf("%s: error %q lacks the provider's words %q", door, err, words[up])
				}
			}
			cs := oc.Chat.Completions.NewStreaming(ctx, openai.ChatCompletionNewParams{Model: route,
				Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}})
			text := ""
			for cs.Next() {
				if ch := cs.Current(); len(ch.Choices) > 0 {
					text += ch.Choices[0].Delta.Content
				}
			}
			check("chat", text, cs.Err())
			rs := oc.Responses.NewStreaming(ctx, responses.ResponseNewParams{Model: route,
				Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("hi")}})
			text = ""
			// openai-go hands `error` and `response.failed` to the caller as
			// events, as it does from OpenAI itself.
			var failed error
			for rs.Next() {
				ev := rs.Current()
				switch ev.Type {
				case "response.output_text.delta":
					text += ev.Delta
				case "error":
					failed = errors.New("error event: " + ev.Message)
				}
			}
			err := rs.Err()
			if err == nil {
				err = failed
			}
			check("responses", text, err)
			ac := anthropic.NewClient(aoption.WithBaseURL(g.URL+"/"), aoption.WithAPIKey("test"), aoption.WithMaxRetries(0))
			as := ac.Messages.NewStreaming(ctx, anthropic.MessageNewParams{Model: anthropic.Model(route), MaxTokens: 50,
				Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}})
			text = ""
			for as.Next() {
				if ev := as.Current(); ev.Type == "content_block_delta" {
					text += ev.Delta.Text
				}
			}
			check("messages", text, as.Err())
		})
	}
}

// TestC50eClaudeCode: the real Claude Code CLI on a route whose only
// target is out of quota (or rate-limited for 2 minutes) must not come
// back: Detour answers with
// x-should-retry: false (a spent allowance). A counting proxy in front of
// the gateway counts Claude Code's POST /v1/messages.
func TestC50eClaudeCode(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Claude Code CLI")
	}
	for _, c := range c50eCases {
		if c.class != "quota" && c.class != "context_length" && c.name != "limit-long-claude" {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			g := start(t, c50eCfg, c50eFakes(t, c))
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
			start := time.Now()
			res := clienttest.RunClaude(t, proxy.URL, "say hi", clienttest.Options{Args: []string{"--model", "via-" + c.up}})
			t.Logf("%s: %d POST /v1/messages in %s; err %v\nstdout: %.600s\nstderr: %.300s", c.name, n.Load(), time.Since(start).Round(time.Millisecond), res.Err, res.Stdout, res.Stderr)
			var out struct {
				Result  string `json:"result"`
				IsError bool   `json:"is_error"`
			}
			_ = json.Unmarshal([]byte(res.Stdout), &out)
			t.Logf("%s: Claude Code shows (is_error %v): %q", c.name, out.IsError, out.Result)
			if c.class == "context_length" {
				// Claude Code's own words for Anthropic's "prompt is too long"
				// (it compacts on it in an interactive session).
				if !strings.Contains(out.Result, "Prompt is too long") {
					t.Errorf("%s: Claude Code did not read a full context: %q", c.name, out.Result)
				}
				return
			}
			if n.Load() != 1 {
				t.Errorf("%s: Claude Code sent the request %d times; Detour said x-should-retry: false", c.name, n.Load())
			}
		})
	}
}

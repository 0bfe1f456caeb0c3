package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/detour-llm/detour/internal/clienttest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A stream that breaks after the commit point ends with Anthropic's error
// event: the SDK reports an *anthropic.Error typed as the upstream's error
// said (an overloaded_error streamed after a 200 stays overloaded_error, as
// Anthropic sends it: review 37c), after the text it read.
func TestMessagesSDKStreamBreaksAfterCommit(t *testing.T) {
	events := anthropicEvents("claude-sonnet-4-5", "partial")
	broken := append(events[:4:4], "event: error\ndata: "+`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": script(upstreamtest.Step{Events: broken}),
		"openai":    script(okStream("gpt-4o-mini", "never")),
	})
	g := start(t, messagesCfg, fs)
	st := anthropicSDK(g, nil).Messages.NewStreaming(context.Background(), askClaude("deep", "hi"))
	var m anthropic.Message
	for st.Next() {
		_ = m.Accumulate(st.Current())
	}
	var apiErr *anthropic.Error
	if err := st.Err(); !errors.As(err, &apiErr) || string(apiErr.Type()) != "overloaded_error" {
		t.Fatalf("stream error %v, want an *anthropic.Error", err)
	}
	if claudeText(&m) != "partial" || fs["openai"].Calls() != 0 {
		t.Errorf("text %q, openai calls %d", claudeText(&m), fs["openai"].Calls())
	}
}

// claudeCfg routes Claude Code's requests: "claude-route" (its --model)
// to an Anthropic-dialect fake, "gpt-route" to an OpenAI-dialect one.
const claudeCfg = `
client_keys: [test]
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
routes:
  - {name: claude-route, targets: [claude]}
  - {name: gpt-route, targets: [gpt]}
`

// The real Claude Code CLI through Detour (skipped when it is not
// installed; see internal/clienttest): one turn to an Anthropic target,
// whose fake gets Claude Code's own request, and one to an OpenAI target,
// which gets the translation of everything Claude Code sends.
func TestClaudeCodeThroughDetour(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Claude Code CLI")
	}
	rec, err := clienttest.NewRecorder("hi from the anthropic fake", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer rec.Close()
	openai := upstreamtest.New(script(okStream("gpt-4o-mini", "hi from ", "the openai fake")))
	defer openai.Close()
	g := start(t, strings.ReplaceAll(claudeCfg, "{anthropic}", rec.URL), map[string]*upstreamtest.Server{"openai": openai})

	ran := 0 // turns that ran: RunClaude skips when the CLI is absent
	for _, tc := range []struct{ route, want string }{
		{"claude-route", "hi from the anthropic fake"},
		{"gpt-route", "hi from the openai fake"},
	} {
		t.Run(tc.route, func(t *testing.T) {
			res := clienttest.RunClaude(t, g.URL, "say hi", clienttest.Options{Args: []string{"--model", tc.route}})
			ran++
			if res.Err != nil {
				t.Fatalf("claude: %v\nstdout: %s\nstderr: %s", res.Err, res.Stdout, res.Stderr)
			}
			var out struct {
				Result  string `json:"result"`
				IsError bool   `json:"is_error"`
			}
			if err := json.Unmarshal([]byte(res.Stdout), &out); err != nil || out.IsError || !strings.Contains(out.Result, tc.want) {
				t.Fatalf("claude's result %q (is_error %v, %v), want %q\nstderr: %s", out.Result, out.IsError, err, tc.want, res.Stderr)
			}
		})
	}
	if ran < 2 {
		t.Skip("Claude Code did not run both turns")
	}
	// The Anthropic fake got Claude Code's body with only the model
	// replaced: its betas header, context_management and the
	// mid-conversation system message included.
	var calls int
	for _, r := range rec.Requests() {
		if r.Path != "/v1/messages" {
			continue
		}
		calls++
		var body map[string]json.RawMessage
		if err := json.Unmarshal(r.Body, &body); err != nil {
			t.Fatal(err)
		}
		if string(body["model"]) != `"claude-sonnet-4-5"` || len(r.Headers["anthropic-beta"]) == 0 || len(r.Headers["x-api-key"]) == 0 {
			t.Errorf("the Anthropic fake got model %s, headers %v", body["model"], r.Headers)
		}
	}
	if calls == 0 {
		t.Error("the Anthropic fake got no /v1/messages call")
	}
	for _, r := range openai.Requests() {
		if r.Path != "/chat/completions" || strings.Contains(string(r.Body), "x-anthropic-billing-header") || strings.Contains(string(r.Body), "device_id") {
			t.Errorf("the OpenAI fake got %s %s", r.Path, r.Body)
		}
	}
}

// A client key over its rate gets Anthropic's 429 rate_limit_error with
// Retry-After, which the SDK reports as such; nothing reaches the upstream.
func TestMessagesSDKClientRateLimit(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": script(upstreamtest.Step{Body: anthropicMessage("claude-sonnet-4-5", "one")}),
		"openai":    script(),
	})
	cfg := strings.Replace(messagesCfg, "client_keys: [client-key-1]",
		"client_keys:\n  - {name: team, key: client-key-1, rate: {requests_per_minute: 1}}", 1)
	g := start(t, cfg, fs)
	c := anthropicSDK(g, nil)
	if _, err := c.Messages.New(context.Background(), askClaude("deep", "hi")); err != nil {
		t.Fatal(err)
	}
	_, err := c.Messages.New(context.Background(), askClaude("deep", "hi"))
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 || string(apiErr.Type()) != "rate_limit_error" ||
		apiErr.Response.Header.Get("Retry-After") == "" || !strings.Contains(apiErr.Message, "requests_per_minute") {
		t.Fatalf("err = %v", err)
	}
	if n := fs["anthropic"].Calls(); n != 1 {
		t.Errorf("the upstream was called %d times, want 1", n)
	}
}

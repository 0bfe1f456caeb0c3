package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/clienttest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// The real Codex CLI (@openai/codex, the pinned version) driven through
// Detour's /v1/responses to loopback fakes in other dialects; it skips
// when Codex is not installed (set DETOUR_CLIENTS_DIR, see
// internal/clienttest). Codex names a Detour route, so it sends function
// tools, a namespace tool and web_search (docs/doors.md, "Real clients").

const codexCfg = `
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
targets:
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
routes:
  - {name: codex-route, targets: [gpt]}
  - {name: codex-claude, targets: [claude]}
`

// toolCallStream is a chat stream calling the flattened namespace tool
// multi_agent_v1__wait_agent.
func toolCallStream() []string {
	return []string{
		`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_wait","type":"function","function":{"name":"multi_agent_v1__wait_agent","arguments":""}}]},"finish_reason":null}]}`,
		`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"timeout_ms\":10}"}}]},"finish_reason":null}]}`,
		`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`[DONE]`,
	}
}

func TestCodexThroughDetourToOpenAIChat(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai": func(n int, r upstreamtest.Request) upstreamtest.Step {
			if n == 1 {
				return upstreamtest.Step{Events: toolCallStream()}
			}
			return okStream("gpt-4o-mini", "done ", "waiting")
		},
		"anthropic": script(ok("x", "x")),
	})
	g := start(t, codexCfg, fs)
	res := clienttest.RunCodex(t, g.URL, "wait for the agents", clienttest.Options{Args: []string{"-m", "codex-route"}})
	t.Logf("stdout: %s\nstderr: %s", res.Stdout, res.Stderr)
	if res.Err != nil {
		t.Fatalf("codex: %v", res.Err)
	}
	if !strings.Contains(res.Stdout, "done waiting") {
		t.Errorf("codex printed %q, want the upstream's reply", res.Stdout)
	}
	reqs := fs["openai"].Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d upstream calls, want the tool call and the answer to its result", len(reqs))
	}
	// The second request carries Codex's call back, flattened again, and
	// wait_agent's own answer: Codex ran the namespaced tool.
	var body struct {
		Tools []struct {
			Function struct{ Name string } `json:"function"`
		} `json:"tools"`
		Messages []struct {
			Role      string `json:"role"`
			Content   any    `json:"content"`
			ToolCalls []struct {
				Function struct{ Name string } `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(reqs[1].Body, &body); err != nil {
		t.Fatal(err)
	}
	var called, answered, hasTool bool
	for _, m := range body.Messages {
		for _, c := range m.ToolCalls {
			called = called || c.Function.Name == "multi_agent_v1__wait_agent"
		}
		if s, _ := m.Content.(string); m.Role == "tool" && s != "" {
			answered = true
		}
	}
	for _, tl := range body.Tools {
		hasTool = hasTool || tl.Function.Name == "multi_agent_v1__wait_agent"
	}
	if !called || !answered || !hasTool {
		t.Errorf("second upstream request: call %v, tool result %v, tool listed %v:\n%s", called, answered, hasTool, reqs[1].Body)
	}
	for _, n := range []int{1, 2} {
		if d := g.recs.wait(t, n); d.API != "responses" || d.Outcome != "ok" {
			t.Errorf("decision %d: api %q outcome %q", n, d.API, d.Outcome)
		}
	}
}

func TestCodexThroughDetourToAnthropic(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai":    script(ok("x", "x")),
		"anthropic": script(upstreamtest.Step{Events: sseBlocks(string(testdata(t, "anthropic", "stream/basic.sse")))}),
	})
	g := start(t, codexCfg, fs)
	res := clienttest.RunCodex(t, g.URL, "say hi", clienttest.Options{Args: []string{"-m", "codex-claude"}})
	t.Logf("stdout: %s\nstderr: %s", res.Stdout, res.Stderr)
	if res.Err != nil {
		t.Fatalf("codex: %v", res.Err)
	}
	if strings.TrimSpace(res.Stdout) == "" {
		t.Errorf("codex printed nothing")
	}
	reqs := fs["anthropic"].Requests()
	if len(reqs) != 1 || reqs[0].Path != "/v1/messages" {
		t.Fatalf("anthropic calls: %d", len(reqs))
	}
	var body struct {
		System   any              `json:"system"`
		Tools    []map[string]any `json:"tools"`
		Messages []any            `json:"messages"`
	}
	json.Unmarshal(reqs[0].Body, &body)
	if body.System == nil || len(body.Tools) == 0 {
		t.Errorf("anthropic got no system prompt or no tools: %.500s", reqs[0].Body)
	}
}

// A translated stream the upstream cuts after its first words: Codex
// fails the turn with Detour's message and prints no answer — with the
// error event before response.failed (docs/doors.md) as without it.
func TestCodexCutStream(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai":    script(upstreamtest.Step{Events: upstreamtest.ChatStream("gpt-4o-mini", "partial ")[:2], Cut: true}),
		"anthropic": script(ok("x", "x")),
	})
	g := start(t, codexCfg, fs)
	res := clienttest.RunCodex(t, g.URL, "say hi", clienttest.Options{Args: []string{"-m", "codex-route"}})
	t.Logf("stdout: %s\nstderr: %s", res.Stdout, res.Stderr)
	if res.Err == nil || strings.TrimSpace(res.Stdout) != "" {
		t.Errorf("codex exited %v with %q, want a failed turn and no answer", res.Err, res.Stdout)
	}
	if !strings.Contains(res.Stderr, "stream was cut") {
		t.Errorf("codex's error does not carry Detour's message: %s", res.Stderr)
	}
}

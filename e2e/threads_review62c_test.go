package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 62c (Anthropic-speaking clients): an Anthropic target's
// error.details.error_code reaches the Messages client, and a 404 about the
// client's expired server-side thread cools nothing. Each failed before.

// review62cThreadRejection is anthropic-sdk-go's own fixture of Anthropic
// refusing a thread link (betamessagethread_test.go threadRejection).
func review62cThreadRejection(status int, code string) upstreamtest.Step {
	return upstreamtest.Step{Status: status, Header: map[string]string{"x-should-retry": "false"},
		Body: `{"type":"error","error":{"type":"invalid_request_error","message":"rejected","details":{"error_code":"` + code + `"}}}`}
}

// An Anthropic target's error reaches the client with error.details: the
// SDKs' thread recovery (anthropic-sdk-go betamessagethread.go recoversFrom,
// @anthropic-ai/sdk ThreadState.recoversFrom) and @anthropic-ai/sdk's typed
// errors (core/error-classes.js, "<status> <error_code>") read it.
func TestReview62cPassthroughErrorKeepsDetails(t *testing.T) {
	for _, c := range []struct {
		status int
		code   string
	}{{404, "thread_not_found"}, {400, "thread_already_continued"}, {400, "thread_continue_in_flight"}, {400, "tool_name_conflict"}} {
		r := claudeAnswers(t, review62cThreadRejection(c.status, c.code))
		if r.Status != c.status || detailCode(r) != c.code {
			t.Errorf("%d %s from Claude reached the client as %d %s (X-Detour-Class %s): error.details lost",
				c.status, c.code, r.Status, r.Body, r.Header.Get("X-Detour-Class"))
		}
	}
}

// A 404 thread_not_found says the client's thread is gone (it expired), not
// the model: it must cool nothing. It read `unavailable` and cooled the
// Claude endpoint for a day, so a route [claude, gpt] sent everyone to GPT
// afterwards.
func TestReview62cThreadNotFoundCoolsNothing(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": func(n int, r upstreamtest.Request) upstreamtest.Step {
			if strings.Contains(string(r.Body), `"continue"`) {
				return review62cThreadRejection(404, "thread_not_found")
			}
			return upstreamtest.Step{Body: anthropicMessage("claude-sonnet-4-5", "hello from claude")}
		},
		"openai": script(ok("gpt-4o-mini", "hello from gpt")),
	})
	g := start(t, messagesCfg, fs)
	h := []string{"x-api-key", "client-key-1", "anthropic-version", "2023-06-01"}
	r := g.raw(t, "POST", "/v1/messages?beta=true", `{"model":"deep","max_tokens":10,"thread":{"type":"continue","previous_message_id":"msg_old"},"messages":[{"role":"user","content":"hi"}]}`, h...)
	t.Logf("continue of an expired thread: %d class=%s %s", r.Status, r.Header.Get("X-Detour-Class"), r.Body)
	r = g.raw(t, "POST", "/v1/messages", `{"model":"deep","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`, h...)
	if r.Header.Get("X-Detour-Target") != "claude" {
		t.Errorf("the next plain request went to %q (%s): one client's expired thread cooled Claude for everyone; health %+v",
			r.Header.Get("X-Detour-Target"), r.Body, g.health(t).Endpoints[0])
	}
}

// anthropic-sdk-go's tool runner (threaded by default) through a Claude
// route: Anthropic loses the thread (404 thread_not_found), and the runner
// replays the turn under a new thread — if it can read the error code.
func TestReview62cToolRunnerRecoversLostThread(t *testing.T) {
	toolUse := `{"id":"msg_a","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_1","name":"get_time","input":{"city":"Paris"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":20,"output_tokens":5}}`
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": func(n int, r upstreamtest.Request) upstreamtest.Step {
			switch {
			case n == 1:
				return upstreamtest.Step{Body: toolUse}
			case strings.Contains(string(r.Body), `"continue"`):
				return review62cThreadRejection(404, "thread_not_found")
			default:
				return upstreamtest.Step{Body: anthropicMessage("claude-sonnet-4-5", "It is noon in Paris.")}
			}
		},
		"openai": script(ok("gpt-4o-mini", "It is noon in Paris (gpt).")),
	})
	g := start(t, strings.Replace(messagesCfg, "{name: deep, targets: [claude, gpt]}", "{name: deep, targets: [claude]}", 1), fs)
	var s sent
	tool := &runnerClock{}
	runner := anthropicSDK(g, &s).Beta.Messages.NewToolRunner([]anthropic.BetaTool{tool}, anthropic.BetaToolRunnerParams{
		BetaMessageNewParams: anthropic.BetaMessageNewParams{Model: "deep", MaxTokens: 512,
			Messages: []anthropic.BetaMessageParam{anthropic.NewBetaUserMessage(anthropic.NewBetaTextBlock("What time is it in Paris?"))}},
		MaxIterations: 4,
	})
	msg, err := runner.RunToCompletion(context.Background())
	for i, b := range s.bodies {
		var x struct{ Thread json.RawMessage }
		_ = json.Unmarshal(b, &x)
		t.Logf("request %d thread=%s", i+1, x.Thread)
	}
	if err != nil {
		t.Fatalf("the runner failed where Anthropic's own answer lets it replay: %v (%d requests)", err, len(s.bodies))
	}
	if len(msg.Content) == 0 || msg.Content[0].Text != "It is noon in Paris." {
		t.Errorf("final answer %+v", msg.Content)
	}
}

// claudeAnswers serves a Messages request on route r-claude, whose
// Anthropic target answers step, and returns what the client got.
func claudeAnswers(t *testing.T, step upstreamtest.Step) reply {
	t.Helper()
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": script(step),
		"openai":    script(ok("gpt-4o-mini", "x")),
		"gemini":    script(upstreamtest.Step{Body: review62cGemini}),
	})
	g := start(t, review62cCfg, fs)
	return g.raw(t, "POST", "/v1/messages", `{"model":"r-claude","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`,
		"x-api-key", "client-key-1", "anthropic-version", "2023-06-01")
}

// detailCode is the error.details.error_code of an Anthropic error body.
func detailCode(r reply) string {
	var env struct {
		Error struct {
			Details struct {
				ErrorCode string `json:"error_code"`
			} `json:"details"`
		} `json:"error"`
	}
	_ = json.Unmarshal(r.Body, &env)
	return env.Error.Details.ErrorCode
}

const review62cCfg = `
client_keys: [client-key-1]
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
  - {name: gemini, dialect: gemini, base_url: "{gemini}", api_key: ` + secret + `}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
  - {name: gem, model: gemini-2.0-flash, providers: [gemini]}
routes:
  - {name: r-claude, targets: [claude]}
  - {name: r-gpt, targets: [gpt]}
  - {name: r-gem, targets: [gem]}
`

const review62cGemini = `{"candidates":[{"content":{"role":"model","parts":[{"text":"hi there"}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":2,"totalTokenCount":7},"modelVersion":"gemini-2.0-flash"}`

// Review 62c: max_tokens 0 fills Anthropic's prompt cache without
// generating. A route holding Claude after another target served it only
// from Claude's place in the route: the translation refused it as
// malformed, a 400 at once. Now the other targets pass it over and Claude
// serves it; a route without Claude refuses it naming the member.
func TestReview62cMaxTokensZeroGoesToClaude(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": script(upstreamtest.Step{Body: anthropicMessage("claude-sonnet-4-5", "")}),
		"openai":    script(ok("gpt-4o-mini", "x")),
		"gemini":    script(upstreamtest.Step{Body: review62cGemini}),
	})
	g := start(t, review62cCfg+"  - {name: r-gpt-claude, targets: [gpt, claude]}\n", fs)
	h := []string{"x-api-key", "client-key-1", "anthropic-version", "2023-06-01"}
	body := func(route string) string {
		return `{"model":"` + route + `","max_tokens":0,"messages":[{"role":"user","content":"hi"}]}`
	}
	if r := g.raw(t, "POST", "/v1/messages", body("r-gpt-claude"), h...); r.Status != 200 || r.Header.Get("X-Detour-Target") != "claude" {
		t.Errorf("route [gpt, claude]: %d via %q %s, want 200 from claude", r.Status, r.Header.Get("X-Detour-Target"), r.Body)
	}
	if n := fs["openai"].Calls(); n != 0 {
		t.Errorf("gpt was called %d times for a request it cannot serve", n)
	}
	if r := g.raw(t, "POST", "/v1/messages", body("r-gpt"), h...); r.Status != 400 || !strings.Contains(string(r.Body), "max_tokens") {
		t.Errorf("route [gpt]: %d %s, want a 400 naming max_tokens", r.Status, r.Body)
	}
}

// Review 62j: a Responses client's prompt_cache_key (Codex sends its
// session's) reaches a Claude target as a cache mark on the prompt's last
// block: the door is stateless, the agent sends its whole conversation
// every turn, and Claude caches only where marked. An OpenAI target gets
// no key (the translation leaves it out: an OpenAI-compatible server may
// refuse it).
func TestReview62jPromptCacheKeyReachesClaude(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": script(upstreamtest.Step{Body: anthropicMessage("claude-sonnet-4-5", "hi")}),
		"openai":    script(ok("gpt-4o-mini", "hi")),
		"gemini":    script(upstreamtest.Step{Body: review62cGemini}),
	})
	g := start(t, review62cCfg, fs)
	for _, route := range []string{"r-claude", "r-gpt"} {
		r := g.raw(t, "POST", "/v1/responses", `{"model":"`+route+`","store":false,"prompt_cache_key":"session-1","input":[{"role":"user","content":"long context"},{"role":"assistant","content":"ok"},{"role":"user","content":"next turn"}]}`,
			"Authorization", "Bearer client-key-1")
		r.wantStatus(t, 200)
	}
	claude := string(fs["anthropic"].Requests()[0].Body)
	if !strings.Contains(claude, `"cache_control":{"type":"ephemeral"}`) {
		t.Errorf("Claude got no cache mark: %s", claude)
	}
	if gpt := string(fs["openai"].Requests()[0].Body); strings.Contains(gpt, "prompt_cache_key") || strings.Contains(gpt, "cache_control") {
		t.Errorf("the OpenAI target got a cache member: %s", gpt)
	}
}

// Review 62j, on a route whose first target serves the Responses API as
// is: the translation for Claude is made late, in the walk, and the wish
// to cache comes with it.
func TestReview62jPromptCacheKeyReachesClaudeAfterANativeTarget(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"native":    script(upstreamtest.Step{Status: 500, Body: `{"error":{"message":"internal error","type":"server_error"}}`}),
		"anthropic": script(upstreamtest.Step{Body: anthropicMessage("claude-sonnet-4-5", "hi")}),
	})
	g := start(t, `
client_keys: [client-key-1]
providers:
  - {name: native, dialect: openai, base_url: "{native}", api_key: `+secret+`, responses: true}
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: `+secret+`}
targets:
  - {name: gpt, model: gpt-5, providers: [native]}
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
routes:
  - {name: r, targets: [gpt, claude]}
`, fs)
	r := g.raw(t, "POST", "/v1/responses", `{"model":"r","store":false,"prompt_cache_key":"session-1","input":[{"role":"user","content":"long context"},{"role":"assistant","content":"ok"},{"role":"user","content":"next turn"}]}`,
		"Authorization", "Bearer client-key-1")
	r.wantStatus(t, 200)
	if got := fs["anthropic"].Requests(); len(got) != 1 || !strings.Contains(string(got[0].Body), `"cache_control":{"type":"ephemeral"}`) {
		t.Errorf("Claude, after the native target failed, got no cache mark: %d requests %v", len(got), got)
	}
}

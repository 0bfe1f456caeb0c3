package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// claudeCodeTooLong is how Claude Code reads a full context: the words
// "prompt is too long", then the conversation's tokens and the window's,
// which size its compaction (its src/services/api/errors.ts,
// getAssistantMessageFromError and parsePromptTooLongTokenCounts).
var claudeCodeTooLong = regexp.MustCompile(`(?i)prompt is too long[^0-9]*(\d+)\s*tokens?\s*>\s*(\d+)`)

// A conversation longer than an OpenAI or Gemini target's window reaches a
// Messages client in Anthropic's words, with the counts, and the vendor's
// own message after them (docs/doors.md, "Anthropic Messages"): Claude
// Code compacts its history on "prompt is too long" and on nothing else, so
// before round 48 a Claude Code session on a route without Claude got the
// same 400 at every later turn. Claude's own words pass as they came.
func TestMessagesContextLengthInAnthropicsWords(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		// OpenAI's context_length_exceeded (openai-python's tests and
		// issues quote it); Gemini's INVALID_ARGUMENT (googleapis/python-genai
		// issues); Anthropic's ("Claude API errors").
		"openai":    script(upstreamtest.Step{Status: 400, Body: `{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}`}),
		"gemini":    script(upstreamtest.Step{Status: 400, Body: `{"error":{"code":400,"message":"The input token count (1052916) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}`}),
		"anthropic": script(upstreamtest.Step{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 209834 tokens > 200000 maximum"}}`}),
	})
	g := start(t, clientsCfg, fs)
	for _, c := range []struct{ route, actual, limit, upstream string }{
		{"via-gpt", "130512", "128000", "maximum context length is 128000"},
		{"via-gem", "1052916", "1048576", "The input token count"},
		{"via-claude", "209834", "200000", ""},
	} {
		body := `{"model":"` + c.route + `","max_tokens":1024,"messages":[{"role":"user","content":"Summarise the repository."}]}`
		r := g.raw(t, http.MethodPost, "/v1/messages", body, "x-api-key", "client-key", "anthropic-version", "2023-06-01")
		var env struct {
			Type  string `json:"type"`
			Error struct {
				Type    string `json:"type"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(r.Body, &env); err != nil || r.Status != 400 || env.Error.Type != "invalid_request_error" {
			t.Errorf("%s: %d %s", c.route, r.Status, r.Body)
			continue
		}
		m := claudeCodeTooLong.FindStringSubmatch(env.Error.Message)
		if m == nil || m[1] != c.actual || m[2] != c.limit {
			t.Errorf("%s: %q: Claude Code does not read %s tokens > %s", c.route, env.Error.Message, c.actual, c.limit)
		}
		if !strings.Contains(env.Error.Message, c.upstream) {
			t.Errorf("%s: %q: the vendor's own message is lost", c.route, env.Error.Message)
		}
	}
}

// runnerClock is a tool for anthropic-sdk-go's tool runner.
type runnerClock struct{ calls int }

func (c *runnerClock) Name() string        { return "get_time" }
func (c *runnerClock) Description() string { return "The current time in a city." }
func (c *runnerClock) InputSchema() anthropic.BetaToolInputSchemaParam {
	return anthropic.BetaToolInputSchemaParam{Properties: map[string]any{"city": map[string]any{"type": "string"}}, Required: []string{"city"}}
}
func (c *runnerClock) Execute(context.Context, json.RawMessage) ([]anthropic.BetaToolResultBlockParamContentUnion, error) {
	c.calls++
	return []anthropic.BetaToolResultBlockParamContentUnion{{OfText: &anthropic.BetaTextBlockParam{Text: "12:00"}}}, nil
}

// anthropic-sdk-go's tool runner, with its defaults, completes on a route
// without Claude: it keeps its conversation in a message thread created to
// continue unthreaded (betatoolrunner.go), and sends the turn again with
// the whole conversation when a refusal carries Anthropic's
// error.details.error_code "thread_unsupported_request"
// (betamessagethread.go recoversFrom), which the Messages door's refusal
// of "thread" now carries (docs/doors.md, "Anthropic Messages"). Before
// round 48 the run ended at its first request.
func TestToolRunnerGoesOnUnthreaded(t *testing.T) {
	upstream := func(n int, r upstreamtest.Request) upstreamtest.Step {
		if n == 1 {
			return upstreamtest.Step{Body: `{"id":"chatcmpl-t1","object":"chat.completion","created":1764489600,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_t1","type":"function","function":{"name":"get_time","arguments":"{\"city\":\"Paris\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":20,"completion_tokens":5,"total_tokens":25}}`}
		}
		return ok("gpt-4o-mini", "It is noon in Paris.")
	}
	fs := fakes(t, map[string]upstreamtest.Script{"openai": upstream, "anthropic": script(), "gemini": script()})
	g := start(t, clientsCfg, fs)
	var s sent
	tool := &runnerClock{}
	runner := anthropicSDK(g, &s).Beta.Messages.NewToolRunner([]anthropic.BetaTool{tool}, anthropic.BetaToolRunnerParams{
		BetaMessageNewParams: anthropic.BetaMessageNewParams{Model: "via-gpt", MaxTokens: 512,
			Messages: []anthropic.BetaMessageParam{anthropic.NewBetaUserMessage(anthropic.NewBetaTextBlock("What time is it in Paris?"))}},
		MaxIterations: 4,
	})
	msg, err := runner.RunToCompletion(context.Background())
	if err != nil || tool.calls != 1 {
		t.Fatalf("run: %v, %d tool calls, %d requests", err, tool.calls, len(s.bodies))
	}
	if len(msg.Content) == 0 || msg.Content[0].Text != "It is noon in Paris." {
		t.Errorf("final answer %+v", msg.Content)
	}
	if len(s.bodies) < 2 || !strings.Contains(string(s.bodies[0]), `"thread"`) || strings.Contains(string(s.bodies[len(s.bodies)-1]), `"thread"`) {
		t.Errorf("want a threaded first request, then unthreaded ones: %d requests", len(s.bodies))
	}
	// The refusal itself, as the SDK read it.
	r := g.raw(t, http.MethodPost, "/v1/messages", `{"model":"via-gpt","max_tokens":5,"thread":{"type":"create"},"messages":[{"role":"user","content":"hi"}]}`, "x-api-key", "client-key")
	var env struct {
		Error struct {
			Details struct {
				ErrorCode string `json:"error_code"`
			} `json:"details"`
		} `json:"error"`
	}
	if json.Unmarshal(r.Body, &env); r.Status != 400 || env.Error.Details.ErrorCode != "thread_unsupported_request" {
		t.Errorf("%d %s", r.Status, r.Body)
	}
}

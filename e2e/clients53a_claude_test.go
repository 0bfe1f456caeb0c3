package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Round 53, probe53a: the Anthropic Messages door as a 2026 client
// developer drives it. A route name hides which Claude model serves it,
// so the client writes its body for a model it cannot see; Anthropic
// refuses some members per model family, and before round 53 a passthrough
// (the body byte for byte, only `model` replaced) handed the refusal to the
// client, even when the route failed over from the model the body suited.
// Each test failed then; the body is now fitted to the target's model
// (docs/doors.md, "Passthrough").

// p53aClaude answers like Anthropic's /v1/messages for several Claude
// models, with the refusals Anthropic makes per model family:
//   - adaptive thinking on a model before the 4.6 generation (Haiku 4.5,
//     Sonnet 4.5, Opus 4.5): 400 "adaptive thinking is not supported on this
//     model" (live probe matrix in askalf/dario#273, 2026-05-15; the same
//     400 in mnfst/llm-gateway#1908 from Claude Code routed to Haiku 4.5,
//     and diegosouzapw/OmniRoute#1563);
//   - thinking.type "enabled" (budget_tokens) on Opus 4.7: 400
//     "\"thinking.type.enabled\" is not supported for this model. Use
//     \"thinking.type.adaptive\" and \"output_config.effort\" to control
//     thinking behavior." (Sylinko/Everywhere#410, NousResearch/hermes-agent#11137);
//   - temperature on Opus 4.7: 400 "`temperature` is deprecated for this
//     model." (Anthropic's "Migrating to Claude Opus 4.7", as
//     internal/provider/anthropic/maxtokens.go quotes it);
//   - max_tokens above the model's output maximum: 400 "max_tokens: N >
//     64000, which is the maximum allowed number of output tokens for …"
//     (as internal/provider/anthropic/maxtokens.go quotes it).
//
// A model in overloaded answers 529 overloaded_error (Anthropic's errors
// page).
func p53aClaude(overloaded ...string) upstreamtest.Script {
	pre46 := regexp.MustCompile(`claude-(haiku|sonnet|opus)-4-5`)
	return func(_ int, r upstreamtest.Request) upstreamtest.Step {
		var req struct {
			Model       string   `json:"model"`
			MaxTokens   int      `json:"max_tokens"`
			Stream      bool     `json:"stream"`
			Temperature *float64 `json:"temperature"`
			Thinking    *struct {
				Type string `json:"type"`
			} `json:"thinking"`
		}
		if err := json.Unmarshal(r.Body, &req); err != nil {
			return p53aAnthropicErr(400, "invalid_request_error", "There was an issue with the format of your request")
		}
		for _, m := range overloaded {
			if req.Model == m {
				return p53aAnthropicErr(529, "overloaded_error", "Overloaded")
			}
		}
		think := ""
		if req.Thinking != nil {
			think = req.Thinking.Type
		}
		switch {
		case pre46.MatchString(req.Model) && think == "adaptive":
			return p53aAnthropicErr(400, "invalid_request_error", "adaptive thinking is not supported on this model")
		case strings.Contains(req.Model, "opus-4-7") && think == "enabled":
			return p53aAnthropicErr(400, "invalid_request_error", `"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.`)
		case strings.Contains(req.Model, "opus-4-7") && req.Temperature != nil:
			return p53aAnthropicErr(400, "invalid_request_error", "`temperature` is deprecated for this model.")
		case pre46.MatchString(req.Model) && req.MaxTokens > 64000:
			return p53aAnthropicErr(400, "invalid_request_error", fmt.Sprintf("max_tokens: %d > 64000, which is the maximum allowed number of output tokens for %s", req.MaxTokens, req.Model))
		}
		if req.Stream {
			return upstreamtest.Step{Events: anthropicEvents(req.Model, "answered by ", req.Model)}
		}
		return upstreamtest.Step{Body: anthropicMessage(req.Model, "answered by "+req.Model)}
	}
}

func p53aAnthropicErr(status int, typ, msg string) upstreamtest.Step {
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]string{"type": typ, "message": msg}})
	return upstreamtest.Step{Status: status, Body: string(b), Header: map[string]string{"request-id": "req_011CSHoEeqs5C35K2UUqR7Fy"}}
}

const p53aCfg = `
client_keys: [test]
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
targets:
  - {name: opus46, model: claude-opus-4-6, providers: [anthropic]}
  - {name: opus47, model: claude-opus-4-7, providers: [anthropic]}
  - {name: sonnet45, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: haiku45, model: claude-haiku-4-5, providers: [anthropic]}
routes:
  - {name: smart, targets: [opus46, haiku45]}
  - {name: best, targets: [sonnet45, opus47]}
  - {name: long, targets: [opus46, sonnet45]}
`

// Claude Code 2.1.332, given a route name as --model, sends every turn
// `thinking: {"type":"adaptive"}` and `output_config: {"effort":"high"}`
// (checked with the installed CLI; alone on a Haiku 4.5 route it gets the
// 400 below and sends the turn again with budget thinking). The same body
// from anthropic-sdk-go on a route that fails over from Opus 4.6 (which
// takes adaptive thinking) to Haiku 4.5: Opus is overloaded, and the client
// got Haiku's 400 for a member written for Opus, not an answer.
func TestC53aAdaptiveThinkingFailoverToHaiku(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": p53aClaude("claude-opus-4-6")})
	g := start(t, p53aCfg, fs)
	c := anthropic.NewClient(option.WithBaseURL(g.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	msg, err := c.Messages.New(context.Background(), anthropic.MessageNewParams{
		Model: "smart", MaxTokens: 16000,
		Thinking:     anthropic.ThinkingConfigParamUnion{OfAdaptive: &anthropic.ThinkingConfigAdaptiveParam{}},
		OutputConfig: anthropic.OutputConfigParam{Effort: anthropic.OutputConfigEffortHigh},
		Messages:     []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Plan a refactor."))},
	})
	if err != nil {
		t.Fatalf("route smart [opus-4-6 overloaded, haiku-4-5]: %v", err)
	}
	if got := claudeText(msg); !strings.Contains(got, "claude-haiku-4-5") {
		t.Errorf("answer %q", got)
	}
}

// An Anthropic SDK client with extended thinking by budget (what every
// model before Opus 4.7 takes, and Sonnet 4.5 and Haiku 4.5 require) on a
// route that fails over from Sonnet 4.5 to Opus 4.7: Opus 4.7 refuses
// budget thinking, and the client gets that 400.
func TestC53aBudgetThinkingFailoverToOpus47(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": p53aClaude("claude-sonnet-4-5")})
	g := start(t, p53aCfg, fs)
	c := anthropic.NewClient(option.WithBaseURL(g.URL), option.WithAPIKey("test"), option.WithMaxRetries(0))
	msg, err := c.Messages.New(context.Background(), anthropic.MessageNewParams{
		Model: "best", MaxTokens: 16000,
		Thinking: anthropic.ThinkingConfigParamOfEnabled(10000),
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Prove that sqrt(2) is irrational."))},
	})
	if err != nil {
		t.Fatalf("route best [sonnet-4-5 overloaded, opus-4-7]: %v", err)
	}
	if got := claudeText(msg); !strings.Contains(got, "claude-opus-4-7") {
		t.Errorf("answer %q", got)
	}
}

// A client's temperature (valid for Sonnet 4.5) on the same route: the
// chat door's translation leaves temperature out for Opus 4.7
// (fixedSampling), a Messages passthrough sends it and the client gets the
// 400.
func TestC53aTemperatureFailoverToOpus47(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": p53aClaude("claude-sonnet-4-5")})
	g := start(t, p53aCfg, fs)
	r := g.raw(t, http.MethodPost, "/v1/messages", `{"model":"best","max_tokens":1024,"temperature":0.2,"messages":[{"role":"user","content":"Name a colour."}]}`,
		"x-api-key", "test", "anthropic-version", "2023-06-01")
	if r.Status != 200 || !strings.Contains(string(r.Body), "claude-opus-4-7") {
		t.Fatalf("route best [sonnet-4-5 overloaded, opus-4-7] with temperature: %d %s (class %s)", r.Status, r.Body, r.Header.Get("X-Detour-Class"))
	}
}

// A client's max_tokens of 128000 (Opus 4.6's maximum) on a route that
// fails over to Sonnet 4.5 (64000): the chat and Responses doors cap it
// to the fallback's maximum since round 52 (capToModel); a Messages
// passthrough sends it and the client gets the 400.
func TestC53aMaxTokensFailoverToSonnet45(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": p53aClaude("claude-opus-4-6")})
	g := start(t, p53aCfg, fs)
	r := g.raw(t, http.MethodPost, "/v1/messages", `{"model":"long","max_tokens":128000,"messages":[{"role":"user","content":"Write the chapter."}]}`,
		"x-api-key", "test", "anthropic-version", "2023-06-01")
	if r.Status != 200 || !strings.Contains(string(r.Body), "claude-sonnet-4-5") {
		t.Fatalf("route long [opus-4-6 overloaded, sonnet-4-5] with max_tokens 128000: %d %s (class %s)", r.Status, r.Body, r.Header.Get("X-Detour-Class"))
	}
}

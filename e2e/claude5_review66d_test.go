package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 66d: a loopback Anthropic that refuses what Anthropic's model
// pages say each Claude 5-generation model refuses, and what Detour sent
// it before. Where a page publishes the error's words they are the
// fake's; where it publishes none, the fake refuses by the rule with an
// empty message, claiming no words.
//
// Sources: platform.claude.com/docs/en/models/sonnet-5/migration-guide
// (Sonnet 5: budget thinking and non-default sampling are 400s),
// .../sonnet-5-5/whats-new-sonnet-5-5 and .../sonnet-5-5/migration-guide
// (Sonnet 5.5: disabled thinking, forced tool use, sampling, budget
// thinking, prefill are 400s; between_tools is its own),
// .../opus-5-5/whats-new-opus-5-5 (Opus 5.5, and Fable 5.1: disabled and
// budget thinking, with the words below, and forced tool use),
// .../fable-5-1/migration-guide, and the models overview (128K output).
const claude5Cfg = `
client_keys: [client-key-1]
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
targets:
  - {name: sonnet5, model: claude-sonnet-5, providers: [anthropic]}
  - {name: sonnet55, model: claude-sonnet-5-5, providers: [anthropic]}
  - {name: opus55, model: claude-opus-5-5, providers: [anthropic]}
  - {name: fable51, model: claude-fable-5-1, providers: [anthropic]}
  - {name: sonnet45, model: claude-sonnet-4-5, providers: [anthropic]}
`

// claude5Refuses is the fake's verdict on a Messages body: refused, and
// the message it says (empty where Anthropic publishes none).
func claude5Refuses(body []byte) (string, bool) {
	var req struct {
		Model       string
		MaxTokens   int `json:"max_tokens"`
		Temperature *float64
		TopP        *float64 `json:"top_p"`
		TopK        *int     `json:"top_k"`
		Thinking    *struct{ Type string }
		ToolChoice  *struct{ Type string } `json:"tool_choice"`
	}
	if json.Unmarshal(body, &req) != nil {
		return "", true
	}
	m := req.Model
	gen5 := m != "claude-sonnet-4-5"
	after51 := m == "claude-sonnet-5-5" || m == "claude-opus-5-5" || m == "claude-fable-5-1"
	sampling := req.Temperature != nil && *req.Temperature != 1 || req.TopP != nil || req.TopK != nil
	thinking := ""
	if req.Thinking != nil {
		thinking = req.Thinking.Type
	}
	switch {
	case gen5 && sampling, gen5 && req.MaxTokens > 128_000:
		return "", true
	case (m == "claude-opus-5-5" || m == "claude-fable-5-1") && (thinking == "disabled" || thinking == "enabled"):
		return `"thinking.type.` + thinking + `" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.`, true
	case m == "claude-sonnet-5-5" && (thinking == "disabled" || thinking == "enabled"), m == "claude-sonnet-5" && thinking == "enabled":
		return "", true
	case thinking == "between_tools" && m != "claude-sonnet-5-5":
		return "", true
	case after51 && req.ToolChoice != nil && (req.ToolChoice.Type == "any" || req.ToolChoice.Type == "tool"):
		return "", true
	}
	return "", false
}

// claude5Anthropic answers what claude5Refuses lets through: a call of
// the structured-answer tool when it is offered, the JSON as text when
// JSON outputs (output_config.format) are asked (review 66f), else text.
func claude5Anthropic() upstreamtest.Script {
	return func(_ int, r upstreamtest.Request) upstreamtest.Step {
		if msg, refused := claude5Refuses(r.Body); refused {
			b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]string{"type": "invalid_request_error", "message": msg}})
			return upstreamtest.Step{Status: 400, Body: string(b)}
		}
		var req struct{ Model string }
		_ = json.Unmarshal(r.Body, &req)
		if strings.Contains(string(r.Body), `"name":"detour_json_answer"`) {
			b, _ := json.Marshal(map[string]any{"id": "msg_fake1", "type": "message", "role": "assistant", "model": req.Model,
				"content": []any{
					map[string]any{"type": "thinking", "thinking": "", "signature": "sig"},
					map[string]any{"type": "tool_use", "id": "toolu_1", "name": "detour_json_answer", "input": map[string]any{"a": "x"}},
				},
				"stop_reason": "tool_use", "stop_sequence": nil, "usage": map[string]any{"input_tokens": 11, "output_tokens": 3}})
			return upstreamtest.Step{Body: string(b)}
		}
		if strings.Contains(string(r.Body), `"output_config":{"format":{"type":"json_schema"`) {
			return upstreamtest.Step{Body: anthropicMessage(req.Model, `{"a":"x"}`)}
		}
		return upstreamtest.Step{Body: anthropicMessage(req.Model, "ok")}
	}
}

// What OpenAI clients send most — a temperature, a structured answer, a
// required or named tool call, a large max_tokens — is answered by every
// Claude 5-generation model through the chat door (before review 66d each
// was Anthropic's 400 at one of them).
func TestChatDoorAtClaude5Review66d(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": claude5Anthropic()})
	g := start(t, claude5Cfg, fs)
	auth := []string{"Authorization", "Bearer client-key-1"}
	tools := `,"tools":[{"type":"function","function":{"name":"get","parameters":{"type":"object"}}}]`
	schema := `,"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":{"type":"object","properties":{"a":{"type":"string"}}}}}`
	for _, target := range []string{"sonnet5", "sonnet55", "opus55", "fable51"} {
		for name, extra := range map[string]string{
			"temperature":     `,"temperature":0.2,"top_p":0.9`,
			"structured":      `,"temperature":0.7` + schema,
			"required":        tools + `,"tool_choice":"required"`,
			"named":           tools + `,"tool_choice":{"type":"function","function":{"name":"get"}}`,
			"max_tokens 200k": `,"max_completion_tokens":200000`,
		} {
			r := g.post(t, target, extra, auth...)
			if r.Status != http.StatusOK {
				t.Errorf("%s %s: %d %s (sent %s)", target, name, r.Status, r.Body, lastRaw(t, fs["anthropic"]))
				continue
			}
			if name == "structured" {
				var c struct {
					Choices []struct{ Message struct{ Content string } }
				}
				if json.Unmarshal(r.Body, &c) != nil || len(c.Choices) != 1 || c.Choices[0].Message.Content != `{"a":"x"}` {
					t.Errorf("%s structured: %s", target, r.Body)
				}
			}
		}
	}
}

// A Messages body written for one Claude model reaches another through
// the passthrough fitted to what that one takes: Opus 5's disabled
// thinking at Opus 5.5, Fable 5.1 and Sonnet 5.5 (there between_tools),
// Sonnet 5.5's between_tools at Sonnet 4.5 and Opus 5.5, a forced tool at
// the models that refuse forcing, sampling and budget thinking at Sonnet 5.
func TestMessagesPassthroughAcrossClaude5Review66d(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": claude5Anthropic()})
	g := start(t, claude5Cfg, fs)
	head := []string{"x-api-key", "client-key-1", "anthropic-version", "2023-06-01"}
	msgs := `"messages":[{"role":"user","content":"hi"}]`
	tools := `"tools":[{"name":"get","input_schema":{"type":"object"}}]`
	for _, c := range []struct{ target, body, want string }{
		{"opus55", `"thinking":{"type":"disabled"}`, ``},
		{"fable51", `"thinking":{"type":"disabled"},"temperature":0.3`, ``},
		{"sonnet55", `"thinking":{"type":"disabled"}`, `"thinking":{"type":"between_tools"}`},
		{"sonnet45", `"thinking":{"type":"between_tools"}`, `"thinking":{"type":"disabled"}`},
		{"opus55", `"thinking":{"type":"between_tools"}`, ``},
		{"sonnet55", tools + `,"tool_choice":{"type":"any"}`, `"tool_choice":{"type":"auto"}`},
		{"fable51", tools + `,"tool_choice":{"type":"tool","name":"get"}`, `"tool_choice":{"type":"auto"}`},
		{"sonnet5", `"temperature":0.5,"thinking":{"type":"enabled","budget_tokens":2048}`, `"thinking":{"type":"adaptive"}`},
		{"sonnet55", `"max_tokens":200000,"thinking":{"type":"adaptive"}`, `"max_tokens":128000`},
	} {
		body := `{"model":"` + c.target + `",` + c.body + `,` + msgs
		if !strings.Contains(c.body, "max_tokens") {
			body += `,"max_tokens":4096`
		}
		body += `}`
		r := g.raw(t, http.MethodPost, "/v1/messages", body, head...)
		sent := string(lastRaw(t, fs["anthropic"]))
		if r.Status != http.StatusOK {
			t.Errorf("%s %s: %d %s (sent %s)", c.target, c.body, r.Status, r.Body, sent)
			continue
		}
		if !strings.Contains(sent, c.want) {
			t.Errorf("%s %s: sent %s, want %s in it", c.target, c.body, sent, c.want)
		}
	}
}

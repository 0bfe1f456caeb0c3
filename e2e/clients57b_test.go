package e2e

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Probe 57b: Python agent frameworks (LiteLLM as a client, DSPy and CrewAI
// through it, smolagents, Agno) through Detour onto Anthropic, Gemini and
// DeepSeek-style targets.

const p57bCfg = `
providers:
  - {name: anthropic-block, dialect: anthropic, base_url: "{claude}", api_key: ` + secret + `}
  - {name: anthropic-down, dialect: anthropic, base_url: "{claude2}", api_key: ` + secret + `}
  - {name: gemini-block, dialect: gemini, base_url: "{gem}", api_key: ` + secret + `}
  - {name: deepseek-block, dialect: openai, base_url: "{ds}/v1", api_key: ` + secret + `}
targets:
  - {name: sonnet, model: claude-sonnet-4-5, providers: [anthropic-block]}
  - {name: sonnet-down, model: claude-sonnet-4-5, providers: [anthropic-down]}
  - {name: g3, model: gemini-3-pro-preview, providers: [gemini-block]}
  - {name: dsr, model: deepseek-chat, providers: [deepseek-block]}
routes:
  - {name: claude, targets: [sonnet]}
  - {name: gem3, targets: [g3]}
  - {name: ds, targets: [dsr]}
  - {name: claude-then-gem, targets: [sonnet-down, g3]}
`

func p57bScripts(t *testing.T) map[string]upstreamtest.Script {
	return map[string]upstreamtest.Script{
		"claude":  upstreamtest.Steps(corpus(t, "anthropic-output-blocked-content-filtering-policy-details-null-400")),
		"claude2": upstreamtest.Steps(upstreamtest.Step{Status: 529, Body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}),
		"gem":     upstreamtest.Steps(corpus(t, "gemini-prompt-blocked-safety-200")),
		"ds":      upstreamtest.Steps(corpus(t, "deepseek-content-exists-risk-400")),
	}
}

// TestClients57bRefusalIsLiteLLMContentPolicy: a refusal (Claude's "Output
// blocked by content filtering policy" 400, Gemini's promptFeedback
// blockReason SAFETY, DeepSeek's "Content Exists Risk" 400; all from the
// corpus) reached a LiteLLM client as a plain BadRequestError before round
// 57, not its ContentPolicyViolationError, so LiteLLM Router's
// content_policy_fallbacks never ran. LiteLLM (BerriAI/litellm
// litellm/litellm_core_utils/exception_mapping_utils.py) reads the error
// text, not the status or code:
//   - openai/ models, _map_openai_exception: ContentPolicyViolationError only
//     when the text holds both "invalid_request_error" and
//     "content_policy_violation" (OpenAI's own envelope: type
//     invalid_request_error, code content_policy_violation; corpus
//     openai-content-policy-violation-image), or OpenAI's safety-system
//     words; else status 400 -> BadRequestError. Detour sent type
//     content_policy_violation, code content_filter: one of the two.
//   - anthropic/ models, _map_anthropic_exception: only when the text holds
//     "content filtering policy" (Anthropic's own words); else 400 ->
//     BadRequestError. Detour relayed the upstream's words, so only a Claude
//     target's refusal was recognised; on a failover route the exception's
//     type depended on which target answered.
func TestClients57bRefusalIsLiteLLMContentPolicy(t *testing.T) {
	g := start(t, p57bCfg, fakes(t, p57bScripts(t)))
	for _, route := range []string{"claude", "gem3", "ds", "claude-then-gem"} {
		r := g.post(t, route, "")
		if s := string(r.Body); r.Status != 400 || !strings.Contains(s, "invalid_request_error") || !strings.Contains(s, "content_policy_violation") {
			t.Errorf("chat door, route %s: LiteLLM openai/ raises BadRequestError, not ContentPolicyViolationError: %d %s", route, r.Status, s)
		}
		if r := g.raw(t, "POST", "/v1/responses", `{"model":"`+route+`","input":"hi"}`); r.Status != 400 || !strings.Contains(string(r.Body), "invalid_request_error") || !strings.Contains(string(r.Body), "content_policy_violation") {
			t.Errorf("responses door, route %s: LiteLLM openai/ raises BadRequestError, not ContentPolicyViolationError: %d %s", route, r.Status, r.Body)
		}
		m := g.raw(t, "POST", "/v1/messages", `{"model":"`+route+`","max_tokens":100,"messages":[{"role":"user","content":"hi"}]}`, "anthropic-version", "2023-06-01")
		if s := string(m.Body); m.Status != 400 || !strings.Contains(s, "content filtering policy") {
			t.Errorf("messages door, route %s: LiteLLM anthropic/ raises BadRequestError, not ContentPolicyViolationError: %d %s", route, m.Status, s)
		}
	}
}

// p57bLiteLLMContextWindow is LiteLLM's ExceptionCheckers.
// is_error_str_context_window_exceeded (BerriAI/litellm
// litellm/litellm_core_utils/exception_mapping_utils.py): the test
// _map_openai_exception runs on "Error code: 400 - {body}" before it
// raises ContextWindowExceededError; without it a 400 is BadRequestError.
func p57bLiteLLMContextWindow(s string) bool {
	s = strings.ToLower(s)
	if strings.Contains(s, "string_above_max_length") {
		return false
	}
	for _, sub := range []string{"exceed context limit", "this model's maximum context length is",
		"string too long. expected a string with maximum length", "model's maximum context limit",
		"is longer than the model's context length", "input tokens exceed the configured limit",
		"`inputs` tokens + `max_new_tokens` must be", "exceeds the available context size",
		"exceeds the maximum number of tokens allowed"} {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return strings.Contains(s, "current length is") && strings.Contains(s, "while limit is") ||
		strings.Contains(s, "maximum input length is") && strings.Contains(s, "tokens")
}

// TestClients57bContextLengthIsLiteLLMContextWindow: a prompt over the
// window, at the Chat Completions door, from Claude (413 "Request size
// exceeds model context window", corpus
// anthropic-request-size-exceeds-context-window-413) or Gemini/Vertex
// ("Unable to submit request because the input token count is N but model
// only supports up to M", corpus
// gemini-code-assist-input-token-count-model-only-supports-up-to-400).
// Before round 57 Detour worded a context_length failure whose counts it could not read "The
// maximum context length was exceeded. (<vendor>)"
// (internal/server/envelope.go openaiMessage), which LiteLLM's matcher does
// not know, so litellm.completion("openai/<route>") raises BadRequestError,
// not ContextWindowExceededError: DSPy's ReAct truncates its trajectory
// only on ContextWindowExceededError (stanfordnlp/dspy
// dspy/predict/react.py, _call_with_potential_trajectory_truncation) and
// LiteLLM's context_window_fallbacks run only on it. The counted wording
// ("This model's maximum context length is M tokens. However, ...") is
// recognised; Vertex's message has both counts.
func TestClients57bContextLengthIsLiteLLMContextWindow(t *testing.T) {
	cfg := `
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{claude}", api_key: ` + secret + `}
  - {name: gemini, dialect: gemini, base_url: "{gem}", api_key: ` + secret + `}
  - {name: anthropic-down, dialect: anthropic, base_url: "{claude2}", api_key: ` + secret + `}
targets:
  - {name: sonnet, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: g25, model: gemini-2.5-pro, providers: [gemini]}
  - {name: sonnet-down, model: claude-sonnet-4-5, providers: [anthropic-down]}
routes:
  - {name: claude, targets: [sonnet]}
  - {name: gem, targets: [g25]}
  - {name: claude-then-gem, targets: [sonnet-down, g25]}
`
	g := start(t, cfg, fakes(t, map[string]upstreamtest.Script{
		"claude":  upstreamtest.Steps(corpus(t, "anthropic-request-size-exceeds-context-window-413")),
		"gem":     upstreamtest.Steps(corpus(t, "gemini-code-assist-input-token-count-model-only-supports-up-to-400")),
		"claude2": upstreamtest.Steps(upstreamtest.Step{Status: 529, Body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}),
	}))
	for _, route := range []string{"claude", "gem", "claude-then-gem"} {
		r := g.post(t, route, "")
		if r.Header.Get("X-Detour-Class") != "context_length" {
			t.Fatalf("route %s: class %q: %d %s", route, r.Header.Get("X-Detour-Class"), r.Status, r.Body)
		}
		if !p57bLiteLLMContextWindow(string(r.Body)) {
			t.Errorf("route %s: LiteLLM openai/ raises BadRequestError, not ContextWindowExceededError: %d %s", route, r.Status, r.Body)
		}
	}
}

package openai

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/rawjson"
)

// sent is the body the adapter sends model for a door's translation body.
func sent(t *testing.T, base, model, body string, translated bool) string {
	t.Helper()
	hr, err := Adapter{}.NewRequest(context.Background(), provider.Endpoint{BaseURL: base, Model: model},
		&provider.Request{Body: []byte(body), Translated: translated})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(hr.Body)
	return string(b)
}

// effortOf is the reasoning_effort a body sends, "" for none.
func effortOf(body string) string {
	s, _ := rawjson.String(rawjson.Member([]byte(body), "reasoning_effort"))
	return s
}

// Review 66e. OpenAI's API reference for reasoning_effort: "gpt-5.1
// defaults to none … The supported reasoning values for gpt-5.1 are none,
// low, medium, and high", "All models before gpt-5.1 default to medium
// reasoning effort, and do not support none", "The gpt-5-pro model
// defaults to (and only supports) high reasoning effort", "xhigh is
// supported for all models after gpt-5.1-codex-max"
// (https://platform.openai.com/docs/api-reference/chat/create#chat-create-reasoning_effort);
// gpt-5.1 refuses minimal ("Unsupported value: 'minimal' is not supported
// with the 'gpt-5.1' model", openai/openai-agents-python#2089). A Responses
// client (Codex, the Agents SDK) writes its effort for the model it thinks
// it talks to; the route's model refused the translation with a
// bad_request that ended the walk. The effort is fitted to the nearest one
// the model's generation takes, read from the name's version numbers.
func TestReasoningEffortFittedToTheGenerationReview66e(t *testing.T) {
	for _, c := range []struct{ model, effort, want string }{
		{"o3", "xhigh", "high"},
		{"o4-mini", "minimal", "low"},
		{"o3", "none", "low"},
		{"gpt-5", "none", "minimal"},
		{"gpt-5-mini-2025-08-07", "xhigh", "high"},
		{"gpt-5", "minimal", "minimal"},
		{"gpt-5-pro", "low", "high"},
		{"gpt-5-codex", "minimal", "low"},
		{"gpt-5.1", "minimal", "low"},
		{"gpt-5.1", "xhigh", "high"},
		{"gpt-5.1", "none", "none"},
		{"gpt-5.1-codex", "none", "low"},
		{"gpt-5.1-codex-max", "xhigh", "xhigh"},
		{"gpt-5.2", "xhigh", "xhigh"},
		{"openai/gpt-5.6-terra", "minimal", "low"},
		{"gpt-5.4-mini", "medium", "medium"},
		{"gpt-6.1", "minimal", "low"},
		{"gpt-6.1", "xhigh", "xhigh"},
		{"gpt-4.1", "xhigh", "xhigh"},               // not a reasoning model: as sent (its own 400)
		{"gpt-5-chat-latest", "minimal", "minimal"}, // a chat variant: as sent
		{"deepseek-v4-flash", "xhigh", "xhigh"},
	} {
		body := `{"model":"r","messages":[{"role":"user","content":"hi"}],"reasoning_effort":"` + c.effort + `"}`
		if got := effortOf(sent(t, "https://api.openai.com/v1", c.model, body, true)); got != c.want {
			t.Errorf("%s, effort %s: sent %q, want %q", c.model, c.effort, got, c.want)
		}
	}
	// A Chat Completions client's own body is its own.
	body := `{"model":"r","messages":[{"role":"user","content":"hi"}],"reasoning_effort":"xhigh"}`
	if got := effortOf(sent(t, "https://api.openai.com/v1", "o3", body, false)); got != "xhigh" {
		t.Errorf("a client's own body: effort %q", got)
	}
}

// Review 66e. "Requests to GPT-5.2 or GPT-5.1 with any other reasoning
// effort setting [than none], or to older GPT-5 models (e.g., gpt-5,
// gpt-5-mini, gpt-5-nano) that include these fields will raise an error"
// (temperature, top_p, logprobs; OpenAI's latest-model guide,
// https://developers.openai.com/api/docs/guides/latest-model#gpt-54-parameter-compatibility).
// A door's translation carried a Messages client's temperature to them,
// and each request cost a refused call before it was sent again without
// it (dispatch's refused-member resend). Where the generation and the
// effort sent say the model refuses them, they are not sent.
func TestSamplingLeftOutWhereTheGenerationRefusesItReview66e(t *testing.T) {
	const tail = `"temperature":0.2,"top_p":0.9,"logprobs":true,"top_logprobs":2,"stop":["END"]}`
	for _, c := range []struct {
		model, effort string
		drop          bool
	}{
		{"gpt-5", "", true},
		{"gpt-5-nano", "minimal", true},
		{"o3", "", true},
		{"o4-mini-2025-04-16", "high", true},
		{"gpt-5.1-codex", "", true},
		{"gpt-5-pro", "", true},
		{"gpt-5.1", "low", true},
		{"gpt-5.2", "high", true},
		{"gpt-5.1", "none", false},
		{"gpt-5.2", "", false}, // defaults to none: the resend covers a model that does not
		{"gpt-4.1", "high", false},
		{"gpt-5-chat-latest", "", false},
	} {
		effort := ""
		if c.effort != "" {
			effort = `"reasoning_effort":"` + c.effort + `",`
		}
		body := `{"model":"r","messages":[{"role":"user","content":"hi"}],` + effort + tail
		got := sent(t, "https://api.openai.com/v1", c.model, body, true)
		for _, m := range []string{"temperature", "top_p", "logprobs", "top_logprobs"} {
			if has := rawjson.Member([]byte(got), m) != nil; has == c.drop {
				t.Errorf("%s effort %q: %s sent %v, want %v: %s", c.model, c.effort, m, has, !c.drop, got)
			}
		}
		if !strings.Contains(got, `"stop":["END"]`) {
			t.Errorf("%s: stop is the refused-member resend's: %s", c.model, got)
		}
		// The client's own body is its own.
		if own := sent(t, "https://api.openai.com/v1", c.model, body, false); !strings.Contains(own, `"temperature":0.2`) {
			t.Errorf("%s: a client's own body lost its temperature: %s", c.model, own)
		}
	}
}

// Review 66e. From GPT-5.4 on, Chat Completions refuses function tools
// beside a reasoning effort other than none (param reasoning_effort; the
// 5.6 models at their default effort too), where /v1/responses serves
// them (https://developers.openai.com/api/docs/guides/reasoning: "Reasoning
// models work better with the Responses API"; the refusal is
// openai/openai-openapi#541). A Messages client's tool loop (Claude Code:
// every request has tools) reached a gpt-5.6 chat target as a 400 on every
// request; a Codex request translated by the Responses door, with its
// reasoning.effort, to any 5.4 or later. A translation with function tools
// to such a model says none, the value the model takes with tools.
func TestToolsWithReasoningSayNoneFromGPT54Review66e(t *testing.T) {
	const tools = `"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{}}}}]`
	for _, c := range []struct{ model, effort, want string }{
		{"gpt-5.6-luna", "", "none"},
		{"gpt-5.6-sol", "high", "none"},
		{"gpt-5.4", "medium", "none"},
		{"gpt-5.4-mini", "xhigh", "none"},
		{"openai/gpt-5.5", "", "none"},
		{"gpt-6", "low", "none"},
		{"gpt-5.2", "high", "high"},     // tools with reasoning are served before 5.4
		{"gpt-5.1-codex-max", "", ""},   // a codex model: Responses only, as sent
		{"gpt-5.4-pro", "high", "high"}, // likewise a pro model
		{"o3", "high", "high"},
	} {
		effort := ""
		if c.effort != "" {
			effort = `"reasoning_effort":"` + c.effort + `",`
		}
		body := `{"model":"r","messages":[{"role":"user","content":"hi"}],` + effort + tools + `,"temperature":0.2}`
		got := sent(t, "https://api.openai.com/v1", c.model, body, true)
		if e := effortOf(got); e != c.want {
			t.Errorf("%s effort %q with tools: sent %q, want %q: %s", c.model, c.effort, e, c.want, got)
		}
		if c.want == "none" && !strings.Contains(got, `"temperature":0.2`) {
			t.Errorf("%s: at none the model takes the client's temperature: %s", c.model, got)
		}
		// Without tools the effort is the client's.
		plain := `{"model":"r","messages":[{"role":"user","content":"hi"}],` + effort + `"tools":[]}`
		if e := effortOf(sent(t, "https://api.openai.com/v1", c.model, plain, true)); c.effort != "" && e != c.effort {
			t.Errorf("%s without tools: effort %q, want %q", c.model, e, c.effort)
		}
	}
	// The client's own body is its own.
	body := `{"model":"gpt-5.6","messages":[{"role":"user","content":"hi"}],` + tools + `}`
	if e := effortOf(sent(t, "https://api.openai.com/v1", "gpt-5.6", body, false)); e != "" {
		t.Errorf("a client's own body got effort %q", e)
	}
}

// Review 66e. Gemini's OpenAI-compatible endpoint takes reasoning_effort
// low, medium, high and none ("Invalid reasoning_effort: minimal. Valid
// values are: high, low, medium, none", a 400 INVALID_ARGUMENT on Gemini
// 3 Flash, discuss.ai.google.dev/t/117875; its documentation maps minimal
// to Gemini 3 Pro's low, https://ai.google.dev/gemini-api/docs/openai). A
// Responses client's minimal or xhigh is sent as the nearest it takes.
func TestGeminiCompatEffortFittedReview66e(t *testing.T) {
	for _, c := range []struct{ effort, want string }{
		{"minimal", "low"}, {"xhigh", "high"}, {"low", "low"}, {"none", "none"}, {"high", "high"},
	} {
		body := `{"model":"r","messages":[{"role":"user","content":"hi"}],"reasoning_effort":"` + c.effort + `"}`
		if got := effortOf(sent(t, "https://generativelanguage.googleapis.com/v1beta/openai", "gemini-3.8-flash", body, true)); got != c.want {
			t.Errorf("%s: sent %q, want %q", c.effort, got, c.want)
		}
	}
}

// Review 66e: the output limit's name holds for the generations after
// GPT-5 too (a proxy in front of OpenAI serving gpt-6.1 got max_tokens,
// which OpenAI's reasoning models refuse).
func TestOutputLimitNameForLaterGenerationsReview66e(t *testing.T) {
	body := `{"model":"r","messages":[{"role":"user","content":"hi"}],"max_completion_tokens":5}`
	for _, m := range []string{"gpt-6.1", "openai/gpt-5.6-sol", "gpt-7-mini"} {
		if got := sent(t, "https://llm-proxy.example.com/v1", m, body, true); !strings.HasSuffix(got, `"max_completion_tokens":5}`) {
			t.Errorf("%s: %s", m, got)
		}
	}
	for _, m := range []string{"gpt-4.1", "gpt-4o", "gpt-oss-120b", "gpt-3.5-turbo"} {
		if got := sent(t, "https://llm-proxy.example.com/v1", m, body, true); !strings.HasSuffix(got, `"max_tokens":5}`) {
			t.Errorf("%s: %s", m, got)
		}
	}
}

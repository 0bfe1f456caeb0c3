package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/clienttest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Round 53: Codex (the real CLI, over /v1/responses) on a DeepSeek route in
// thinking mode. DeepSeek streams reasoning_content before its tool call
// and refuses the next step of the loop unless that reasoning comes back on
// the assistant turn ("The reasoning_content in the thinking mode must be
// passed back to the API", a 400:
// https://api-docs.deepseek.com/guides/thinking_mode#tool-calls). Codex
// keeps every output item it is streamed and sends its reasoning items
// back; LiteLLM's Responses bridge lost them and every Codex turn after the
// first failed (BerriAI/litellm#26395). Before round 53 Detour did too.

const c53DeepSeekCfg = `
providers:
  - {name: deepseek, dialect: openai, base_url: "{deepseek}", api_key: ` + secret + `}
targets:
  - {name: ds, model: deepseek-v4-flash, providers: [deepseek]}
routes:
  - {name: dsr, targets: [ds]}
`

// c53DeepSeekToolStream is DeepSeek's thinking-mode stream calling the
// flattened namespace tool Codex offers (multi_agent_v1__wait_agent, as
// toolCallStream): reasoning_content deltas, then the call.
func c53DeepSeekToolStream() []string {
	const head = `{"id":"ds1","object":"chat.completion.chunk","created":1777000000,"model":"deepseek-v4-flash","choices":[{"index":0,"delta":`
	return []string{
		head + `{"role":"assistant","content":null,"reasoning_content":"The user asks me to wait "},"logprobs":null,"finish_reason":null}]}`,
		head + `{"content":null,"reasoning_content":"for the agents; I call wait_agent."},"logprobs":null,"finish_reason":null}]}`,
		head + `{"tool_calls":[{"index":0,"id":"call_00_ds4wait0000001","type":"function","function":{"name":"multi_agent_v1__wait_agent","arguments":"{\"timeout_ms\":10}"}}]},"logprobs":null,"finish_reason":null}]}`,
		head + `{},"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":900,"completion_tokens":30,"total_tokens":930,"completion_tokens_details":{"reasoning_tokens":18}}}`,
		`[DONE]`,
	}
}

func TestC53CodexToolLoopOnDeepSeekThinking(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"deepseek": func(n int, r upstreamtest.Request) upstreamtest.Step {
		if n == 1 {
			return upstreamtest.Step{Events: c53DeepSeekToolStream()}
		}
		var req struct {
			Messages []map[string]any `json:"messages"`
		}
		_ = json.Unmarshal(r.Body, &req)
		for _, m := range req.Messages {
			if m["role"] == "assistant" && m["tool_calls"] != nil && m["reasoning_content"] == nil {
				return upstreamtest.Step{Status: 400, Body: `{"error":{"message":"The reasoning_content in the thinking mode must be passed back to the API.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`}
			}
		}
		return okStream("deepseek-v4-flash", "agents ", "finished")
	}})
	g := start(t, c53DeepSeekCfg, fs)
	res := clienttest.RunCodex(t, g.URL, "wait for the agents", clienttest.Options{Args: []string{"-m", "dsr"}})
	t.Logf("stdout: %s\nstderr: %s", res.Stdout, res.Stderr)
	if res.Err != nil {
		t.Fatalf("codex: %v", res.Err)
	}
	if !strings.Contains(res.Stdout, "agents finished") {
		t.Errorf("codex printed %q, want the answer after the tool loop", res.Stdout)
	}
	reqs := fs["deepseek"].Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d DeepSeek calls, want the tool call and the answer to its result", len(reqs))
	}
	if !strings.Contains(string(reqs[1].Body), `"reasoning_content":"The user asks me to wait for the agents; I call wait_agent."`) {
		t.Errorf("second request without the first step's reasoning: %.2000s", reqs[1].Body)
	}
	// The record keeps the reasoning tokens the client was shown (operator
	// review 53b: it said nothing of them).
	if d := g.recs.wait(t, 1); d.Usage == nil || d.Usage.ReasoningTokens != 18 {
		t.Errorf("the first step's record: usage %+v, want reasoning_tokens 18", d.Usage)
	}
}

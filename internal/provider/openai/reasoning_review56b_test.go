package openai

import (
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// The exclusion of 1a46c23 (no placeholder beside OpenRouter's reasoning /
// reasoning_details) holds at every host that wants reasoning_content, not
// only at OpenRouter. DeepSeek's own API reads reasoning_content alone
// (https://api-docs.deepseek.com/guides/thinking_mode, "Tool Calls": the
// reasoning_content of a tool-call turn must be passed back, else 400): a
// client that hands back a turn an OpenRouter model wrote (Kilo Code, the
// OpenRouter AI SDK provider: reasoning + reasoning_details), failing over
// on a route [openrouter deepseek, api.deepseek.com], now sends DeepSeek a
// tool-call turn with no reasoning_content: the 400 probe 56a fixed.
func TestOpenRouterReasoningAtDeepSeekItselfStillNeedsReasoningContent_review56b(t *testing.T) {
	const calls = `"tool_calls":[{"id":"c","type":"function","function":{"name":"glob","arguments":"{}"}}]`
	for _, turn := range []string{
		`{"role":"assistant","content":null,"reasoning":"as OpenRouter names it",` + calls + `}`,
		`{"role":"assistant","content":null,"reasoning_details":[{"type":"reasoning.text","text":"t","format":"unknown","index":0}],` + calls + `}`,
	} {
		body := `{"model":"m","messages":[{"role":"user","content":"hi"},` + turn +
			`,{"role":"tool","tool_call_id":"c","content":"a.txt"}]}`
		for _, host := range []string{"https://api.deepseek.com", "https://api.moonshot.ai/v1"} {
			hr, err := Adapter{}.NewRequest(context.Background(), provider.Endpoint{BaseURL: host, Model: "deepseek-v4-flash"},
				&provider.Request{Body: []byte(body)})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(hr.Body)
			var got struct {
				Messages []map[string]any `json:"messages"`
			}
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatal(err)
			}
			if rc, ok := got.Messages[1]["reasoning_content"].(string); !ok || rc == "" {
				t.Errorf("%s: the tool-call turn goes with no reasoning_content (DeepSeek/Kimi answer 400):\n%s", host, b)
			}
		}
	}
}

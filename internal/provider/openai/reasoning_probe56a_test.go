package openai

import (
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// Probe 56a: a tool loop that fails over into DeepSeek's thinking mode
// hands it a tool-call turn another model wrote, with no reasoning_content,
// which DeepSeek refuses ("The reasoning_content in the thinking mode must
// be passed back to the API"): such a turn gets a one-space placeholder at
// a server that reads the member back, a client's own body as much as a
// translation; a turn with its reasoning keeps it, and a server that
// refuses the member gets none.
func TestToolCallTurnWithoutReasoningGetsThePlaceholder(t *testing.T) {
	const calls = `"tool_calls":[{"id":"c","type":"function","function":{"name":"glob","arguments":"{}"}}]`
	body := `{"model":"m","messages":[{"role":"user","content":"hi"},` +
		`{"role":"assistant","content":null,` + calls + `},` +
		`{"role":"tool","tool_call_id":"c","content":"a.txt"},` +
		`{"role":"assistant","content":null,"reasoning_content":null,` + calls + `},` +
		`{"role":"tool","tool_call_id":"c","content":"b.txt"},` +
		`{"role":"assistant","content":null,"reasoning_content":"mine",` + calls + `},` +
		`{"role":"tool","tool_call_id":"c","content":"c.txt"},` +
		`{"role":"assistant","content":null,"reasoning":"as OpenRouter names it",` + calls + `},` +
		`{"role":"tool","tool_call_id":"c","content":"d.txt"},` +
		`{"role":"assistant","content":null,"reasoning_details":[{"type":"reasoning.text","text":"t","format":"unknown","index":0}],` + calls + `},` +
		`{"role":"tool","tool_call_id":"c","content":"e.txt"},` +
		`{"role":"assistant","content":"done"}]}`
	for _, c := range []struct {
		name, url, model string
		translated       bool
		want             []any // each assistant turn's reasoning_content (nil: absent)
	}{
		// OpenRouter's names are read at OpenRouter alone; DeepSeek's and
		// Kimi's own APIs read reasoning_content only (review 56b).
		{"DeepSeek, the client's own body", "https://api.deepseek.com", "deepseek-v4-flash", false, []any{" ", " ", "mine", "as OpenRouter names it", " ", nil}},
		{"DeepSeek, a translation", "https://api.deepseek.com", "deepseek-v4-flash", true, []any{" ", " ", "mine", "as OpenRouter names it", " ", nil}},
		{"Kimi's own API", "https://api.moonshot.ai/v1", "kimi-k2-thinking", false, []any{" ", " ", "mine", "as OpenRouter names it", " ", nil}},
		{"a DeepSeek model elsewhere", "http://vllm.internal:8000/v1", "deepseek-ai/DeepSeek-V3.2", false, []any{" ", " ", "mine", "as OpenRouter names it", " ", nil}},
		{"OpenRouter reads its own names", "https://openrouter.ai/api/v1", "deepseek/deepseek-v4-flash", false, []any{" ", " ", "mine", nil, nil, nil}},
		{"Mistral refuses the member", "https://api.mistral.ai/v1", "mistral-large-latest", true, []any{nil, nil, nil, nil, nil, nil}},
		{"OpenAI, the client's own body, as it came", "https://api.openai.com/v1", "gpt-4o", false, []any{nil, nil, "mine", nil, nil, nil}},
	} {
		t.Run(c.name, func(t *testing.T) {
			hr, err := Adapter{}.NewRequest(context.Background(), provider.Endpoint{BaseURL: c.url, Model: c.model},
				&provider.Request{Body: []byte(body), Translated: c.translated})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(hr.Body)
			var got struct {
				Messages []map[string]any `json:"messages"`
			}
			if err := json.Unmarshal(b, &got); err != nil {
				t.Fatalf("%v: %s", err, b)
			}
			var rc []any
			for _, m := range got.Messages {
				if m["role"] == "assistant" {
					rc = append(rc, m["reasoning_content"])
				}
			}
			if len(rc) != len(c.want) {
				t.Fatalf("%d assistant turns: %s", len(rc), b)
			}
			for i := range rc {
				if rc[i] != c.want[i] {
					t.Errorf("assistant turn %d: reasoning_content %#v, want %#v\n%s", i, rc[i], c.want[i], b)
				}
			}
		})
	}
}

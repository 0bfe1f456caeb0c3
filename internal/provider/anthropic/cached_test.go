package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// Cache reads are reported as OpenAI's prompt_tokens_details.cached_tokens,
// so cached input can be priced apart.
func TestCachedTokens(t *testing.T) {
	body := `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"hi"}],` +
		`"stop_reason":"end_turn","usage":{"input_tokens":10,"cache_creation_input_tokens":20,"cache_read_input_tokens":300,"output_tokens":5}}`
	out, err := Adapter{}.Response([]byte(body), provider.Endpoint{Model: "claude-sonnet-4-5"})
	if err != nil {
		t.Fatal(err)
	}
	var c struct{ Usage provider.Usage }
	if err := json.Unmarshal(out, &c); err != nil {
		t.Fatal(err)
	}
	if c.Usage.PromptTokens != 330 || c.Usage.Cached() != 300 || c.Usage.CompletionTokens != 5 {
		t.Errorf("usage %+v (details %+v)", c.Usage, c.Usage.PromptTokensDetails)
	}
}

// Input counts an upstream reports past reason neither wrap the prompt's
// sum to a negative count nor take from it.
func TestPromptTokensSaturate(t *testing.T) {
	for _, u := range []string{
		`{"input_tokens":9000000000000000000,"cache_creation_input_tokens":9000000000000000000,"output_tokens":1}`,
		`{"input_tokens":-100000000,"cache_read_input_tokens":5,"output_tokens":1}`,
	} {
		body := `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":` + u + `}`
		out, err := Adapter{}.Response([]byte(body), provider.Endpoint{Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		var c struct{ Usage provider.Usage }
		if err := json.Unmarshal(out, &c); err != nil {
			t.Fatal(err)
		}
		if c.Usage.PromptTokens < 0 || c.Usage.TotalTokens < 0 {
			t.Errorf("%s: usage %+v", u, c.Usage)
		}
	}
}

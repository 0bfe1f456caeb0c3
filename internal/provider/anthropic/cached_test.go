package anthropic

import (
	"encoding/json"
	"strings"
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

// Cache writes, which Anthropic bills above plain input, are counted apart
// in every usage the adapter reads: a whole answer, translated or native,
// and a stream's message_start, translated or native. The counts are the
// first call of Anthropic's prompt caching example
// (https://platform.claude.com/docs/en/build-with-claude/prompt-caching).
func TestCacheWriteTokens(t *testing.T) {
	const u = `{"cache_creation_input_tokens":188086,"cache_read_input_tokens":0,"input_tokens":21,"output_tokens":393}`
	body := `{"id":"msg_1","type":"message","role":"assistant","model":"claude-opus-4-5","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":` + u + `}`
	check := func(how string, got *provider.Usage) {
		t.Helper()
		if got == nil || got.PromptTokens != 188107 || got.CacheWrite() != 188086 || got.Cached() != 0 {
			t.Errorf("%s: usage %+v (details %+v)", how, got, got.PromptTokensDetails)
		}
	}
	out, err := Adapter{}.Response([]byte(body), provider.Endpoint{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	var c struct{ Usage provider.Usage }
	if err := json.Unmarshal(out, &c); err != nil {
		t.Fatal(err)
	}
	check("translated answer", &c.Usage)
	if !strings.Contains(string(out), `"prompt_tokens_details":{"cached_tokens":0,"cache_write_tokens":188086}`) {
		t.Errorf("the client's usage is not OpenRouter's shape: %s", out)
	}
	n, err := Adapter{}.NativeAnswer(provider.APIMessages, []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	check("native answer", n)
	start := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"claude-opus-4-5\",\"usage\":" + strings.Replace(u, "393", "1", 1) + "}}\n\n"
	for how, s := range map[string]provider.Stream{"translated stream": Adapter{}.Stream(strings.NewReader(start), testEP),
		"native stream": Adapter{}.NativeStream(provider.APIMessages, strings.NewReader(start), testEP)} {
		ev, err := s.Next()
		if err != nil {
			t.Fatal(err)
		}
		check(how, ev.Usage)
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

package openai

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// A door's translation names the output limit max_completion_tokens, the
// name OpenAI's reasoning models require. DeepSeek reads only max_tokens
// and ignores the other ("max_completion_tokens: 5 -> 76 output tokens,
// finish=stop; max_tokens: 5 -> 5 output tokens, finish=length",
// earendil-works/pi#8018, checked against api.deepseek.com), so every
// endpoint that is not OpenAI's or Azure's own gets max_tokens unless the
// model is one of OpenAI's reasoning models (probe 53a).
// Since round 54 a chat client's own body too (probe 54a: on a route
// [claude, deepseek] the client's limit held at Claude and was ignored at
// DeepSeek), unless it names max_tokens itself.
func TestTranslatedOutputLimitName(t *testing.T) {
	const body = `{"model":"r","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"max_completion_tokens":{"type":"integer"}}}}}],"max_completion_tokens":5}`
	for _, c := range []struct {
		base, model string
		translated  bool
		want        string
	}{
		{"https://api.deepseek.com", "deepseek-v4-flash", true, `"max_tokens":5}`},
		{"http://127.0.0.1:8000/v1", "Qwen/Qwen3-8B", true, `"max_tokens":5}`},
		{"https://api.openai.com/v1", "gpt-4.1", true, `"max_completion_tokens":5}`},
		{"https://my-res.openai.azure.com/openai/v1", "my-deployment", true, `"max_completion_tokens":5}`},
		{"https://llm-proxy.example.com/v1", "gpt-5-mini", true, `"max_completion_tokens":5}`},
		{"https://openrouter.ai/api/v1", "openai/o4-mini", true, `"max_completion_tokens":5}`},
		{"https://openrouter.ai/api/v1", "openai/gpt-4o", true, `"max_tokens":5}`},
		{"https://api.deepseek.com", "deepseek-v4-flash", false, `"max_tokens":5}`},
		{"https://api.openai.com/v1", "gpt-4.1", false, `"max_completion_tokens":5}`},
		{"https://openrouter.ai/api/v1", "openai/o4-mini", false, `"max_completion_tokens":5}`},
	} {
		req := &provider.Request{Body: []byte(body), Translated: c.translated}
		hr, err := Adapter{}.NewRequest(context.Background(), provider.Endpoint{BaseURL: c.base, Model: c.model}, req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(hr.Body)
		if !strings.HasSuffix(string(b), c.want) {
			t.Errorf("%s (translated %v): %s, want it to end %s", c.base, c.translated, b, c.want)
		}
		// A tool parameter of that name is the client's, never renamed.
		if !strings.Contains(string(b), `"properties":{"max_completion_tokens":{"type":"integer"}}`) {
			t.Errorf("%s: the tool's parameter was renamed: %s", c.base, b)
		}
	}
}

// A client's body that names both keeps both: the server reads the one it
// knows, and no member is written twice.
func TestOutputLimitBothNamesKept(t *testing.T) {
	const body = `{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":7,"max_completion_tokens":5}`
	hr, err := Adapter{}.NewRequest(context.Background(), provider.Endpoint{BaseURL: "https://api.deepseek.com", Model: "deepseek-v4-flash"}, &provider.Request{Body: []byte(body)})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := io.ReadAll(hr.Body); !strings.HasSuffix(string(b), `"max_tokens":7,"max_completion_tokens":5}`) {
		t.Errorf("sent %s", b)
	}
}

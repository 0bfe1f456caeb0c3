package openai

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// A translation's reasoning_content reaches DeepSeek and Kimi, which
// require it back in a tool loop, and no other server: Cerebras and
// Mistral refuse the member (probe 53c, hostile 53b). A chat client's own
// body is sent as it wrote it.
func TestReasoningContentOnlyWhereItIsRead(t *testing.T) {
	const body = `{"model":"r","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"reasoning_content":"think","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","content":"ok"}]}`
	for _, c := range []struct {
		base, model string
		translated  bool
		keep        bool
	}{
		{"https://api.deepseek.com", "deepseek-v4-flash", true, true},
		{"https://api.moonshot.ai/v1", "kimi-k2.6", true, true},
		{"http://127.0.0.1:8000/v1", "deepseek-ai/DeepSeek-V3.2", true, true},
		{"https://openrouter.ai/api/v1", "moonshotai/kimi-k2-thinking", true, true},
		{"https://api.cerebras.ai/v1", "gpt-oss-120b", true, false},
		{"https://api.groq.com/openai/v1", "moonshotai/kimi-k2-instruct", true, false},
		{"https://api.mistral.ai/v1", "mistral-large-latest", true, false},
		{"https://api.openai.com/v1", "gpt-5", true, false},
		{"https://api.cerebras.ai/v1", "gpt-oss-120b", false, true},
	} {
		req := &provider.Request{Body: []byte(body), Translated: c.translated}
		hr, err := Adapter{}.NewRequest(context.Background(), provider.Endpoint{BaseURL: c.base, Model: c.model}, req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(hr.Body)
		if got := strings.Contains(string(b), `"reasoning_content":"think"`); got != c.keep {
			t.Errorf("%s %s (translated %v): reasoning_content sent %v, want %v: %s", c.base, c.model, c.translated, got, c.keep, b)
		}
		if !strings.Contains(string(b), `"tool_calls":[{"id":"c"`) || !strings.Contains(string(b), `{"role":"tool","tool_call_id":"c","content":"ok"}`) {
			t.Errorf("%s: the rest of the turn changed: %s", c.base, b)
		}
	}
}

// A reasoning item without encrypted_content (one this gateway wrote for
// an OpenAI-compatible model's reasoning) is not passed to a native
// Responses target, which refuses its content; OpenAI's own items (with
// encrypted_content) are (hostile 53b).
func TestNativeResponsesDropsForeignReasoning(t *testing.T) {
	const body = `{"model":"r","store":false,"input":[{"role":"user","content":"hi"},` +
		`{"id":"rs_ours","type":"reasoning","status":"completed","summary":[],"content":[{"type":"reasoning_text","text":"think"}]},` +
		`{"id":"rs_openai","type":"reasoning","summary":[],"encrypted_content":"gAAAAB"},` +
		`{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}]}`
	hr, err := Adapter{Responses: true}.NativeRequest(context.Background(), provider.Endpoint{BaseURL: "https://api.openai.com/v1", Model: "gpt-5"},
		&provider.NativeRequest{API: provider.APIResponses, Body: []byte(body)})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(hr.Body)
	want := `{"model":"gpt-5","store":false,"input":[{"role":"user","content":"hi"},{"id":"rs_openai","type":"reasoning","summary":[],"encrypted_content":"gAAAAB"},{"type":"function_call","call_id":"c","name":"f","arguments":"{}"}]}`
	if string(b) != want {
		t.Fatalf("\n got %s\nwant %s", b, want)
	}
}

// A translation's history calls reach Gemini's OpenAI-compatible endpoint
// with Google's placeholder thought signature where they carry none
// (probe 53d: Gemini 3 refused every tool loop of the Messages and
// Responses doors at its second step); a signature the body carries, and
// every other endpoint's body, are left as they are.
func TestGeminiCompatPlaceholderSignature(t *testing.T) {
	const body = `{"model":"r","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"b","type":"function","function":{"name":"g","arguments":"{}"},"extra_content":{"google":{"thought_signature":"real"}}}]},{"role":"tool","tool_call_id":"a","content":"ok"},{"role":"tool","tool_call_id":"b","content":"ok"}]}`
	send := func(base string) string {
		req := &provider.Request{Body: []byte(body), Translated: true}
		hr, err := Adapter{}.NewRequest(context.Background(), provider.Endpoint{BaseURL: base, Model: "gemini-3-pro-preview"}, req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(hr.Body)
		return string(b)
	}
	got := send("https://generativelanguage.googleapis.com/v1beta/openai")
	if !strings.Contains(got, `"arguments":"{}"},"extra_content":{"google":{"thought_signature":"skip_thought_signature_validator"}}}`) ||
		!strings.Contains(got, `"thought_signature":"real"`) || strings.Count(got, `"thought_signature":`) != 2 {
		t.Errorf("Gemini's compatible endpoint got %s", got)
	}
	if got := send("https://api.openai.com/v1"); strings.Contains(got, "skip_thought_signature_validator") {
		t.Errorf("OpenAI got a Gemini signature: %s", got)
	}
}

package openai

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// Review 54c: hostile 54c stopped sending a sealed reasoning item to any
// Responses server because vLLM refuses every encrypted_content
// (vllm-project/vllm vllm/entrypoints/responses_utils.py:
// `if item.encrypted_content: raise ValueError("Encrypted content is not
// supported.")`; docs/doors.md says so). OpenAI's own encrypted reasoning
// items — which Codex and the Agents SDK send back on every turn with
// store false and include ["reasoning.encrypted_content"] — still reach a
// vLLM Responses target: a route [gpt-5 at OpenAI, gpt-oss at vLLM], both
// responses: true, that fails over mid-session sends vLLM a body it
// refuses (a 400, bad_request, the end of the walk).
func TestReview54cOpenAIEncryptedReasoningStaysOffVLLM(t *testing.T) {
	const body = `{"model":"r","store":false,"include":["reasoning.encrypted_content"],"input":[{"role":"user","content":"hi"},` +
		`{"id":"rs_openai","type":"reasoning","summary":[],"encrypted_content":"gAAAAABopenai"},` +
		`{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":"ok"}]}`
	hr, err := Adapter{Responses: true}.NativeRequest(context.Background(), provider.Endpoint{BaseURL: "http://127.0.0.1:8000/v1", Model: "openai/gpt-oss-120b"},
		&provider.NativeRequest{API: provider.APIResponses, Body: []byte(body)})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(hr.Body)
	if strings.Contains(string(b), `"encrypted_content":`) { // an item's; the include list names it, and vLLM reads items
		t.Errorf("a vLLM Responses target is sent an encrypted_content it refuses outright:\n%s", b)
	}
}

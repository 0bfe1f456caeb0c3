package openai

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// Review 53: with store true (the Responses API's default), OpenAI's own
// reasoning items carry no encrypted_content: OpenAI reads them back by id
// (openai-python types/responses/response_reasoning_item.py:
// encrypted_content Optional, "populated when a response is generated with
// reasoning.encrypted_content in the include parameter"). A client that
// hands response.output back as input (OpenAI's reasoning guide and
// cookbook tool loop: `input += response.output`) sends such an item before
// its function_call; OpenAI refuses a call or message whose reasoning item
// is missing ("Item 'fc_…' of type 'function_call' was provided without
// its required 'reasoning' item", continuedev/continue#12620 for the
// message form). withoutForeignReasoning dropped the item as if this
// gateway had written it.
func TestReview53NativeResponsesKeepsOpenAIStoredReasoning(t *testing.T) {
	const body = `{"model":"r","input":[{"role":"user","content":"weather in Paris?"},` +
		`{"id":"rs_68b14140aa","type":"reasoning","summary":[]},` +
		`{"id":"fc_68b14141bb","type":"function_call","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}","status":"completed"},` +
		`{"type":"function_call_output","call_id":"call_1","output":"18C"}]}`
	hr, err := Adapter{Responses: true}.NativeRequest(context.Background(), provider.Endpoint{BaseURL: "https://api.openai.com/v1", Model: "gpt-5"},
		&provider.NativeRequest{API: provider.APIResponses, Body: []byte(body)})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(hr.Body)
	if !strings.Contains(string(b), `"id":"rs_68b14140aa"`) {
		t.Fatalf("OpenAI's own stored reasoning item (no encrypted_content, store defaulting to true) was dropped before its function_call; OpenAI answers 400 for the call without it:\n%s", b)
	}
}

// Review 53: wantsReasoning answers false for every host openAIHost names
// before it reads the model, and openAIHost names Azure AI Foundry's
// *.services.ai.azure.com (and *.cognitiveservices.azure.com), which serve
// DeepSeek and Kimi models too. DeepSeek V4 Pro on Foundry's
// /openai/v1 Chat Completions answers with reasoning_content and takes it
// back on earlier assistant turns ("Keep sending reasoning_content back on
// earlier assistant turns. Without it the prompt cache misses",
// earendil-works/pi#9645, a team running it so on Foundry). A Codex loop on
// such a target has its reasoning stripped, which DeepSeek's thinking mode
// refuses at a tool loop's next step where the server enforces it
// (api-docs.deepseek.com/guides/thinking_mode: "the API will return a 400").
func TestReview53FoundryDeepSeekGetsItsReasoningBack(t *testing.T) {
	const body = `{"model":"r","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"reasoning_content":"think","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c","content":"ok"}]}`
	req := &provider.Request{Body: []byte(body), Translated: true}
	hr, err := Adapter{}.NewRequest(context.Background(), provider.Endpoint{BaseURL: "https://my-project.services.ai.azure.com/openai/v1", Model: "deepseek-v4-pro"}, req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(hr.Body)
	if !strings.Contains(string(b), `"reasoning_content":"think"`) {
		t.Fatalf("DeepSeek on Azure AI Foundry lost the turn's reasoning_content (the host check wins over the model): %s", b)
	}
}

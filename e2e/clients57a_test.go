package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Probe 57a: Python agent frameworks (pydantic-ai, instructor, LangChain,
// LiteLLM, AutoGen, openai-agents-python, ...) read through Detour's doors
// onto an OpenAI-compatible target that ends an answer with one of the
// vendor finish reasons Detour itself knows (classify/blocks.go
// vendorFinishes; docs/behaviour.md "A 2xx whose finish says the answer did
// not happen": DeepSeek's insufficient_system_resource, Zhipu's
// network_error and sensitive, Mistral's and Zhipu's window finishes). With
// nothing generated they fail over; with content, behaviour.md says "they
// are an answer cut short". This file checks what each door then tells the
// client.

// p57aCutCfg is one DeepSeek-style (OpenAI dialect) target.
const p57aCutCfg = `
providers:
  - {name: deepseek, dialect: openai, base_url: "{ds}/v1", api_key: ` + secret + `}
targets:
  - {name: dsc, model: deepseek-chat, providers: [deepseek]}
routes:
  - {name: ds, targets: [dsc]}
`

// p57aCut is an OpenAI-compatible upstream whose answer has begun ("The
// capital of France is") and ends with finish_reason *fin, whole or
// streamed, shaped as DeepSeek's chat completion (its finish_reason enum:
// stop, length, content_filter, tool_calls, insufficient_system_resource;
// https://api-docs.deepseek.com/api/create-chat-completion).
func p57aCut(fin *string) upstreamtest.Script {
	return func(n int, r upstreamtest.Request) upstreamtest.Step {
		usage := `"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}`
		if r.Streamed() {
			head := `{"id":"p57a-ds","object":"chat.completion.chunk","created":1765000000,"model":"deepseek-chat","choices":[`
			return upstreamtest.Step{Events: []string{
				head + `{"index":0,"delta":{"role":"assistant","content":"The capital of France is"},"logprobs":null,"finish_reason":null}]}`,
				head + `{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"` + *fin + `"}],` + usage + `}`, "[DONE]"}}
		}
		return upstreamtest.Step{Body: `{"id":"p57a-ds","object":"chat.completion","created":1765000000,"model":"deepseek-chat","choices":[{"index":0,"message":{"role":"assistant","content":"The capital of France is"},"logprobs":null,"finish_reason":"` + *fin + `"}],` + usage + `}`}
	}
}

// TestClients57aChatFinishIsOpenAIs: a whole chat answer's finish_reason must
// be one openai-python declares (src/openai/types/chat/chat_completion.py:
// Choice.finish_reason is Literal["stop","length","tool_calls",
// "content_filter","function_call"]). pydantic-ai's OpenAIChatModel
// validates every whole answer against that model
// (pydantic_ai_slim/pydantic_ai/models/openai.py, _process_response line
// 1213 calls _validate_completion, line 1184
// `_ChatCompletion.model_validate(response.model_dump())`, which relaxes
// only service_tier, lines 349-355) and raises UnexpectedModelBehavior
// ("Invalid response from openai chat completions endpoint") on any other
// word, so the agent run ends with an exception instead of the partial
// answer. Detour already maps Claude's model_context_window_exceeded to
// length and Gemini's words to OpenAI's; a DeepSeek/Zhipu/Mistral word is
// relayed as sent. Failed before round 57 for all four.
func TestClients57aChatFinishIsOpenAIs(t *testing.T) {
	fin := ""
	g := start(t, p57aCutCfg, fakes(t, map[string]upstreamtest.Script{"ds": p57aCut(&fin)}))
	allowed := map[string]bool{"stop": true, "length": true, "tool_calls": true, "content_filter": true, "function_call": true}
	for _, f := range []string{"insufficient_system_resource", "network_error", "sensitive", "model_length"} {
		fin = f
		r := g.post(t, "ds", "")
		var got struct {
			Choices []struct {
				FinishReason string `json:"finish_reason"`
			} `json:"choices"`
		}
		_ = json.Unmarshal(r.Body, &got)
		if r.Status == http.StatusOK && (len(got.Choices) != 1 || !allowed[got.Choices[0].FinishReason]) {
			t.Errorf("upstream finish %q: the chat door answered 200 with a finish_reason openai-python's ChatCompletion does not allow (pydantic-ai raises UnexpectedModelBehavior): %s", f, r.Body)
		}
	}
}

// TestClients57aCutAnswerNotComplete: the same answers at the Messages and
// Responses doors are told as finished: stop_reason end_turn, status
// completed. A filter's cut (Zhipu's sensitive) should read as Detour
// reads Gemini's SAFETY with text written (docs/doors.md: content_filter /
// stop_reason refusal) and Claude's refusal; a window's cut (model_length)
// as Claude's model_context_window_exceeded is read (length /
// max_tokens / incomplete max_output_tokens); a provider failure mid-answer
// (insufficient_system_resource, network_error) is "an answer cut short"
// (docs/behaviour.md) and must at least not be told as complete.
// pydantic-ai reads these: AnthropicModel _FINISH_REASON_MAP (models/
// anthropic.py lines 99-108: refusal → content_filter, max_tokens →
// length, end_turn → stop) and OpenAIResponsesModel
// _RESPONSES_FINISH_REASON_MAP (models/openai.py lines 310-316:
// incomplete_details.reason content_filter / max_output_tokens, else the
// status); its agent takes a `stop` text as the run's final output.
// Failed before round 57 for every case.
func TestClients57aCutAnswerNotComplete(t *testing.T) {
	fin := ""
	g := start(t, p57aCutCfg, fakes(t, map[string]upstreamtest.Script{"ds": p57aCut(&fin)}))
	for _, c := range []struct{ fin, stop, reason string }{
		{"sensitive", "refusal", "content_filter"},
		{"model_length", "max_tokens", "max_output_tokens"},
		{"insufficient_system_resource", "", ""},
		{"network_error", "", ""},
	} {
		fin = c.fin
		m := g.raw(t, http.MethodPost, "/v1/messages", `{"model":"ds","max_tokens":100,"messages":[{"role":"user","content":"What is the capital of France?"}]}`)
		var msg struct {
			StopReason string `json:"stop_reason"`
		}
		_ = json.Unmarshal(m.Body, &msg)
		if m.Status == http.StatusOK && (msg.StopReason == "end_turn" || (c.stop != "" && msg.StopReason != c.stop)) {
			t.Errorf("%s at /v1/messages: stop_reason %q, want %s: %s", c.fin, msg.StopReason, p57aWant(c.stop, "not end_turn"), m.Body)
		}
		r := g.raw(t, http.MethodPost, "/v1/responses", `{"model":"ds","input":"What is the capital of France?"}`)
		var resp struct {
			Status            string `json:"status"`
			IncompleteDetails *struct {
				Reason string `json:"reason"`
			} `json:"incomplete_details"`
		}
		_ = json.Unmarshal(r.Body, &resp)
		reason := ""
		if resp.IncompleteDetails != nil {
			reason = resp.IncompleteDetails.Reason
		}
		if r.Status == http.StatusOK && (resp.Status == "completed" || (c.reason != "" && reason != c.reason)) {
			t.Errorf("%s at /v1/responses: status %q, incomplete_details.reason %q, want %s: %s", c.fin, resp.Status, reason, p57aWant("incomplete "+c.reason, "not completed"), r.Body)
		}
	}
}

func p57aWant(want, otherwise string) string {
	if want == "" || want == "incomplete " {
		return otherwise
	}
	return want
}

// p57aCutCall is DeepSeek ending a tool call it has begun with finish
// *fin: the arguments stop inside the content string (a write_file call
// whose file text is cut), whole or streamed as DeepSeek streams calls.
func p57aCutCall(fin *string) upstreamtest.Script {
	return func(n int, r upstreamtest.Request) upstreamtest.Step {
		usage := `"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}`
		if r.Streamed() {
			head := `{"id":"p57a-ds","object":"chat.completion.chunk","created":1765000000,"model":"deepseek-chat","choices":[`
			return upstreamtest.Step{Events: []string{
				head + `{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_00_p57a","type":"function","function":{"name":"write_file","arguments":""}}]},"logprobs":null,"finish_reason":null}]}`,
				head + `{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"path\":\"a.txt\",\"content\":\"hello wor"}}]},"logprobs":null,"finish_reason":null}]}`,
				head + `{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"` + *fin + `"}],` + usage + `}`, "[DONE]"}}
		}
		return upstreamtest.Step{Body: `{"id":"p57a-ds","object":"chat.completion","created":1765000000,"model":"deepseek-chat","choices":[{"index":0,"message":{"role":"assistant","content":"","tool_calls":[{"index":0,"id":"call_00_p57a","type":"function","function":{"name":"write_file","arguments":"{\"path\":\"a.txt\",\"content\":\"hello wor"}}]},"logprobs":null,"finish_reason":"` + *fin + `"}],` + usage + `}`}
	}
}

// TestClients57aCutToolCallNotFinished: DeepSeek's inference system gives
// out inside a tool call (finish_reason insufficient_system_resource, the
// arguments cut inside a string). Detour handles the same cut under
// finish_reason length (docs/doors.md: stop_reason max_tokens, the call
// `incomplete` at the Responses door; probe 51b), but under DeepSeek's word:
//   - /v1/messages streamed ends `stop_reason: tool_use` after the cut
//     input_json_delta. LangChain's ChatAnthropic merges the deltas into an
//     AIMessageChunk whose init_tool_calls parses them with
//     parse_partial_json (langchain-ai/langchain
//     libs/core/langchain_core/messages/ai.py), which closes the open
//     string: LangGraph's ToolNode then runs write_file(path="a.txt",
//     content="hello wor"). pydantic-ai's AnthropicModel maps tool_use to
//     finish_reason tool_call (models/anthropic.py line 105) and calls it.
//   - /v1/responses, whole and streamed (response.output_item.done),
//     gives a `completed` function_call whose arguments are not JSON, in a
//     `completed` response (what probe 51b fixed for length); LangChain's
//     ChatOpenAI(use_responses_api) streams it into the same
//     parse_partial_json.
//
// A whole answer has reached no client, so it could fail over as the
// server_error it is (as it does with nothing generated); a begun stream
// should end as Detour ends a length cut. Failed before round 57.
func TestClients57aCutToolCallNotFinished(t *testing.T) {
	fin := "insufficient_system_resource"
	g := start(t, p57aCutCfg, fakes(t, map[string]upstreamtest.Script{"ds": p57aCutCall(&fin)}))
	tool := `{"name":"write_file","input_schema":{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}}}}`
	m := g.raw(t, http.MethodPost, "/v1/messages", `{"model":"ds","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"Write hello world to a.txt"}],"tools":[`+tool+`]}`)
	if m.Status == http.StatusOK && strings.Contains(string(m.Body), `"stop_reason":"tool_use"`) {
		t.Errorf("/v1/messages stream: a tool call DeepSeek cut (insufficient_system_resource) ends stop_reason tool_use, so clients run it: %s", m.Body)
	}
	r := g.raw(t, http.MethodPost, "/v1/responses", `{"model":"ds","input":"Write hello world to a.txt","tools":[{"type":"function","name":"write_file","parameters":{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}}}}]}`)
	var resp struct {
		Status string `json:"status"`
		Output []struct {
			Type, Status, Arguments string
		} `json:"output"`
	}
	_ = json.Unmarshal(r.Body, &resp)
	if r.Status == http.StatusOK && resp.Status == "completed" {
		for _, o := range resp.Output {
			if o.Type == "function_call" && o.Status == "completed" && !json.Valid([]byte(o.Arguments)) {
				t.Errorf("/v1/responses: a completed response with a completed function_call whose arguments are cut (%s): %s", o.Arguments, r.Body)
			}
		}
	}
	st := g.raw(t, http.MethodPost, "/v1/responses", `{"model":"ds","stream":true,"input":"Write hello world to a.txt","tools":[{"type":"function","name":"write_file","parameters":{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}}}}]}`)
	for _, e := range st.events() {
		var done struct {
			Type string `json:"type"`
			Item struct {
				Type, Status, Arguments string
			} `json:"item"`
		}
		_ = json.Unmarshal([]byte(e.Data), &done)
		if done.Type == "response.output_item.done" && done.Item.Type == "function_call" && done.Item.Status == "completed" && !json.Valid([]byte(done.Item.Arguments)) {
			t.Errorf("/v1/responses stream: output_item.done gives a completed function_call whose arguments are cut (%s)", done.Item.Arguments)
		}
	}
}

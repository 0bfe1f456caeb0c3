package e2e

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Build 68c: an error's param names the member the client sent, at every
// door. The Responses door translates its request into Chat Completions:
// an OpenAI upstream's error.param, and an adapter's refusal, name a
// member of that chat body, which the client never sent. Before, openai-go's
// Error.Param said "messages[3].content" to a client that sent
// input[2].output, and "tools[0].function.parameters" for its tools[1].

// openAIParam400 is an OpenAI 400 naming param, as OpenAI's API reference
// shapes an error ({"error":{"message","type","param","code"}}), worded as
// OpenAI words a member of the wrong type.
func openAIParam400(param string) upstreamtest.Step {
	return upstreamtest.Step{Status: 400, Body: fmt.Sprintf(`{"error":{"message":"Invalid type for '%s': expected one of a string or array of objects, but got an object instead.","type":"invalid_request_error","param":%q,"code":"invalid_type"}}`, param, param)}
}

// responses68c is a Responses request of four input items (a user
// message, a function call, its output, a user message with an image),
// instructions, and tools of which the first (web_search) the translation
// drops: its chat body is system (instructions), user, assistant (the
// call), tool, user; its tools one function.
const responses68c = `{"model":"r-gpt","instructions":"Be brief.","max_output_tokens":300,
 "tools":[{"type":"web_search"},{"type":"function","name":"lookup","parameters":{"type":"object","properties":{"q":{"type":"string"}}}}],
 "input":[
  {"role":"user","content":"find it"},
  {"type":"function_call","call_id":"call_1","name":"lookup","arguments":"{\"q\":\"x\"}"},
  {"type":"function_call_output","call_id":"call_1","output":"found"},
  {"role":"user","content":[{"type":"input_text","text":"and this"},{"type":"input_image","image_url":"https://example.com/a.png"}]}
 ]}`

func TestBuild68cResponsesUpstreamParamIsClients(t *testing.T) {
	var mu sync.Mutex
	param := ""
	oai := func(int, upstreamtest.Request) upstreamtest.Step {
		mu.Lock()
		defer mu.Unlock()
		return openAIParam400(param)
	}
	fs := probe67cFakes(t, map[string]upstreamtest.Script{"openai": oai})
	g := start(t, probe67cCfg, fs)
	c := probe67cOpenAI(g)
	cases := []struct{ upstream, want string }{
		{"messages[0].content", "instructions"},
		{"messages[1].content", "input[0].content"},
		{"messages[2].tool_calls[0].function.arguments", "input[1].arguments"},
		{"messages.[3].content", "input[2].output"}, // OpenAI's own spelling of the index
		{"messages[3].tool_call_id", "input[2].call_id"},
		{"messages[4].content[1]", "input[3].content[1]"},
		{"messages[4].content[1].image_url.url", "input[3].content[1]"},
		{"tools[0].function.parameters", "tools[1].parameters"},
		{"tools[0].function.name", "tools[1].name"},
		{"max_tokens", "max_output_tokens"},
		{"max_completion_tokens", "max_output_tokens"},
		// Not one member the client sent: none, rather than a wrong one.
		{"messages[2].reasoning_content", ""},
		{"messages[9].content", ""},
		{"stream_options", ""},
		{"top_p", ""}, // not sent
	}
	for _, stream := range []bool{false, true} {
		for _, tc := range cases {
			mu.Lock()
			param = tc.upstream
			mu.Unlock()
			body := responses68c
			if stream {
				body = strings.Replace(body, `"model":"r-gpt",`, `"model":"r-gpt","stream":true,`, 1)
			}
			var err error
			if stream {
				s := c.Responses.NewStreaming(context.Background(), responses.ResponseNewParams{}, option.WithRequestBody("application/json", []byte(body)))
				for s.Next() {
				}
				err = s.Err()
			} else {
				_, err = c.Responses.New(context.Background(), responses.ResponseNewParams{}, option.WithRequestBody("application/json", []byte(body)))
			}
			var e *openai.Error
			if !errors.As(err, &e) {
				t.Fatalf("%s (stream %v): %T %v", tc.upstream, stream, err, err)
			}
			if e.StatusCode != 400 || e.Param != tc.want || e.Code != "invalid_type" {
				t.Errorf("upstream param %q (stream %v): %d code %q param %q, want param %q: %s", tc.upstream, stream, e.StatusCode, e.Code, e.Param, tc.want, e.RawJSON())
			}
		}
	}

	// The chat door's body is the client's own: the upstream's param is
	// told as it came.
	mu.Lock()
	param = "messages.[0].content"
	mu.Unlock()
	_, err := c.Chat.Completions.New(context.Background(), hello("r-gpt"))
	var e *openai.Error
	if !errors.As(err, &e) || e.Param != "messages.[0].content" {
		t.Errorf("chat: %v", err)
	}
}

// TestBuild68cResponsesRefusalNamesClientsMember: an adapter's refusal
// of one member, at the Responses door, names the client's member: an
// image type Claude does not take in the client's input[1].content[1]
// (messages[2].content[1] of the chat body, after the instructions), a
// function name Gemini refuses in its tools[1]. Before, code unknown and
// param null (the member named in the message alone).
func TestBuild68cResponsesRefusalNamesClientsMember(t *testing.T) {
	fs := probe67cFakes(t, nil)
	g := start(t, probe67cCfg, fs)
	c := probe67cOpenAI(g)
	cases := []struct{ name, body, want string }{
		{"claude tiff", `{"model":"r-claude","instructions":"Look.","input":[{"role":"user","content":"hi"},
			{"role":"user","content":[{"type":"input_text","text":"this"},{"type":"input_image","image_url":"data:image/tiff;base64,SUkqAA=="}]}]}`, "input[1].content[1]"},
		{"gemini gif in a tool output", `{"model":"r-gem","input":[{"role":"user","content":"hi"},
			{"type":"function_call","call_id":"c1","name":"shot","arguments":"{}"},
			{"type":"function_call_output","call_id":"c1","output":[{"type":"input_image","image_url":"data:image/gif;base64,R0lGODlhAQABAAAAACw="}]}],
			"tools":[{"type":"function","name":"shot","parameters":{"type":"object","properties":{}}}]}`, "input[2].output[0]"},
		{"gemini function name", `{"model":"r-gem","input":"hi","tools":[{"type":"web_search"},{"type":"function","name":"1shot","parameters":{"type":"object","properties":{}}}]}`, "tools[1].name"},
	}
	for _, tc := range cases {
		_, err := c.Responses.New(context.Background(), responses.ResponseNewParams{}, option.WithRequestBody("application/json", []byte(tc.body)))
		var e *openai.Error
		if !errors.As(err, &e) {
			t.Fatalf("%s: %T %v", tc.name, err, err)
		}
		if e.StatusCode != 400 || e.Param != tc.want || e.Code != "unsupported_parameter" || e.Type != "invalid_request_error" {
			t.Errorf("%s: %d type %q code %q param %q, want %q: %s", tc.name, e.StatusCode, e.Type, e.Code, e.Param, tc.want, e.RawJSON())
		}
	}
}

// TestBuild68cChatRefusalsTyped: the adapters' other refusals of one
// member of a chat request are OpenAI's unsupported_parameter with that
// member (before: code unknown, param null): an image type the vendor
// does not take, a function name Gemini refuses, a function name reserved
// for the structured answer, an allowed_tools choice naming no tool,
// log-probabilities asked by top_logprobs alone.
func TestBuild68cChatRefusalsTyped(t *testing.T) {
	fs := probe67cFakes(t, nil)
	g := start(t, probe67cCfg, fs)
	c := probe67cOpenAI(g)
	tool := `{"type":"function","function":{"name":"%s","parameters":{"type":"object","properties":{}}}}`
	cases := []struct{ name, body, want string }{
		{"claude tiff", `{"model":"r-claude","messages":[{"role":"system","content":"s"},{"role":"user","content":[{"type":"text","text":"this"},{"type":"image_url","image_url":{"url":"data:image/tiff;base64,SUkqAA=="}}]}]}`, "messages[1].content[1]"},
		{"gemini gif in a tool message", `{"model":"r-gem","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"shot","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":[{"type":"image_url","image_url":{"url":"data:image/gif;base64,R0lGODlhAQABAAAAACw="}}]}],"tools":[` + fmt.Sprintf(tool, "shot") + `]}`, "messages[2].content[0]"},
		{"gemini function name", `{"model":"r-gem","messages":[{"role":"user","content":"hi"}],"tools":[` + fmt.Sprintf(tool, "ok") + `,` + fmt.Sprintf(tool, "1shot") + `]}`, "tools[1].function.name"},
		{"claude reserved name", `{"model":"r-claude","messages":[{"role":"user","content":"hi"}],"tools":[` + fmt.Sprintf(tool, "detour_json_answer") + `]}`, "tools[0].function.name"},
		{"claude allowed_tools of none", `{"model":"r-claude","messages":[{"role":"user","content":"hi"}],"tools":[` + fmt.Sprintf(tool, "a") + `],"tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"auto","tools":[{"type":"function","function":{"name":"b"}}]}}}`, "tool_choice"},
		{"gemini top_logprobs", `{"model":"r-gem","messages":[{"role":"user","content":"hi"}],"top_logprobs":2}`, "top_logprobs"},
	}
	for _, tc := range cases {
		_, err := c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{}, option.WithRequestBody("application/json", []byte(tc.body)))
		var e *openai.Error
		if !errors.As(err, &e) {
			t.Fatalf("%s: %T %v", tc.name, err, err)
		}
		if e.StatusCode != 400 || e.Param != tc.want || e.Code != "unsupported_parameter" {
			t.Errorf("%s: %d code %q param %q, want %q: %s", tc.name, e.StatusCode, e.Code, e.Param, tc.want, e.RawJSON())
		}
	}
}

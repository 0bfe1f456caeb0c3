package messages

import (
	"errors"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// TestTranslate checks Messages requests from Anthropic's published
// examples against the canonical Chat Completions body they must become.
func TestTranslate(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		model          string
		stream         bool
	}{{
		// anthropic-sdk-go message_test.go, TestMessageNewWithOptionalParams
		// (github.com/anthropics/anthropic-sdk-go): every optional
		// parameter, as the SDK sends it.
		name: "sdk optional params",
		in: `{"max_tokens":1024,"messages":[{"content":[{"text":"What is a quaternion?","type":"text",
			"cache_control":{"type":"ephemeral"},"citations":[{"cited_text":"cited_text","document_index":0,
			"document_title":"x","end_char_index":0,"start_char_index":0,"type":"char_location"}]}],"role":"user"}],
			"model":"claude-3-7-sonnet-latest","metadata":{"user_id":"13803d75-b4b5-4c3e-b2a2-6f21399b021b"},
			"stop_sequences":["string"],"system":[{"text":"x","type":"text","cache_control":{"type":"ephemeral"}}],
			"temperature":1,"thinking":{"budget_tokens":1024,"type":"enabled"},
			"tool_choice":{"type":"auto","disable_parallel_tool_use":true},
			"tools":[{"input_schema":{"properties":{"location":{"description":"The city and state, e.g. San Francisco, CA","type":"string"},
			"unit":{"description":"Unit for the output - one of (celsius, fahrenheit)","type":"string"}},"type":"object"},
			"name":"name","cache_control":{"type":"ephemeral"},"description":"Get the current weather in a given location","type":"custom"}],
			"top_k":5,"top_p":0.7}`,
		want: `{"model":"claude-3-7-sonnet-latest","max_completion_tokens":1024,"temperature":1,"top_p":0.7,
			"stop":["string"],"user":"13803d75-b4b5-4c3e-b2a2-6f21399b021b","tool_choice":"auto","parallel_tool_calls":false,
			"messages":[{"role":"system","content":"x"},{"role":"user","content":"What is a quaternion?"}],
			"tools":[{"type":"function","function":{"name":"name","description":"Get the current weather in a given location",
			"parameters":{"properties":{"location":{"description":"The city and state, e.g. San Francisco, CA","type":"string"},
			"unit":{"description":"Unit for the output - one of (celsius, fahrenheit)","type":"string"}},"type":"object"}}}]}`,
		model: "claude-3-7-sonnet-latest",
	}, {
		// PDF support (https://platform.claude.com/docs/en/build-with-claude/pdf-support):
		// a base64 PDF document block before the question; it becomes
		// OpenAI's PDF input, a file part (platform.openai.com/docs/guides/pdf-files),
		// named by the document's title. Citations not asked for.
		name: "pdf document",
		in: `{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[{"role":"user","content":[
			{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjQK"},"title":"draconomicon.pdf","cache_control":{"type":"ephemeral"}},
			{"type":"text","text":"What are the key findings in this document?"}]}]}`,
		want: `{"model":"claude-sonnet-4-5","max_completion_tokens":1024,"messages":[{"role":"user","content":[
			{"type":"file","file":{"file_data":"data:application/pdf;base64,JVBERi0xLjQK","filename":"draconomicon.pdf"}},
			{"type":"text","text":"What are the key findings in this document?"}]}]}`,
		model: "claude-sonnet-4-5",
	}, {
		// Citations (https://platform.claude.com/docs/en/build-with-claude/citations):
		// a plain-text document, as the AI SDK's Anthropic provider sends
		// every text file (review 48c), citations off: its title and text.
		name: "plain text document",
		in: `{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[{"role":"user","content":[
			{"type":"document","source":{"type":"text","media_type":"text/plain","data":"The grass is green. The sky is blue."},"title":"notes.txt"},
			{"type":"text","text":"What color is the grass?"}]}]}`,
		want: `{"model":"claude-sonnet-4-5","max_completion_tokens":1024,"messages":[{"role":"user","content":[
			{"type":"text","text":"notes.txt\n\nThe grass is green. The sky is blue."},
			{"type":"text","text":"What color is the grass?"}]}]}`,
		model: "claude-sonnet-4-5",
	}, {
		// A tool's PDF (the AI SDK's Anthropic provider puts a tool's
		// files in its tool_result: review 48c) goes after the tool
		// message, with the tool's images.
		name: "pdf in a tool result",
		in: `{"model":"claude","max_tokens":1024,"messages":[{"role":"user","content":"Fetch the invoice."},
			{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"fetch","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"INV-7"},
			 {"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjQK"}}]}]}]}`,
		want: `{"model":"claude","max_completion_tokens":1024,"messages":[{"role":"user","content":"Fetch the invoice."},
			{"role":"assistant","content":null,"tool_calls":[{"id":"toolu_1","type":"function","function":{"name":"fetch","arguments":"{}"}}]},
			{"role":"tool","tool_call_id":"toolu_1","content":"INV-7"},
			{"role":"user","content":[{"type":"file","file":{"file_data":"data:application/pdf;base64,JVBERi0xLjQK","filename":"document.pdf"}}]}]}`,
		model: "claude",
	}, {
		// Messages API reference, "Basic request and response" and
		// streaming (https://platform.claude.com/docs/en/api/messages).
		name:   "hello streamed",
		in:     `{"model":"claude-sonnet-4-5","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"Hello, Claude"}]}`,
		want:   `{"model":"claude-sonnet-4-5","max_completion_tokens":1024,"stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"Hello, Claude"}]}`,
		model:  "claude-sonnet-4-5",
		stream: true,
	}, {
		// Tool use overview (https://platform.claude.com/docs/en/agents-and-tools/tool-use/overview):
		// get_weather, its tool_use and the tool_result "15 degrees";
		// tool_choice any, a thinking block dropped, an is_error result.
		name: "tool round",
		in: `{"model":"claude","max_tokens":1024,"tool_choice":{"type":"any"},
			"tools":[{"name":"get_weather","description":"Get the current weather in a given location",
			"input_schema":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}],
			"messages":[{"role":"user","content":"What's the weather like in San Francisco?"},
			{"role":"assistant","content":[{"type":"thinking","thinking":"I should call get_weather.","signature":"EqQB"},
			 {"type":"text","text":"I'll check."},
			 {"type":"tool_use","id":"toolu_01A09q90qw90lq917835lq9","name":"get_weather","input":{"location": "San Francisco, CA"}},
			 {"type":"tool_use","id":"toolu_02","name":"get_weather","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01A09q90qw90lq917835lq9","content":"15 degrees"},
			 {"type":"tool_result","tool_use_id":"toolu_02","is_error":true,"content":[{"type":"text","text":"no such place"}]},
			 {"type":"text","text":"Thanks"}]}]}`,
		want: `{"model":"claude","max_completion_tokens":1024,"tool_choice":"required",
			"tools":[{"type":"function","function":{"name":"get_weather","description":"Get the current weather in a given location",
			"parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}}],
			"messages":[{"role":"user","content":"What's the weather like in San Francisco?"},
			{"role":"assistant","content":"I'll check.","tool_calls":[
			 {"id":"toolu_01A09q90qw90lq917835lq9","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"San Francisco, CA\"}"}},
			 {"id":"toolu_02","type":"function","function":{"name":"get_weather","arguments":"{}"}}]},
			{"role":"tool","tool_call_id":"toolu_01A09q90qw90lq917835lq9","content":"15 degrees"},
			{"role":"tool","tool_call_id":"toolu_02","content":"Error: no such place"},
			{"role":"user","content":"Thanks"}]}`,
		model: "claude",
	}, {
		// Vision (https://platform.claude.com/docs/en/build-with-claude/vision):
		// a base64 source and a url source; an image inside a tool result
		// moves to the user message after the tool message.
		name: "images",
		in: `{"model":"m","max_tokens":5,"system":"Be brief.","messages":[{"role":"user","content":[
			{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"/9j/4AAQSkZJRg=="}},
			{"type":"image","source":{"type":"url","url":"https://upload.wikimedia.org/wikipedia/commons/a/a7/Camponotus_flavomarginatus_ant.jpg"}},
			{"type":"text","text":"Describe this image."}]},
			{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"shot","input":{}}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[
			 {"type":"text","text":"screenshot:"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]}]}]}`,
		want: `{"model":"m","max_completion_tokens":5,"messages":[{"role":"system","content":"Be brief."},
			{"role":"user","content":[
			 {"type":"image_url","image_url":{"url":"data:image/jpeg;base64,/9j/4AAQSkZJRg=="}},
			 {"type":"image_url","image_url":{"url":"https://upload.wikimedia.org/wikipedia/commons/a/a7/Camponotus_flavomarginatus_ant.jpg"}},
			 {"type":"text","text":"Describe this image."}]},
			{"role":"assistant","content":null,"tool_calls":[{"id":"t1","type":"function","function":{"name":"shot","arguments":"{}"}}]},
			{"role":"tool","tool_call_id":"t1","content":"screenshot:"},
			{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]}]}`,
		model: "m",
	}, {
		// tool_choice tool and none; tool_choice without tools is dropped.
		name: "named tool",
		in: `{"model":"m","max_tokens":5,"tool_choice":{"type":"tool","name":"f","disable_parallel_tool_use":true},
			"tools":[{"name":"f","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"x"}]}`,
		want: `{"model":"m","max_completion_tokens":5,"tool_choice":{"type":"function","function":{"name":"f"}},
			"parallel_tool_calls":false,"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{}}}}],
			"messages":[{"role":"user","content":"x"}]}`,
		model: "m",
	}, {
		// Structured outputs (https://platform.claude.com/docs/en/build-with-claude/structured-outputs):
		// output_config.format json_schema, as LangChain's ChatAnthropic
		// withStructuredOutput(…, {method: "jsonSchema"}) and the Anthropic
		// SDK's messages.parse send it; Anthropic answers the JSON as text,
		// as an OpenAI or Gemini model does under response_format.
		name: "structured output",
		in: `{"model":"m","max_tokens":200,"output_config":{"effort":"low","format":{"type":"json_schema",
			"schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}}},
			"messages":[{"role":"user","content":"x"}]}`,
		want: `{"model":"m","max_completion_tokens":200,"messages":[{"role":"user","content":"x"}],
			"response_format":{"type":"json_schema","json_schema":{"name":"output",
			"schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false}}}}`,
		model: "m",
	}, {
		// The structured-outputs beta's name for the same member.
		name: "structured output beta",
		in: `{"model":"m","max_tokens":200,"output_format":{"type":"json_schema","schema":{"type":"object"}},
			"messages":[{"role":"user","content":"x"}]}`,
		want: `{"model":"m","max_completion_tokens":200,"messages":[{"role":"user","content":"x"}],
			"response_format":{"type":"json_schema","json_schema":{"name":"output","schema":{"type":"object"}}}}`,
		model: "m",
	}, {
		name:  "tool choice without tools",
		in:    `{"model":"m","max_tokens":5,"tool_choice":{"type":"none"},"messages":[{"role":"user","content":"x"}]}`,
		want:  `{"model":"m","max_completion_tokens":5,"messages":[{"role":"user","content":"x"}]}`,
		model: "m",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Translate([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if got.Model != tc.model || got.Stream != tc.stream {
				t.Errorf("model %q stream %v; want %q %v", got.Model, got.Stream, tc.model, tc.stream)
			}
			adaptertest.SameJSON(t, got.Body, []byte(tc.want))
		})
	}
}

// TestTranslateErrors checks that bad input names its field and that
// valid input only Anthropic can serve is refused as Unsupported, with the
// model and stream flag still read.
func TestTranslateErrors(t *testing.T) {
	const msgs = `"messages":[{"role":"user","content":"x"}]`
	for _, tc := range []struct {
		in, field   string
		unsupported bool
	}{
		{`[1]`, "", false},
		{`{"model":"m",` + msgs + `}`, "max_tokens", false},
		{`{"max_tokens":5,` + msgs + `}`, "model", false},
		{`{"model":"m","max_tokens":-1,` + msgs + `}`, "max_tokens", false},
		// Review 62c: 0 fills Anthropic's prompt cache; only Claude serves it.
		{`{"model":"m","max_tokens":0,` + msgs + `}`, "max_tokens", true},
		{`{"model":"m","max_tokens":"5",` + msgs + `}`, "max_tokens", false},
		{`{"model":"m","max_tokens":5}`, "messages", false},
		{`{"model":"m","max_tokens":5,"messages":[]}`, "messages", false},
		{`{"model":"m","max_tokens":5,"messages":[{"role":"tool","content":"x"}]}`, "messages.0.role", false},
		{`{"model":"m","max_tokens":5,"messages":[{"role":"user"}]}`, "messages.0.content", false},
		{`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":7}]}`, "messages.0.content", false},
		{`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"text"}]}]}`, "messages.0.content.0.text", false},
		{`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","data":"AA"}}]}]}`,
			"messages.0.content.0.source.media_type", false},
		{`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"tool_result"}]}]}`,
			"messages.0.content.0.tool_use_id", false},
		{`{"model":"m","max_tokens":5,"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":[1]}]}]}`,
			"messages.0.content.0.input", false},
		{`{"model":"m","max_tokens":5,"system":[{"type":"image"}],` + msgs + `}`, "system.0", false},
		// encoding/json's paths leave list indexes out; the door puts them in.
		{`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"},{"role":1,"content":"y"}]}`, "messages.1.role", false},
		{`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":7}]}]}`,
			"messages.0.content.1.type", false},
		{`{"model":"m","max_tokens":5,"tools":[{"name":"f","input_schema":{}},{"name":false}],` + msgs + `}`, "tools.1.name", false},
		{`{"model":"m","max_tokens":5,"tools":[{"name":"f"}],` + msgs + `}`, "tools.0.input_schema", false},
		{`{"model":"m","max_tokens":5,"tools":[{"name":"f","input_schema":{}}],"tool_choice":{"type":"tool"},` + msgs + `}`,
			"tool_choice.name", false},
		{`{"model":"m","max_tokens":5,"tools":[{"name":"f","input_schema":{}}],"tool_choice":{"type":"sometimes"},` + msgs + `}`,
			"tool_choice.type", false},
		{`{"model":"m","max_tokens":5,"tools":[{"type":"web_search_20250305","name":"web_search"}],` + msgs + `}`, "tools.0.type", true},
		{`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"document","source":{"type":"url","url":"https://example.com/a.pdf"}}]}]}`,
			"messages.0.content.0.source", true},
		// A PDF whose citations are asked for: only Claude cites.
		{`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjQK"},"citations":{"enabled":true}}]}]}`,
			"messages.0.content.0.citations", true},
		{`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"file","file_id":"f"}}]}]}`,
			"messages.0.content.0.source.type", true},
		{`{"model":"m","max_tokens":5,"mcp_servers":[{"type":"url","url":"https://x","name":"x"}],` + msgs + `}`, "mcp_servers", true},
		// A search_result block names its source as a URL string
		// (anthropic-sdk-go's SearchResultBlockParam.Source): translated
		// as text since round 50, but with citations enabled only
		// Anthropic serves it, so a route's Claude target still can.
		{`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"search_result","source":"https://docs.example.com/api","title":"API","content":[{"type":"text","text":"t"}],"citations":{"enabled":true}}]}]}`,
			"messages.0.content.0.citations", true},
		{`{"model":"m","max_tokens":5,"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":[{"type":"search_result","source":"https://docs.example.com/api","title":"API","content":[{"type":"text","text":"t"}],"citations":{"enabled":true}}]}]}]}`,
			"messages.1.content.0.content.0.citations", true},
		// An image's source must still be an object.
		{`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":[{"type":"image","source":"https://x/y.png"}]}]}`,
			"messages.0.content.0.source", false},
		// Structured output translates (TestTranslate); a format it does
		// not know is Anthropic's to judge, a json_schema without a schema
		// is malformed, and so is the format given under both names.
		{`{"model":"m","max_tokens":5,"output_config":{"format":{"type":"xml"}},` + msgs + `}`, "output_config.format.type", true},
		{`{"model":"m","max_tokens":5,"output_config":{"format":{"type":"json_schema"}},` + msgs + `}`, "output_config.format.schema", false},
		{`{"model":"m","max_tokens":5,"output_config":{"format":{"type":"json_schema","schema":"x"}},` + msgs + `}`, "output_config.format.schema", false},
		{`{"model":"m","max_tokens":5,"output_format":{"type":"json_schema","schema":{}},"output_config":{"format":{"type":"json_schema","schema":{}}},` + msgs + `}`,
			"output_format", false},
		// A server-side thread (the Anthropic SDK's tool runner): only
		// Anthropic holds the conversation a "continue" adds to, and a
		// "create" is followed by one.
		{`{"model":"m","max_tokens":5,"thread":{"type":"create"},` + msgs + `}`, "thread", true},
		{`{"model":"m","max_tokens":5,"thread":{"type":"continue","previous_message_id":"msg_1"},` + msgs + `}`, "thread", true},
		// A compaction request asks for a summary of the conversation
		// instead of an answer (the Anthropic SDK 1.14 types it): a
		// translated target would answer it.
		{`{"model":"m","max_tokens":5,"compaction":{},` + msgs + `}`, "compaction", true},
	} {
		got, err := Translate([]byte(tc.in))
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: err = %v, want an *Error", tc.in, err)
			continue
		}
		if e.Field != tc.field || e.Unsupported != tc.unsupported {
			t.Errorf("%s: field %q unsupported %v (%v); want %q %v", tc.in, e.Field, e.Unsupported, e, tc.field, tc.unsupported)
		}
		if got.Body != nil {
			t.Errorf("%s: body on error", tc.in)
		}
		if tc.unsupported && got.Model != "m" {
			t.Errorf("%s: model %q not read on an unsupported request", tc.in, got.Model)
		}
		if !strings.HasPrefix(e.Error(), tc.field) {
			t.Errorf("%s: message %q does not start with the field", tc.in, e.Error())
		}
	}
}

package responses

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/anthropic"
	"github.com/detour-llm/detour/internal/provider/chat"
	"github.com/detour-llm/detour/internal/provider/gemini"
)

// jsonEqual reports whether a and b hold the same JSON value.
func jsonEqual(t testing.TB, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%v: %s", err, a)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	return reflect.DeepEqual(x, y)
}

// translateCases are request examples published in OpenAI's Responses
// documentation (source in each name's comment) and the canonical chat
// body each must become.
var translateCases = []struct {
	name, in, want string
}{
	{
		// https://platform.openai.com/docs/api-reference/responses/create (Text input)
		"string input",
		`{"model":"gpt-4.1","input":"Tell me a three sentence bedtime story about a unicorn."}`,
		`{"model":"gpt-4.1","messages":[{"role":"user","content":"Tell me a three sentence bedtime story about a unicorn."}]}`,
	},
	{
		// https://platform.openai.com/docs/guides/text (Message roles and instruction following)
		"instructions",
		`{"model":"gpt-4.1","instructions":"Talk like a pirate.","input":"Are semicolons optional in JavaScript?"}`,
		`{"model":"gpt-4.1","messages":[{"role":"system","content":"Talk like a pirate."},{"role":"user","content":"Are semicolons optional in JavaScript?"}]}`,
	},
	{
		// https://platform.openai.com/docs/api-reference/responses/create (Image input)
		"image input",
		`{"model":"gpt-4.1","input":[{"role":"user","content":[{"type":"input_text","text":"what is in this image?"},{"type":"input_image","image_url":"https://upload.wikimedia.org/wikipedia/commons/thumb/d/dd/Gfp-wisconsin-madison-the-nature-boardwalk.jpg/2560px-Gfp-wisconsin-madison-the-nature-boardwalk.jpg"}]}]}`,
		`{"model":"gpt-4.1","messages":[{"role":"user","content":[{"type":"text","text":"what is in this image?"},{"type":"image_url","image_url":{"url":"https://upload.wikimedia.org/wikipedia/commons/thumb/d/dd/Gfp-wisconsin-madison-the-nature-boardwalk.jpg/2560px-Gfp-wisconsin-madison-the-nature-boardwalk.jpg"}}]}]}`,
	},
	{
		// https://platform.openai.com/docs/api-reference/responses/create (Functions)
		"function tools",
		`{"model":"gpt-4.1","input":"What is the weather like in Boston today?","tools":[{"type":"function","name":"get_current_weather","description":"Get the current weather in a given location","parameters":{"type":"object","properties":{"location":{"type":"string","description":"The city and state, e.g. San Francisco, CA"},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["location","unit"]}}],"tool_choice":"auto"}`,
		`{"model":"gpt-4.1","messages":[{"role":"user","content":"What is the weather like in Boston today?"}],"tools":[{"type":"function","function":{"name":"get_current_weather","description":"Get the current weather in a given location","parameters":{"type":"object","properties":{"location":{"type":"string","description":"The city and state, e.g. San Francisco, CA"},"unit":{"type":"string","enum":["celsius","fahrenheit"]}},"required":["location","unit"]}}}],"tool_choice":"auto"}`,
	},
	{
		// https://platform.openai.com/docs/guides/function-calling (the
		// get_weather round trip: the model's function_call item and the
		// client's function_call_output appended to the input)
		"function call round trip",
		`{"model":"gpt-4.1","input":[{"role":"user","content":"What's the weather like in Paris today?"},{"type":"function_call","id":"fc_12345xyz","call_id":"call_12345xyz","name":"get_weather","arguments":"{\"latitude\":48.8566,\"longitude\":2.3522}"},{"type":"function_call_output","call_id":"call_12345xyz","output":"15.3"}],"tools":[{"type":"function","name":"get_weather","description":"Get current temperature for provided coordinates in celsius.","parameters":{"type":"object","properties":{"latitude":{"type":"number"},"longitude":{"type":"number"}},"required":["latitude","longitude"],"additionalProperties":false},"strict":true}]}`,
		`{"model":"gpt-4.1","messages":[{"role":"user","content":"What's the weather like in Paris today?"},{"role":"assistant","content":null,"tool_calls":[{"id":"call_12345xyz","type":"function","function":{"name":"get_weather","arguments":"{\"latitude\":48.8566,\"longitude\":2.3522}"}}]},{"role":"tool","tool_call_id":"call_12345xyz","content":"15.3"}],"tools":[{"type":"function","function":{"name":"get_weather","description":"Get current temperature for provided coordinates in celsius.","parameters":{"type":"object","properties":{"latitude":{"type":"number"},"longitude":{"type":"number"}},"required":["latitude","longitude"],"additionalProperties":false},"strict":true}}]}`,
	},
	{
		// https://platform.openai.com/docs/guides/function-calling
		// (allowed tools: a subset of the tools offered, the list kept for
		// the prompt cache; openai-go responses.ToolChoiceAllowedParam)
		"allowed tools choice",
		`{"model":"gpt-5","input":"hi","tools":[{"type":"function","name":"get_weather"},{"type":"function","name":"get_time"}],"tool_choice":{"type":"allowed_tools","mode":"required","tools":[{"type":"function","name":"get_weather"}]}}`,
		`{"model":"gpt-5","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"get_weather"}},{"type":"function","function":{"name":"get_time"}}],"tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"required","tools":[{"type":"function","function":{"name":"get_weather"}}]}}}`,
	},
	{
		// https://platform.openai.com/docs/guides/pdf-files (Base64-encoded
		// files: an input_file part with filename and a data: URL)
		"input file",
		`{"model":"gpt-5","input":[{"role":"user","content":[{"type":"input_file","filename":"draconomicon.pdf","file_data":"data:application/pdf;base64,JVBERi0xLjQK"},{"type":"input_text","text":"What is the first dragon in the book?"}]}]}`,
		`{"model":"gpt-5","messages":[{"role":"user","content":[{"type":"file","file":{"file_data":"data:application/pdf;base64,JVBERi0xLjQK","filename":"draconomicon.pdf"}},{"type":"text","text":"What is the first dragon in the book?"}]}]}`,
	},
	{
		// A tool that returned a PDF (@ai-sdk/openai's
		// convertFunctionToolResultOutput, pydantic-ai's
		// _map_tool_return_output: an input_file in the output; review
		// 48c): its text is the tool message, its file follows the run of
		// tool messages, as its images do.
		"tool output file",
		`{"model":"gpt-5","input":[{"role":"user","content":"Fetch the invoice."},{"type":"function_call","call_id":"c1","name":"fetch","arguments":"{}"},{"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"INV-7"},{"type":"input_file","filename":"INV-7.pdf","file_data":"data:application/pdf;base64,JVBERi0xLjQK"}]}]}`,
		`{"model":"gpt-5","messages":[{"role":"user","content":"Fetch the invoice."},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"fetch","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"INV-7"},{"role":"user","content":[{"type":"file","file":{"file_data":"data:application/pdf;base64,JVBERi0xLjQK","filename":"INV-7.pdf"}}]}]}`,
	},
	{
		// https://platform.openai.com/docs/guides/structured-outputs (calendar_event)
		"json schema",
		`{"model":"gpt-4o-2024-08-06","input":[{"role":"system","content":"Extract the event information."},{"role":"user","content":"Alice and Bob are going to a science fair on Friday."}],"text":{"format":{"type":"json_schema","name":"calendar_event","schema":{"type":"object","properties":{"name":{"type":"string"},"date":{"type":"string"},"participants":{"type":"array","items":{"type":"string"}}},"required":["name","date","participants"],"additionalProperties":false},"strict":true}}}`,
		`{"model":"gpt-4o-2024-08-06","messages":[{"role":"system","content":"Extract the event information."},{"role":"user","content":"Alice and Bob are going to a science fair on Friday."}],"response_format":{"type":"json_schema","json_schema":{"name":"calendar_event","schema":{"type":"object","properties":{"name":{"type":"string"},"date":{"type":"string"},"participants":{"type":"array","items":{"type":"string"}}},"required":["name","date","participants"],"additionalProperties":false},"strict":true}}}`,
	},
	{
		// https://platform.openai.com/docs/guides/reasoning (reasoning effort);
		// parallel_tool_calls without tools is not sent (Chat Completions
		// refuses it).
		"reasoning effort and sampling",
		`{"model":"o4-mini","reasoning":{"effort":"medium","summary":"auto"},"input":[{"role":"developer","content":[{"type":"input_text","text":"Answer briefly."},{"type":"input_text","text":"Use bash."}]},{"role":"user","content":"Write a bash script that transposes a matrix."}],"max_output_tokens":300,"temperature":0.2,"top_p":0.9,"parallel_tool_calls":false,"user":"user-1234","metadata":{"team":"a"},"store":false,"stream":true}`,
		`{"model":"o4-mini","messages":[{"role":"developer","content":"Answer briefly.\nUse bash."},{"role":"user","content":"Write a bash script that transposes a matrix."}],"reasoning_effort":"medium","max_completion_tokens":300,"temperature":0.2,"top_p":0.9,"user":"user-1234","stream":true,"stream_options":{"include_usage":true}}`,
	},
	{
		// An assistant turn replayed with its output_text, then a named
		// function choice (https://platform.openai.com/docs/guides/function-calling#tool-choice).
		"assistant turn and forced function",
		`{"model":"gpt-4.1","input":[{"role":"user","content":"hi"},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hello!","annotations":[]}]},{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},{"type":"reasoning","id":"rs_1","summary":[]},{"type":"function_call_output","call_id":"c1","output":[{"type":"input_text","text":"done"}]}],"tools":[{"type":"function","name":"f","parameters":{"type":"object"}}],"tool_choice":{"type":"function","name":"f"}}`,
		`{"model":"gpt-4.1","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"Hello!","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"done"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}],"tool_choice":{"type":"function","function":{"name":"f"}}}`,
	},
}

func TestTranslate(t *testing.T) {
	for _, c := range translateCases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Translate([]byte(c.in))
			if err != nil {
				t.Fatal(err)
			}
			if !jsonEqual(t, r.Chat, []byte(c.want)) {
				t.Fatalf("chat body\n got %s\nwant %s", r.Chat, c.want)
			}
			var in struct {
				Model  string `json:"model"`
				Stream bool   `json:"stream"`
			}
			_ = json.Unmarshal([]byte(c.in), &in)
			if r.Model != in.Model || r.Stream != in.Stream {
				t.Fatalf("model %q stream %v", r.Model, r.Stream)
			}
			// Every translating adapter accepts the canonical body.
			req := &provider.Request{Body: r.Chat, Stream: r.Stream}
			if _, err := chat.Parse(req); err != nil {
				t.Fatalf("chat.Parse: %v", err)
			}
			if _, err := anthropic.Translate(req, "claude-sonnet-4-5"); err != nil {
				t.Fatalf("anthropic.Translate: %v", err)
			}
			if _, err := gemini.Translate(req); err != nil {
				t.Fatalf("gemini.Translate: %v", err)
			}
		})
	}
}

func TestTranslateRefuses(t *testing.T) {
	const base = `"model":"m","input":"hi"`
	cases := []struct {
		name, in, param, code, mention string
	}{
		{"store", `{` + base + `,"store":true}`, "store", "unsupported_parameter", "stateless"},
		{"previous response", `{` + base + `,"previous_response_id":"resp_1"}`, "previous_response_id", "unsupported_parameter", "stateless"},
		{"conversation", `{` + base + `,"conversation":"conv_1"}`, "conversation", "unsupported_parameter", "stateless"},
		{"background", `{` + base + `,"background":true}`, "background", "unsupported_parameter", "stateless"},
		{"stored prompt", `{` + base + `,"prompt":{"id":"pmpt_1"}}`, "prompt", "unsupported_parameter", "stateless"},
		{"item reference", `{"model":"m","input":[{"type":"item_reference","id":"msg_1"}]}`, "input[0]", "unsupported_parameter", "stateless"},
		// The Vercel AI SDK's OpenAI provider refers to earlier answers
		// unless told not to store them: the message says how.
		{"item reference remedy", `{"model":"m","input":[{"type":"item_reference","id":"msg_1"}]}`, "input[0]", "unsupported_parameter", "providerOptions: { openai: { store: false } }"},
		{"file search tool", `{` + base + `,"tools":[{"type":"function","name":"f"},{"type":"file_search","vector_store_ids":["vs_1"]}]}`, "tools[1].type", "unsupported_parameter", "built-in tools"},
		{"custom tool", `{` + base + `,"tools":[{"type":"custom","name":"exec","format":{"type":"grammar"}}]}`, "tools[0].type", "unsupported_parameter", "codex -m <route>"},
		{"custom tool in additional_tools", `{"model":"m","input":[{"type":"additional_tools","tools":[{"type":"namespace","name":"functions","tools":[{"type":"custom","name":"exec"}]}]},{"role":"user","content":"hi"}]}`,
			"input[0].tools[0].tools[0].type", "unsupported_parameter", "grammar"},
		{"namespace name too long", `{` + base + `,"tools":[{"type":"namespace","name":"` + strings.Repeat("n", 60) + `","tools":[{"type":"function","name":"wait"}]}]}`,
			"tools[0].tools[0].name", "unsupported_parameter", "64"},
		{"flattened name taken", `{` + base + `,"tools":[{"type":"function","name":"ns__f"},{"type":"namespace","name":"ns","tools":[{"type":"function","name":"f"}]}]}`,
			"tools[1].tools[0].name", "invalid_value", "twice"},
		{"built-in tool choice", `{` + base + `,"tool_choice":{"type":"web_search_preview"}}`, "tool_choice", "unsupported_parameter", "function tools only"},
		{"built-in tool allowed", `{` + base + `,"tool_choice":{"type":"allowed_tools","mode":"auto","tools":[{"type":"function","name":"f"},{"type":"mcp","server_label":"deepwiki"}]}}`, "tool_choice", "unsupported_parameter", "tools[1]"},
		{"allowed tools without mode", `{` + base + `,"tool_choice":{"type":"allowed_tools","tools":[{"type":"function","name":"f"}]}}`, "tool_choice", "invalid_value", "mode"},
		{"image by file id", `{"model":"m","input":[{"role":"user","content":[{"type":"input_image","file_id":"file-1"}]}]}`, "input[0].content[0]", "unsupported_parameter", "file_id"},
		{"input file", `{"model":"m","input":[{"role":"user","content":[{"type":"input_file","file_id":"file-1"}]}]}`, "input[0].content[0]", "unsupported_parameter", "input_file"},
		{"input file by url", `{"model":"m","input":[{"role":"user","content":[{"type":"input_file","file_url":"https://www.berkshirehathaway.com/letters/2024ltr.pdf"}]}]}`, "input[0].content[0]", "unsupported_parameter", "file_url"},
		{"computer call item", `{"model":"m","input":[{"type":"computer_call_output","call_id":"c"}]}`, "input[0].type", "unsupported_parameter", "computer_call_output"},
		{"no input", `{"model":"m"}`, "input", "invalid_value", "required"},
		{"bad role", `{"model":"m","input":[{"role":"tool","content":"x"}]}`, "input[0].role", "invalid_value", "role"},
		{"not json", `{"model":`, "", "invalid_value", "request body"},
		{"bad tool choice", `{` + base + `,"tool_choice":"sometimes"}`, "tool_choice", "invalid_value", "sometimes"},
		{"unknown format", `{` + base + `,"text":{"format":{"type":"grammar"}}}`, "text.format", "unsupported_parameter", "grammar"},
		// Echoed in the response, where the SDKs read a map (review 30a).
		{"metadata not an object", `{` + base + `,"metadata":5}`, "metadata", "invalid_value", "object"},
		{"metadata a list", `{` + base + `,"metadata":["a"]}`, "metadata", "invalid_value", "object"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := Translate([]byte(c.in))
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("got %v, %v; want *Error", r, err)
			}
			if e.Param != c.param || e.Code != c.code || !strings.Contains(e.Message, c.mention) {
				t.Fatalf("got param %q code %q message %q", e.Param, e.Code, e.Message)
			}
		})
	}
}

// TestTranslateStoreFalseIsFine: clients that opt out of storage (Codex CLI
// sends "store": false) are served.
func TestTranslateStoreFalseIsFine(t *testing.T) {
	if _, err := Translate([]byte(`{"model":"m","input":"hi","store":false,"previous_response_id":null}`)); err != nil {
		t.Fatal(err)
	}
}

func TestEnvelope(t *testing.T) {
	got := Envelope("invalid_request_error", "unsupported_parameter", "no \"store\"", "store")
	want := `{"error":{"message":"no \"store\"","type":"invalid_request_error","code":"unsupported_parameter","param":"store"}}`
	if string(got) != want {
		t.Fatalf("got %s", got)
	}
	if got := Envelope("server_error", "", "x", ""); !strings.Contains(string(got), `"param":null`) {
		t.Fatalf("empty param: %s", got)
	}
}

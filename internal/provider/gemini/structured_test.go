package gemini

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// Gemini 2.x answers a request with functionDeclarations and
// responseMimeType "application/json" with 400 INVALID_ARGUMENT "Function
// calling with a response mime type: 'application/json' is unsupported"
// (google-gemini/deprecated-generative-ai-swift#195; gemini-2.5-flash
// through the OpenAI Agents SDK, openai/openai-agents-python#656;
// googleapis/python-genai#867), while Gemini 3 models take the pair
// (simstudioai/sim#4184 keeps the schema beside tools only for Gemini 3).
// The OpenAI Agents SDK sends tools and a json_schema response_format on
// every turn of an agent with an output_type; this is its body.
const c47gAgentTools = `[{"type":"function","function":{"name":"get_current_temperature","description":"Get the temperature","parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"],"additionalProperties":false},"strict":true}}]`

const c47gSchema = `{"type":"object","properties":{"city":{"type":"string"},"celsius":{"type":"number"}},"required":["city","celsius"],"additionalProperties":false}`

const c47gClientDecl = `{"name":"get_current_temperature","description":"Get the temperature","parametersJsonSchema":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"],"additionalProperties":false}}`

const c47gContents = `"systemInstruction":{"parts":[{"text":"You report temperatures."}]},"contents":[{"role":"user","parts":[{"text":"How warm is London?"}]}]`

func c47gBody(extra string) string {
	if strings.Contains(extra, `"messages"`) {
		return `{"model":"route",` + extra + `}`
	}
	return `{"model":"route","messages":[{"role":"system","content":"You report temperatures."},{"role":"user","content":"How warm is London?"}],` + extra + `}`
}

// For a model before Gemini 3, the structured answer travels as a reserved
// function beside the client's (as the Anthropic adapter asks Claude,
// docs/doors.md "Structured output on Claude targets"): no responseMimeType
// nor responseJsonSchema, mode ANY so the model calls the client's
// functions or answers. Gemini 3 keeps the pair it takes.
func TestC47gToolsWithStructuredOutputTranslate(t *testing.T) {
	jsonSchema := `"response_format":{"type":"json_schema","json_schema":{"name":"final_output","strict":true,"schema":` + c47gSchema + `}}`
	answerDecl := `{"name":"detour_json_answer","description":"Call this function to give your final answer: its arguments are the answer, a JSON object that follows the schema.","parametersJsonSchema":` + c47gSchema + `}`
	reserved := `{` + c47gContents + `,"tools":[{"functionDeclarations":[` + c47gClientDecl + `,` + answerDecl + `]}],"toolConfig":{"functionCallingConfig":{"mode":"ANY"}}}`
	for _, tc := range []struct {
		name, model, in, want string
	}{
		{"2.5 json_schema", "gemini-2.5-flash", `"tools":` + c47gAgentTools + `,` + jsonSchema, reserved},
		{"models/ prefix", "models/gemini-2.0-flash", `"tools":` + c47gAgentTools + `,` + jsonSchema, reserved},
		{"1.5", "gemini-1.5-pro", `"tools":` + c47gAgentTools + `,` + jsonSchema, reserved},
		{"no model named", "", `"tools":` + c47gAgentTools + `,` + jsonSchema, reserved},
		{"tool_choice auto", "gemini-2.5-pro", `"tools":` + c47gAgentTools + `,"tool_choice":"auto",` + jsonSchema, reserved},
		{"json_object", "gemini-2.5-flash", `"tools":` + c47gAgentTools + `,"response_format":{"type":"json_object"}`,
			`{` + c47gContents + `,"tools":[{"functionDeclarations":[` + c47gClientDecl + `,{"name":"detour_json_answer","description":"Call this function to give your final answer: its arguments are the answer, a JSON object that follows the schema.","parametersJsonSchema":{"type":"object"}}]}],"toolConfig":{"functionCallingConfig":{"mode":"ANY"}}}`},
		{"array schema wrapped", "gemini-2.5-flash", `"tools":` + c47gAgentTools + `,"response_format":{"type":"json_schema","json_schema":{"name":"cities","schema":{"type":"array","items":{"type":"string"}}}}`,
			`{` + c47gContents + `,"tools":[{"functionDeclarations":[` + c47gClientDecl + `,{"name":"detour_json_value","description":"Call this function to give your final answer: its \"value\" is the answer, a JSON value that follows the schema.","parametersJsonSchema":{"type":"object","properties":{"value":{"type":"array","items":{"type":"string"}}},"required":["value"]}}]}],"toolConfig":{"functionCallingConfig":{"mode":"ANY"}}}`},
		{"tool_choice none forces the answer", "gemini-2.5-flash", `"tools":` + c47gAgentTools + `,"tool_choice":"none",` + jsonSchema,
			`{` + c47gContents + `,"tools":[{"functionDeclarations":[` + c47gClientDecl + `,` + answerDecl + `]}],"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["detour_json_answer"]}}}`},
		{"tool_choice required: tool calls, no mime type", "gemini-2.5-flash", `"tools":` + c47gAgentTools + `,"tool_choice":"required",` + jsonSchema,
			`{` + c47gContents + `,"tools":[{"functionDeclarations":[` + c47gClientDecl + `]}],"toolConfig":{"functionCallingConfig":{"mode":"ANY"}}}`},
		{"gemini 3 takes the pair", "gemini-3-pro-preview", `"tools":` + c47gAgentTools + `,` + jsonSchema,
			`{` + c47gContents + `,"tools":[{"functionDeclarations":[` + c47gClientDecl + `]}],"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":` + c47gSchema + `}}`},
		{"models/gemini-3", "models/gemini-3-flash-preview", `"tools":` + c47gAgentTools + `,"response_format":{"type":"json_object"}`,
			`{` + c47gContents + `,"tools":[{"functionDeclarations":[` + c47gClientDecl + `]}],"generationConfig":{"responseMimeType":"application/json"}}`},
		{"no tools: native", "gemini-2.5-flash", jsonSchema,
			`{` + c47gContents + `,"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":` + c47gSchema + `}}`},
		{"prefill: no answer function, no mime type", "gemini-2.5-flash", `"tools":` + c47gAgentTools + `,` + jsonSchema + `,"messages":[{"role":"system","content":"You report temperatures."},{"role":"user","content":"How warm is London?"},{"role":"assistant","content":"{\"city\":"}]`,
			`{` + c47gContents[:len(c47gContents)-1] + `,{"role":"model","parts":[{"text":"{\"city\":"}]}],"tools":[{"functionDeclarations":[` + c47gClientDecl + `]}]}`},
		{"text format: nothing", "gemini-2.5-flash", `"tools":` + c47gAgentTools + `,"response_format":{"type":"text"}`,
			`{` + c47gContents + `,"tools":[{"functionDeclarations":[` + c47gClientDecl + `]}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := TranslateFor(adaptertest.ClientRequest(t, []byte(c47gBody(tc.in))), tc.model)
			if err != nil {
				t.Fatal(err)
			}
			adaptertest.SameJSON(t, got, []byte(tc.want))
		})
	}
}

// A client function may not take a reserved name: its calls would come
// back as the message content. A translation error, so the route moves on.
func TestC47gReservedFunctionNameRefused(t *testing.T) {
	for _, name := range []string{"detour_json_answer", "detour_json_value"} {
		body := `{"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"` + name + `"}}]}`
		if _, err := TranslateFor(&provider.Request{Body: []byte(body)}, "gemini-2.5-flash"); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: err = %v", name, err)
		}
		body = `{"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":{"type":"function","function":{"name":"` + name + `"}}}`
		if _, err := TranslateFor(&provider.Request{Body: []byte(body)}, "gemini-2.5-flash"); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("tool_choice %s: err = %v", name, err)
		}
	}
}

type c47gCompletion struct {
	Choices []struct {
		Index        int    `json:"index"`
		FinishReason string `json:"finish_reason"`
		Message      struct {
			Content   *string `json:"content"`
			ToolCalls []struct {
				Function struct{ Name, Arguments string } `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
	} `json:"choices"`
}

// A whole answer: the reserved function's call is the message content
// (compact JSON text; detour_json_value's "value"), finish_reason stop;
// text beside it is dropped (the content must parse); a call of the
// client's functions stays a tool call and the finish is tool_calls.
func TestC47gResponseReservedCall(t *testing.T) {
	for _, tc := range []struct {
		name, parts, finish, content string
		calls                        []string
	}{
		{"answer", `{"functionCall":{"name":"detour_json_answer","args":{"city": "London", "celsius": 14}}}`, "stop", `{"city":"London","celsius":14}`, nil},
		{"answer with text and a signature", `{"text":"Here it is."},{"functionCall":{"name":"detour_json_answer","args":{"city":"London","celsius":14}},"thoughtSignature":"c2ln"}`, "stop", `{"city":"London","celsius":14}`, nil},
		{"value", `{"functionCall":{"name":"detour_json_value","args":{"value":["London","Paris"]}}}`, "stop", `["London","Paris"]`, nil},
		{"second answer dropped", `{"functionCall":{"name":"detour_json_answer","args":{"a":1}}},{"functionCall":{"name":"detour_json_answer","args":{"a":2}}}`, "stop", `{"a":1}`, nil},
		{"client call beside", `{"functionCall":{"name":"get_current_temperature","args":{"location":"London"}}},{"functionCall":{"name":"detour_json_answer","args":{"a":1}}}`, "tool_calls", `{"a":1}`, []string{"get_current_temperature"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Adapter{}.Response([]byte(`{"candidates":[{"content":{"role":"model","parts":[`+tc.parts+`]},"finishReason":"STOP","index":0}],"modelVersion":"gemini-2.5-flash"}`), testEP)
			if err != nil {
				t.Fatal(err)
			}
			var c c47gCompletion
			if err := json.Unmarshal(out, &c); err != nil || len(c.Choices) != 1 {
				t.Fatalf("%s: %v", out, err)
			}
			ch := c.Choices[0]
			var names []string
			for _, call := range ch.Message.ToolCalls {
				names = append(names, call.Function.Name)
			}
			if ch.FinishReason != tc.finish || ch.Message.Content == nil || *ch.Message.Content != tc.content || strings.Join(names, ",") != strings.Join(tc.calls, ",") {
				t.Fatalf("got %s", out)
			}
		})
	}
}

// A streamed answer: Gemini streams a function call whole, in one chunk;
// the reserved call is one content delta, no tool_calls, finish_reason
// stop, then the usage; a client call in the same stream stays a tool call.
func TestC47gStreamReservedCall(t *testing.T) {
	in := "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"detour_json_answer\",\"args\":{\"city\":\"London\",\"celsius\":14}},\"thoughtSignature\":\"c2ln\"}]},\"index\":0}],\"modelVersion\":\"gemini-2.5-flash\",\"responseId\":\"r1\"}\n\n" +
		"data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"\"}]},\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":40,\"candidatesTokenCount\":12,\"totalTokenCount\":52},\"modelVersion\":\"gemini-2.5-flash\",\"responseId\":\"r1\"}\n\n"
	got := adaptertest.Events(t, testStream(strings.NewReader(in)))
	var content strings.Builder
	var finish []string
	for _, ev := range got {
		for _, ch := range ev.Chunks {
			var c struct {
				Choices []struct {
					Delta struct {
						Content   *string           `json:"content"`
						ToolCalls []json.RawMessage `json:"tool_calls"`
					} `json:"delta"`
					FinishReason *string `json:"finish_reason"`
				} `json:"choices"`
			}
			if err := json.Unmarshal(ch, &c); err != nil {
				t.Fatal(err)
			}
			for _, cc := range c.Choices {
				if len(cc.Delta.ToolCalls) > 0 {
					t.Fatalf("tool call chunk: %s", ch)
				}
				if cc.Delta.Content != nil {
					content.WriteString(*cc.Delta.Content)
				}
				if cc.FinishReason != nil {
					finish = append(finish, *cc.FinishReason)
				}
			}
		}
	}
	if !got[0].Content || content.String() != `{"city":"London","celsius":14}` || strings.Join(finish, ",") != "stop" || !got[len(got)-1].Done {
		t.Fatalf("content %q, finish %v: %+v", content.String(), finish, got)
	}

	in = "data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"functionCall\":{\"name\":\"get_current_temperature\",\"args\":{\"location\":\"London\"}}},{\"functionCall\":{\"name\":\"detour_json_value\",\"args\":{\"value\":[1,2]}}}]},\"finishReason\":\"STOP\",\"index\":0}]}\n\n"
	rec := string(adaptertest.Record(t, testStream(strings.NewReader(in))))
	if !strings.Contains(rec, `"name":"get_current_temperature"`) || !strings.Contains(rec, `"content":"[1,2]"`) ||
		strings.Contains(rec, `"name":"detour_json_value"`) || !strings.Contains(rec, `"finish_reason":"tool_calls"`) {
		t.Fatalf("client call beside the answer: %s", rec)
	}
}

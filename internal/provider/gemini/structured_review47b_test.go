package gemini

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// review47b: findings on c66b20d (the answer function beside the client's
// functions on models before Gemini 3). See /work/review47b/REPORT.md.

type r47bDecl struct {
	Name   string          `json:"name"`
	Params json.RawMessage `json:"parametersJsonSchema"`
}

type r47bReq struct {
	Tools []struct {
		FunctionDeclarations []r47bDecl `json:"functionDeclarations"`
	} `json:"tools"`
	ToolConfig *struct {
		FunctionCallingConfig struct {
			Mode string `json:"mode"`
		} `json:"functionCallingConfig"`
	} `json:"toolConfig"`
	GenerationConfig *struct {
		ResponseMimeType string `json:"responseMimeType"`
	} `json:"generationConfig"`
}

func r47bTranslate(t *testing.T, body, model string) r47bReq {
	t.Helper()
	got, err := TranslateFor(adaptertest.ClientRequest(t, []byte(body)), model)
	if err != nil {
		t.Fatal(err)
	}
	var r r47bReq
	if err := json.Unmarshal(got, &r); err != nil {
		t.Fatalf("%s: %v", got, err)
	}
	return r
}

// Finding 1. The answer function switches a request the client left on
// AUTO to mode ANY. Gemini answers mode ANY beside a function declared
// without parameters with 400 INVALID_ARGUMENT "Request contains an
// invalid argument." (googleapis/python-genai#981, gemini-2.0-flash; met by
// Pydantic AI users exactly with a parameterless tool and an output_type,
// pydantic/pydantic-ai#1990), and livekit/agents#2689 reports the same 400
// under ANY for parameters without "type":"object". A client's parameterless
// function (OpenAI takes one: parameters is optional) is sent without
// parametersJsonSchema, so the detour builds a request Gemini refuses, a
// bad_request that ends the route. Under ANY every declaration should carry
// an object schema.
func TestReview47bParameterlessFunctionUnderForcedAny(t *testing.T) {
	schema := `"response_format":{"type":"json_schema","json_schema":{"name":"out","schema":{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}}}`
	for _, tc := range []struct{ name, fn string }{
		{"no parameters", `{"name":"list_files","description":"List the files"}`},
		{"parameters null", `{"name":"list_files","parameters":null}`},
		{"parameters {}", `{"name":"list_files","parameters":{}}`},
		{"properties without type", `{"name":"list_files","parameters":{"properties":{"dir":{"type":"string"}}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"model":"m","messages":[{"role":"user","content":"List the files, then answer."}],"tools":[{"type":"function","function":` + tc.fn + `}],` + schema + `}`
			r := r47bTranslate(t, body, "gemini-2.5-flash")
			if r.ToolConfig == nil || r.ToolConfig.FunctionCallingConfig.Mode != "ANY" {
				t.Fatalf("mode: %+v", r.ToolConfig)
			}
			for _, d := range r.Tools[0].FunctionDeclarations {
				var top struct {
					Type string `json:"type"`
				}
				if len(d.Params) == 0 || json.Unmarshal(d.Params, &top) != nil || top.Type != "object" {
					t.Errorf("%s declared with parametersJsonSchema %s under mode ANY: Gemini answers 400 INVALID_ARGUMENT (python-genai#981)", d.Name, d.Params)
				}
			}
		})
	}
}

// Finding 2. The prefill test reads the client's messages, not the
// contents sent: a trailing assistant message with empty content is
// dropped from the contents (contentParts keeps no empty text), so Gemini
// sees a conversation ending with the user, yet the request gets neither
// the answer function nor the JSON mime type, and the model answers in
// prose to a client that asked for a schema. The Anthropic adapter judges
// the turns it sends (structured reads out.Messages after trimFinal drops
// an empty final assistant turn), so Claude gets the answer tool.
func TestReview47bEmptyTrailingAssistantIsNoPrefill(t *testing.T) {
	body := `{"model":"m","messages":[{"role":"user","content":"How warm is London?"},{"role":"assistant","content":""}],"tools":` + c47gAgentTools +
		`,"response_format":{"type":"json_schema","json_schema":{"name":"final_output","schema":` + c47gSchema + `}}}`
	got, err := TranslateFor(adaptertest.ClientRequest(t, []byte(body)), "gemini-2.5-flash")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(got), `"role":"model"`) {
		t.Fatalf("the empty assistant turn was sent: %s", got)
	}
	if !strings.Contains(string(got), `"name":"detour_json_answer"`) {
		t.Fatalf("no model turn is sent, so no prefill, yet no answer function and no JSON mime type: %s", got)
	}
}

// Finding 3 (shared with the Anthropic adapter). A schema whose top level
// is a $ref into its own $defs (what Pydantic emits for a self-referencing
// model: {"$defs":{"Node":…},"$ref":"#/$defs/Node"}) has no top-level
// "type":"object", so it is wrapped under properties.value; its "#/$defs/…"
// references are resolved against the root of parametersJsonSchema, which
// no longer holds $defs: every reference dangles. The wrapper's root should
// carry the schema's $defs (and definitions).
func TestReview47bWrappedSchemaKeepsItsDefs(t *testing.T) {
	node := `{"$defs":{"Node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/Node"}}},"required":["name","children"]}},"$ref":"#/$defs/Node"}`
	body := `{"model":"m","messages":[{"role":"user","content":"Tree?"}],"tools":` + c47gAgentTools +
		`,"response_format":{"type":"json_schema","json_schema":{"name":"tree","schema":` + node + `}}}`
	r := r47bTranslate(t, body, "gemini-2.5-flash")
	for _, d := range r.Tools[0].FunctionDeclarations {
		if d.Name != ValueFunction && d.Name != AnswerFunction {
			continue
		}
		var root struct {
			Defs map[string]json.RawMessage `json:"$defs"`
		}
		if err := json.Unmarshal(d.Params, &root); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(d.Params), `"#/$defs/Node"`) && root.Defs["Node"] == nil {
			t.Fatalf("%s parametersJsonSchema refers to #/$defs/Node, which its root does not hold: %s", d.Name, d.Params)
		}
		return
	}
	t.Fatal("no answer function declared")
}

// Hostile answers (no finding: these pass): odd arguments of the answer
// function never panic, whole or streamed, and give some content.
func TestReview47bOddAnswerArgsDoNotPanic(t *testing.T) {
	for _, name := range []string{AnswerFunction, ValueFunction} {
		for _, args := range []string{``, `,"args":null`, `,"args":"x"`, `,"args":5`, `,"args":[1]`, `,"args":{}`, `,"args":{"value":null}`} {
			call := `{"functionCall":{"name":"` + name + `"` + args + `}}`
			whole := `{"candidates":[{"content":{"role":"model","parts":[` + call + `]},"finishReason":"STOP","index":0}]}`
			out, err := Adapter{}.Response([]byte(whole), testEP)
			if err != nil {
				t.Errorf("%s%s: %v", name, args, err)
				continue
			}
			var c c47gCompletion
			if err := json.Unmarshal(out, &c); err != nil || len(c.Choices) != 1 || c.Choices[0].Message.Content == nil || *c.Choices[0].Message.Content == "" {
				t.Errorf("%s%s: %s", name, args, out)
			}
			rec := string(adaptertest.Record(t, testStream(strings.NewReader("data: "+whole+"\n\n"))))
			if !strings.Contains(rec, `"finish_reason":"stop"`) {
				t.Errorf("%s%s stream: %s", name, args, rec)
			}
		}
	}
}

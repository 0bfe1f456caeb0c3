package gemini

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestTranslate: each Gemini request member, kept, dropped or refused as
// doc.go says.
func TestTranslate(t *testing.T) {
	const hi = `"contents":[{"role":"user","parts":[{"text":"hi"}]}]`
	for _, c := range []struct {
		name, body string
		want       []string // substrings of the canonical body
		not        []string
		err        string // substring of the error; unsupported when refused
		refused    bool
	}{
		{name: "text", body: `{` + hi + `}`, want: []string{`"model":"r"`, `"messages":[{"role":"user","content":"hi"}]`, `"stream":true`, `"include_usage":true`}},
		{name: "system", body: `{` + hi + `,"systemInstruction":{"role":"system","parts":[{"text":"a"},{"text":"b"}]}}`, want: []string{`{"role":"system","content":"a\nb"}`}},
		{name: "system snake_case", body: `{` + hi + `,"system_instruction":{"parts":[{"text":"a"}]},"generation_config":{"max_output_tokens":9}}`,
			want: []string{`{"role":"system","content":"a"}`, `"max_completion_tokens":9`}},
		{name: "both spellings", body: `{` + hi + `,"systemInstruction":"a","system_instruction":"b"}`, err: "twice"},
		{name: "role omitted is user", body: `{"contents":[{"parts":[{"text":"x"}]}]}`, want: []string{`{"role":"user","content":"x"}`}},
		{name: "unknown role", body: `{"contents":[{"role":"robot","parts":[{"text":"x"}]}]}`, err: "contents[0].role"},
		{name: "no contents", body: `{}`, err: "contents"},
		{name: "generation", body: `{` + hi + `,"generationConfig":{"temperature":0.3,"topP":0.9,"topK":40,"maxOutputTokens":100,"stopSequences":["x","y"],"seed":"42","presencePenalty":0.1,"frequencyPenalty":0.2,"candidateCount":1}}`,
			want: []string{`"temperature":0.3`, `"top_p":0.9`, `"max_completion_tokens":100`, `"stop":["x","y"]`, `"seed":42`, `"presence_penalty":0.1`, `"frequency_penalty":0.2`},
			not:  []string{"top_k", "candidate"}},
		{name: "candidates", body: `{` + hi + `,"generationConfig":{"candidateCount":2}}`, err: "candidateCount", refused: true},
		{name: "logprobs", body: `{` + hi + `,"generationConfig":{"responseLogprobs":true}}`, err: "responseLogprobs", refused: true},
		{name: "image output", body: `{` + hi + `,"generationConfig":{"responseModalities":["TEXT","IMAGE"]}}`, err: "responseModalities", refused: true},
		{name: "json", body: `{` + hi + `,"generationConfig":{"responseMimeType":"application/json"}}`, want: []string{`"response_format":{"type":"json_object"}`}},
		{name: "json schema", body: `{` + hi + `,"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"object","additionalProperties":false}}}`,
			want: []string{`"response_format":{"type":"json_schema","json_schema":{"name":"response","schema":{"type":"object","additionalProperties":false}}}`}},
		{name: "openapi schema", body: `{` + hi + `,"generationConfig":{"responseMimeType":"application/json","responseSchema":{"type":"OBJECT","propertyOrdering":["a"],"properties":{"a":{"type":"STRING","nullable":true},"b":{"type":"ARRAY","items":{"type":"INTEGER"}}}}}}`,
			want: []string{`"a":{"type":["string","null"]}`, `"b":{"type":"array","items":{"type":"integer"}}`, `"type":"object"`}, not: []string{"propertyOrdering", "nullable"}},
		{name: "enum mime", body: `{` + hi + `,"generationConfig":{"responseMimeType":"text/x.enum"}}`, err: "responseMimeType", refused: true},
		{name: "safety and thinking dropped", body: `{` + hi + `,"safetySettings":[{"category":"HARM_CATEGORY_HATE_SPEECH","threshold":"BLOCK_NONE"}],"generationConfig":{"thinkingConfig":{"thinkingBudget":1024}},"labels":{"a":"b"}}`,
			not: []string{"HARM", "thinking", "labels"}},
		{name: "cached content", body: `{` + hi + `,"cachedContent":"cachedContents/x"}`, err: "cachedContent", refused: true},
		{name: "google search", body: `{` + hi + `,"tools":[{"googleSearch":{}}]}`, err: "googleSearch", refused: true},
		{name: "functions", body: `{` + hi + `,"tools":[{"functionDeclarations":[{"name":"f","description":"d","parametersJsonSchema":{"type":"object","properties":{"q":{"type":"string"}}}},{"name":"g","parameters":{"type":"OBJECT","properties":{"n":{"type":"NUMBER"}}}},{"name":"h"}]}],
			"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["f"]}}}`,
			want: []string{`{"type":"function","function":{"name":"f","description":"d","parameters":{"type":"object","properties":{"q":{"type":"string"}}}}}`,
				`"parameters":{"type":"object","properties":{"n":{"type":"number"}}}`, `{"name":"h","parameters":{"type":"object","properties":{}}}`,
				`"tool_choice":{"function":{"name":"f"},"type":"function"}`}},
		{name: "modes", body: `{` + hi + `,"tools":[{"functionDeclarations":[{"name":"f"},{"name":"g"}]}],"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["f","g"]}}}`,
			want: []string{`"tool_choice":{"allowed_tools":{"mode":"required","tools":[{"function":{"name":"f"},"type":"function"},{"function":{"name":"g"},"type":"function"}]},"type":"allowed_tools"}`}},
		{name: "none", body: `{` + hi + `,"tools":[{"functionDeclarations":[{"name":"f"}]}],"toolConfig":{"functionCallingConfig":{"mode":"NONE"}}}`, want: []string{`"tool_choice":"none"`}},
		{name: "mode without tools", body: `{` + hi + `,"toolConfig":{"functionCallingConfig":{"mode":"ANY"}}}`, not: []string{"tool_choice"}},
		{name: "bad mode", body: `{` + hi + `,"tools":[{"functionDeclarations":[{"name":"f"}]}],"toolConfig":{"functionCallingConfig":{"mode":"SOMETIMES"}}}`, err: "mode"},
		{name: "call round trip", body: `{"contents":[{"role":"user","parts":[{"text":"weather?"}]},
			{"role":"model","parts":[{"text":"thinking…","thought":true},{"text":"Let me check."},{"functionCall":{"name":"w","args":{"city":"Paris"}},"thoughtSignature":"detour1.ab.sig1"},{"functionCall":{"id":"own","name":"w","args":{"city":"Rome"}},"thoughtSignature":"RAWsig2"}]},
			{"role":"user","parts":[{"functionResponse":{"id":"own","name":"w","response":{"t":2}}},{"functionResponse":{"name":"w","response":{"output":"sunny"}}},{"text":"and?"}]}]}`,
			want: []string{`{"role":"assistant","content":"Let me check.","tool_calls":[{"id":"call_1_2","type":"function","function":{"name":"w","arguments":"{\"city\":\"Paris\"}"},"extra_content":{"google":{"thought_signature":"detour1.ab.sig1"}}},{"id":"own","type":"function","function":{"name":"w","arguments":"{\"city\":\"Rome\"}"}}]}`,
				`{"role":"tool","content":"{\"t\":2}","tool_call_id":"own"},{"role":"tool","content":"{\"output\":\"sunny\"}","tool_call_id":"call_1_2"},{"role":"user","content":"and?"}`},
			not: []string{"thinking…", "RAWsig2"}}, // a raw signature (a Gemini target's) is not carried: hostile 69j
		{name: "orphan response", body: `{"contents":[{"role":"user","parts":[{"functionResponse":{"name":"w","response":{}}}]}]}`, err: "answers no functionCall"},
		{name: "media", body: `{"contents":[{"parts":[{"inlineData":{"mimeType":"image/png","data":"iVBORw=="}},{"inlineData":{"mimeType":"application/pdf","data":"JVBE"}},{"inlineData":{"mimeType":"audio/wav","data":"UklG"}},{"fileData":{"mimeType":"image/jpeg","fileUri":"https://example.com/a.jpg"}}]}]}`,
			want: []string{`{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw=="}}`, `"file":{"file_data":"data:application/pdf;base64,JVBE"`, `"input_audio":{"data":"UklG","format":"wav"}`, `"url":"https://example.com/a.jpg"`}},
		{name: "video", body: `{"contents":[{"parts":[{"inlineData":{"mimeType":"video/mp4","data":"AAAA"}}]}]}`, err: "video/mp4", refused: true},
		{name: "files api", body: `{"contents":[{"parts":[{"fileData":{"mimeType":"application/pdf","fileUri":"https://generativelanguage.googleapis.com/v1beta/files/abc"}}]}]}`, err: "uploaded to Google", refused: true},
		{name: "gs uri", body: `{"contents":[{"parts":[{"fileData":{"fileUri":"gs://b/o.png"}}]}]}`, err: "fileUri", refused: true},
		{name: "bad base64", body: `{"contents":[{"parts":[{"inlineData":{"mimeType":"image/png","data":"%%%"}}]}]}`, err: "base64"},
		{name: "code", body: `{"contents":[{"parts":[{"executableCode":{"code":"1"}}]}]}`, err: "executableCode", refused: true},
		{name: "member types", body: `{"contents":[{"parts":[{"text":5}]}]}`, err: "contents[0].parts[0].text"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr, err := Translate([]byte(c.body), "r", true)
			if c.err != "" {
				e, ok := err.(*Error)
				if !ok || !strings.Contains(e.Error(), c.err) || e.Unsupported != c.refused {
					t.Fatalf("err %v (%T), want one naming %q, unsupported %v", err, err, c.err, c.refused)
				}
				return
			}
			if err != nil || !json.Valid(tr.Body) {
				t.Fatalf("%v %s", err, tr.Body)
			}
			for _, w := range c.want {
				if !strings.Contains(string(tr.Body), w) {
					t.Errorf("body %s\nlacks %s", tr.Body, w)
				}
			}
			for _, n := range c.not {
				if strings.Contains(string(tr.Body), n) {
					t.Errorf("body %s\nholds %s", tr.Body, n)
				}
			}
		})
	}
}

func TestTranslateThoughtsAndStream(t *testing.T) {
	tr, err := Translate([]byte(`{"contents":[{"parts":[{"text":"x"}]}],"generationConfig":{"thinkingConfig":{"includeThoughts":true}}}`), "r", false)
	if err != nil || !tr.Thoughts || strings.Contains(string(tr.Body), "stream") {
		t.Errorf("%v %v %s", err, tr.Thoughts, tr.Body)
	}
}

func TestEstimate(t *testing.T) {
	for body, want := range map[string]int{
		`{"contents":[{"parts":[{"text":"12345678"}]}]}`:                                                                      2,
		`{"contents":[{"parts":[{"text":"1234"},{"inlineData":{"mimeType":"image/png","data":"AA"}}]}]}`:                      1 + MediaTokens,
		`{"generateContentRequest":{"model":"models/x","contents":[{"parts":[{"text":"1234"}]}],"systemInstruction":"abcd"}}`: 2,
	} {
		if n, err := Estimate([]byte(body)); err != nil || n != want {
			t.Errorf("%s: %d %v, want %d", body, n, err, want)
		}
	}
	if _, err := Estimate([]byte(`{"contents":3}`)); err == nil {
		t.Error("contents 3 counted")
	}
}

// TestTranslateUpperCaseJSONSchemaTypes (probe 69h): Gemini CLI 0.61.0's
// model router sends responseJsonSchema written with Gemini's type names
// ("OBJECT", "STRING", "INTEGER"), which Google takes in a JSON Schema
// member; OpenAI's and Anthropic's validators refuse them, so every router
// call on a route of OpenAI or Claude targets was a 400 there (the CLI
// retries it 5 times, then falls back to its pro model). The translation
// writes JSON Schema's names, in parametersJsonSchema too; a schema
// without Gemini's names goes byte for byte, and a property named like a
// type keeps its name.
func TestTranslateUpperCaseJSONSchemaTypes(t *testing.T) {
	const router = `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":{"responseMimeType":"application/json",
		"responseJsonSchema":{"type":"OBJECT","properties":{"complexity_reasoning":{"type":"STRING","description":"Brief explanation for the score."},"complexity_score":{"type":"INTEGER","description":"Complexity score from 1-100."}},"required":["complexity_reasoning","complexity_score"]}},
		"tools":[{"functionDeclarations":[{"name":"f","parametersJsonSchema":{"type":"OBJECT","properties":{"OBJECT":{"type":["STRING","NULL"]},"l":{"type":"ARRAY","items":{"type":"NUMBER"}},"b":{"anyOf":[{"type":"BOOLEAN"}]}}}},
		{"name":"g","parametersJsonSchema":{"type":"object",  "properties":{"x":{"type":"string","enum":["STRING"]}}}}]}]}`
	tr, err := Translate([]byte(router), "r", false)
	if err != nil {
		t.Fatal(err)
	}
	body := string(tr.Body)
	for _, w := range []string{
		`"schema":{"type":"object","properties":{"complexity_reasoning":{"type":"string","description":"Brief explanation for the score."},"complexity_score":{"type":"integer","description":"Complexity score from 1-100."}},"required":["complexity_reasoning","complexity_score"]}`,
		`"parameters":{"type":"object","properties":{"OBJECT":{"type":["string","null"]},"l":{"type":"array","items":{"type":"number"}},"b":{"anyOf":[{"type":"boolean"}]}}}`,
		`"parameters":{"type":"object","properties":{"x":{"type":"string","enum":["STRING"]}}}`,
	} {
		if !strings.Contains(body, w) {
			t.Errorf("body %s\nlacks %s", body, w)
		}
	}
}

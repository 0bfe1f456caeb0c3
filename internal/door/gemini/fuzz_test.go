package gemini

import (
	"bytes"
	"encoding/json"
	"testing"
)

var fuzzSeeds = []string{
	`{"contents":[{"role":"user","parts":[{"text":"x"}]}]}`,
	`{"contents":[{"parts":[{"text":"x"},{"inlineData":{"mimeType":"image/png","data":"AAAA"}}]},
	 {"role":"model","parts":[{"text":"t","thought":true},{"functionCall":{"name":"f","args":{"q":1}},"thoughtSignature":"s"}]},
	 {"role":"user","parts":[{"functionResponse":{"name":"f","response":{"r":2}}}]}],
	 "system_instruction":{"parts":[{"text":"s"}]},"tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":"OBJECT","nullable":true,"properties":{"a":{"type":"STRING"}}}}]}],
	 "toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["f","g"]}},
	 "generationConfig":{"responseMimeType":"application/json","responseSchema":{"type":"ARRAY","items":{"type":"NUMBER"}},"thinkingConfig":{"includeThoughts":true},"seed":"7"}}`,
	`{"contents":[{"role":"robot"}]}`, `{"contents":[null,1,"x",[]]}`, `{"contents":[{"parts":[null,{"fileData":{"fileUri":"::"}}]}]}`,
	`{"contents":{}}`, `{}`, `[]`, `null`, "", `{"contents":[{"parts":[{}]}],"systemInstruction":7,"generateContentRequest":{"contents":1}}`,
}

// FuzzRequest: Translate and Estimate never panic; what Translate accepts
// is JSON naming the model.
func FuzzRequest(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		tr, err := Translate(body, "m", true)
		if err == nil {
			var c struct {
				Model    string            `json:"model"`
				Messages []json.RawMessage `json:"messages"`
			}
			if json.Unmarshal(tr.Body, &c) != nil || c.Model != "m" || len(c.Messages) == 0 {
				t.Fatalf("translated body %s", tr.Body)
			}
		} else if _, ok := err.(*Error); !ok {
			t.Fatalf("error %T %v, want *Error", err, err)
		}
		_, _ = Estimate(body)
	})
}

// FuzzStream: the encoder never panics on any chunks (one per line of the
// input), and every frame it writes is "data: " and a JSON object whose
// candidate carries content.
func FuzzStream(f *testing.F) {
	f.Add([]byte(`{"choices":[{"index":0,"delta":{"content":"a","tool_calls":[{"index":3,"function":{"arguments":"{"}}]},"finish_reason":"stop"}]}` +
		"\n" + `{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}}`))
	f.Add([]byte(`{"choices":[{"index":0,"delta":{"reasoning":"r"}}]}` + "\n" + `null` + "\n" + `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"f"}}]}}]}`))
	f.Add([]byte(`{"choices":[{"index":0,"delta":{"tool_calls":[{"index":-1},{"index":99999999}]}}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		e := NewEncoder("m", true)
		var out []byte
		for _, line := range bytes.Split(in, []byte("\n")) {
			b, _ := e.Chunk(line)
			out = append(out, b...)
		}
		out = append(out, e.End()...)
		for _, fr := range bytes.Split(out, []byte("\r\n\r\n")) {
			if len(fr) == 0 {
				continue
			}
			data, ok := bytes.CutPrefix(fr, []byte("data: "))
			var a struct {
				Candidates []struct {
					Content struct{ Parts []json.RawMessage }
				}
			}
			if !ok || json.Unmarshal(data, &a) != nil || len(a.Candidates) != 1 || len(a.Candidates[0].Content.Parts) == 0 {
				t.Fatalf("frame %q", fr)
			}
		}
	})
}

// FuzzAnswer: Answer never panics, and what it accepts is JSON.
func FuzzAnswer(f *testing.F) {
	f.Add([]byte(`{"id":"x","choices":[{"message":{"content":"a","tool_calls":[{"function":{"arguments":"{}"}}]},"finish_reason":"length"}]}`))
	f.Add([]byte(`{"choices":[{"message":{"images":[{"type":"image_url","image_url":{"url":"data:image/png;base64,AA"}},{}]}}],"usage":{"prompt_tokens":-5,"completion_tokens":3,"completion_tokens_details":{"reasoning_tokens":9}}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		if out, err := Answer(in, "m", true); err == nil && !json.Valid(out) {
			t.Fatalf("answer %s", out)
		}
	})
}

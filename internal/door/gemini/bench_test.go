package gemini

import (
	"testing"
)

// A Gemini CLI-sized turn: system instruction, two declared functions (one
// by parametersJsonSchema, one by Gemini's OpenAPI parameters), a function
// call and its response, generationConfig with thinking.
var benchRequest = []byte(`{"systemInstruction":{"role":"user","parts":[{"text":"You are a coding agent. Use the tools to read and edit files."}]},
	"tools":[{"functionDeclarations":[{"name":"read_file","description":"Read a file","parametersJsonSchema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}},
	{"name":"edit_file","description":"Edit a file","parameters":{"type":"OBJECT","properties":{"path":{"type":"STRING"},"old":{"type":"STRING"},"new":{"type":"STRING"}}}}]}],
	"contents":[{"role":"user","parts":[{"text":"Fix the failing test in parser_test.go"}]},
	{"role":"model","parts":[{"text":"Let me read the test."},{"functionCall":{"name":"read_file","args":{"path":"parser_test.go"}}}]},
	{"role":"user","parts":[{"functionResponse":{"name":"read_file","response":{"output":"package parser\n\nfunc TestParse(t *testing.T) {\n\t// ...\n}\n"}}}]}],
	"generationConfig":{"temperature":0,"topP":1,"maxOutputTokens":4096,"thinkingConfig":{"includeThoughts":true,"thinkingBudget":8192}}}`)

func BenchmarkTranslate(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchRequest)))
	for b.Loop() {
		if _, err := Translate(benchRequest, "route", true); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAnswer(b *testing.B) {
	body := []byte(`{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,
		"message":{"role":"assistant","content":"I'll edit it.","tool_calls":[{"id":"call_1","type":"function","function":{"name":"edit_file","arguments":"{\"path\":\"parser_test.go\",\"old\":\"a\",\"new\":\"b\"}"}}]},
		"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":900,"completion_tokens":40,"total_tokens":940}}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Answer(body, "route", true); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStreamChunk is the cost of one text delta chunk (each writes
// the frame of the text the chunk before it held).
func BenchmarkStreamChunk(b *testing.B) {
	chunk := []byte(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":" the parser"},"finish_reason":null}]}`)
	e := NewEncoder("route", false)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Chunk(chunk); err != nil {
			b.Fatal(err)
		}
	}
}

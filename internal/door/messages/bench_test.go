package messages

import (
	"testing"
)

// A Claude Code-sized turn: system prompt, a tool round, two tools.
var benchRequest = []byte(`{"model":"claude-sonnet-4-5","max_tokens":4096,"stream":true,
	"system":[{"type":"text","text":"You are a coding agent. Use the tools to read and edit files.","cache_control":{"type":"ephemeral"}}],
	"tools":[{"name":"read_file","description":"Read a file","input_schema":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}},
	{"name":"edit_file","description":"Edit a file","input_schema":{"type":"object","properties":{"path":{"type":"string"},"old":{"type":"string"},"new":{"type":"string"}}}}],
	"messages":[{"role":"user","content":"Fix the failing test in parser_test.go"},
	{"role":"assistant","content":[{"type":"text","text":"Let me read the test."},{"type":"tool_use","id":"toolu_01","name":"read_file","input":{"path":"parser_test.go"}}]},
	{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":"package parser\n\nfunc TestParse(t *testing.T) {\n\t// ...\n}\n"}]}]}`)

func BenchmarkTranslate(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(benchRequest)))
	for b.Loop() {
		if _, err := Translate(benchRequest); err != nil {
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
		if _, err := Answer(body, "route"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStreamChunk is the cost of one text delta chunk.
func BenchmarkStreamChunk(b *testing.B) {
	chunk := []byte(`{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":" the parser"},"finish_reason":null}]}`)
	e := NewEncoder("route")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.Chunk(chunk); err != nil {
			b.Fatal(err)
		}
	}
}

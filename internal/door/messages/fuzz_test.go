package messages

import (
	"bytes"
	"encoding/json"
	"testing"
)

var fuzzSeeds = []string{
	`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"}]}`,
	`{"model":"m","max_tokens":5,"system":[{"type":"text","text":"s"}],"stream":true,"tools":[{"name":"f","input_schema":{}}],
	 "tool_choice":{"type":"any","disable_parallel_tool_use":true},"messages":[{"role":"user","content":[{"type":"image","source":{"type":"url","url":"u"}}]},
	 {"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{"q":1}}]},
	 {"role":"user","content":[{"type":"tool_result","tool_use_id":"a","is_error":true,"content":[{"type":"text","text":"t"}]}]}]}`,
	`{"model":"m","max_tokens":5,"output_config":{"format":{"type":"json_schema","schema":{"type":"object"}}},"messages":[{"role":"user","content":"x"}]}`,
	`{"model":"a","model":"b"}`, `{}`, `[]`, `{"messages":[{"role":1}]}`, "",
}

// FuzzRequest: Translate and Estimate never panic; what Translate accepts
// is JSON naming the model.
func FuzzRequest(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		tr, err := Translate(body)
		if err == nil {
			var c struct {
				Model string `json:"model"`
			}
			if json.Unmarshal(tr.Body, &c) != nil || c.Model != tr.Model {
				t.Fatalf("translated body %s", tr.Body)
			}
		}
		_, _ = Estimate(body)
	})
}

// FuzzStream: the encoder never panics on any chunks (one per line of the
// input), and every frame it writes carries JSON data.
func FuzzStream(f *testing.F) {
	f.Add([]byte(`{"choices":[{"index":0,"delta":{"content":"a","tool_calls":[{"index":3,"function":{"arguments":"{"}}]},"finish_reason":"stop"}]}` +
		"\n" + `{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2}}`))
	f.Add([]byte(`{"choices":[{"index":0,"delta":{"reasoning":"r"}}]}` + "\n" + `null` + "\n" + `{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0}]}}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		e := NewEncoder("m")
		var out []byte
		for _, line := range bytes.Split(in, []byte("\n")) {
			b, _ := e.Chunk(line)
			out = append(out, b...)
		}
		out = append(out, e.End()...)
		for _, fr := range bytes.Split(out, []byte("\n\n")) {
			if len(fr) == 0 {
				continue
			}
			_, data, ok := bytes.Cut(fr, []byte("\ndata: "))
			if !ok || !json.Valid(data) {
				t.Fatalf("frame %q", fr)
			}
		}
	})
}

// FuzzAnswer: Answer never panics, and what it accepts is JSON.
func FuzzAnswer(f *testing.F) {
	f.Add([]byte(`{"id":"x","choices":[{"message":{"content":"a","tool_calls":[{"function":{"arguments":"{}"}}]},"finish_reason":"length"}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		if out, err := Answer(in, "m"); err == nil && !json.Valid(out) {
			t.Fatalf("answer %s", out)
		}
	})
}

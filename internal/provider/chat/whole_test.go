package chat

import (
	"encoding/json"
	"testing"
)

func TestWholeChunks(t *testing.T) {
	body := []byte(`{"id":"c1","object":"chat.completion","created":7,"model":"m",
		"choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"no",
		"tool_calls":[{"id":"t1","type":"function","function":{"name":"f","arguments":"{}"},"x":1}]},"finish_reason":"tool_calls"}],
		"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5,"extra":true}}`)
	chunks, usage, err := WholeChunks(body)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`{"id":"c1","object":"chat.completion.chunk","created":7,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","refusal":"no","tool_calls":[{"function":{"name":"f","arguments":"{}"},"id":"t1","index":0,"type":"function","x":1}]},"finish_reason":null}]}`,
		`{"id":"c1","object":"chat.completion.chunk","created":7,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
		`{"id":"c1","object":"chat.completion.chunk","created":7,"model":"m","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5,"extra":true}}`,
	}
	if len(chunks) != len(want) {
		t.Fatalf("got %d chunks, want %d: %q", len(chunks), len(want), chunks)
	}
	for i := range want {
		if string(chunks[i]) != want[i] {
			t.Errorf("chunk %d:\n got %s\nwant %s", i, chunks[i], want[i])
		}
	}
	if want := `{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5,"extra":true}`; string(usage) != want {
		t.Errorf("usage = %s, want the answer's own member %s", usage, want)
	}
}

func TestWholeChunksWithoutUsage(t *testing.T) {
	chunks, usage, err := WholeChunks([]byte(`{"id":"c","choices":[{"index":0,"message":{"content":"hi"},"finish_reason":"stop"}],"usage":null}`))
	if err != nil || usage != nil || len(chunks) != 2 {
		t.Fatalf("chunks %q, usage %v, err %v", chunks, usage, err)
	}
	var c struct {
		Choices []struct {
			Delta struct{ Content string } `json:"delta"`
		} `json:"choices"`
	}
	if json.Unmarshal(chunks[0], &c) != nil || c.Choices[0].Delta.Content != "hi" {
		t.Errorf("first chunk %s", chunks[0])
	}
	if _, _, err := WholeChunks([]byte(`[1]`)); err == nil {
		t.Error("an answer that is not an object: want an error")
	}
}

package upstreamtest

import (
	"encoding/json"
	"fmt"
)

// ChatJSON is an OpenAI chat.completion answering text as model.
func ChatJSON(model, text string) string {
	b, _ := json.Marshal(map[string]any{
		"id": "chatcmpl-test", "object": "chat.completion", "created": 1764489600, "model": model,
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": text}, "finish_reason": "stop"}},
		"usage":   map[string]any{"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7},
	})
	return string(b)
}

// ChatStream is an OpenAI chat.completion.chunk stream answering the parts as
// model: a role-only chunk, one chunk per part, a finish chunk, a usage chunk
// and [DONE].
func ChatStream(model string, parts ...string) []string {
	chunk := func(delta map[string]any, finish any) string {
		b, _ := json.Marshal(map[string]any{
			"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 1764489600, "model": model,
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}},
		})
		return string(b)
	}
	evs := []string{chunk(map[string]any{"role": "assistant", "content": ""}, nil)}
	for _, p := range parts {
		evs = append(evs, chunk(map[string]any{"content": p}, nil))
	}
	evs = append(evs, chunk(map[string]any{}, "stop"))
	evs = append(evs, fmt.Sprintf(`{"id":"chatcmpl-test","object":"chat.completion.chunk","created":1764489600,"model":%q,"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":%d,"total_tokens":%d}}`, model, len(parts), 5+len(parts)))
	return append(evs, "[DONE]")
}

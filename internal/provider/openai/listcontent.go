package openai

import (
	"encoding/json"
	"strings"

	"github.com/detour-llm/detour/internal/rawjson"
)

// Mistral's reasoning models (Magistral) stream a delta whose content is a
// list of chunks rather than a string: their thinking as
// {"type":"thinking","thinking":[{"type":"text","text":…}]}, text as
// {"type":"text","text":…}. OpenAI's clients read content as a string, and
// so do the doors, so such a chunk is rewritten in OpenAI's words: the
// thinking as reasoning_content (as DeepSeek and vLLM name it), the text as
// content (docs/doors.md, "Reasoning"). Before, every such chunk was
// malformed: dropped, and no progress, so a model thinking longer than
// first_token_timeout failed as the upstream's timeout (review 37b).

// listPart is one chunk of a list content.
type listPart struct {
	Type     string     `json:"type"`
	Text     *string    `json:"text"`
	Thinking []listPart `json:"thinking"`
}

// flatListContent returns data, a chat.completion.chunk, with every
// choice's list content rewritten as above, and whether it rewrote any;
// false for a chunk it cannot read, or whose list holds no text or
// thinking.
func flatListContent(data []byte) ([]byte, bool) {
	var chunk map[string]json.RawMessage
	if json.Unmarshal(data, &chunk) != nil {
		return nil, false
	}
	var choices []map[string]json.RawMessage
	if json.Unmarshal(chunk["choices"], &choices) != nil {
		return nil, false
	}
	done := false
	for _, ch := range choices {
		var delta map[string]json.RawMessage
		if json.Unmarshal(ch["delta"], &delta) != nil || len(delta["content"]) == 0 || delta["content"][0] != '[' {
			continue
		}
		var parts []listPart
		if json.Unmarshal(delta["content"], &parts) != nil {
			return nil, false
		}
		var text, thought strings.Builder
		known := false
		for _, p := range parts {
			switch p.Type {
			case "text":
				if p.Text != nil {
					text.WriteString(*p.Text)
					known = true
				}
			case "thinking":
				for _, q := range p.Thinking {
					if q.Type == "text" && q.Text != nil {
						thought.WriteString(*q.Text)
						known = true
					}
				}
			}
		}
		if !known {
			return nil, false
		}
		delete(delta, "content")
		if text.Len() > 0 {
			delta["content"] = encode(text.String())
		}
		if thought.Len() > 0 {
			var had string
			_ = json.Unmarshal(delta["reasoning_content"], &had)
			delta["reasoning_content"] = encode(had + thought.String())
		}
		ch["delta"] = encode(delta)
		done = true
	}
	if !done {
		return nil, false
	}
	chunk["choices"] = encode(choices)
	return encode(chunk), true
}

// encode is rawjson.Marshal of a value decoded a moment ago, which always
// encodes (nil if it did not, which the caller's decoding then refuses).
func encode(v any) json.RawMessage {
	b, _ := rawjson.Marshal(v)
	return b
}

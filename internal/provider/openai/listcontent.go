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
		text, thought, ok := flatParts(delta["content"])
		if !ok {
			return nil, false
		}
		flatInto(delta, text, thought)
		ch["delta"] = encode(delta)
		done = true
	}
	if !done {
		return nil, false
	}
	chunk["choices"] = encode(choices)
	return encode(chunk), true
}

// flatParts reads a list content: its text and its thinking, joined; ok is
// false for a list that is not one, or that holds neither.
func flatParts(raw json.RawMessage) (text, thought string, ok bool) {
	var parts []listPart
	if json.Unmarshal(raw, &parts) != nil {
		return "", "", false
	}
	var t, th strings.Builder
	for _, p := range parts {
		switch p.Type {
		case "text":
			if p.Text != nil {
				t.WriteString(*p.Text)
				ok = true
			}
		case "thinking":
			for _, q := range p.Thinking {
				if q.Type == "text" && q.Text != nil {
					th.WriteString(*q.Text)
					ok = true
				}
			}
		}
	}
	return t.String(), th.String(), ok
}

// flatInto writes text and thought into m, a delta or a message whose list
// content they were: the text as content, the thinking after any
// reasoning_content it had.
func flatInto(m map[string]json.RawMessage, text, thought string) {
	delete(m, "content")
	if text != "" {
		m["content"] = encode(text)
	}
	if thought != "" {
		var had string
		_ = json.Unmarshal(m["reasoning_content"], &had)
		m["reasoning_content"] = encode(had + thought)
	}
}

// A whole answer of the same models carries the same list as its
// message's content (Magistral's: the Vercel AI SDK's recorded
// mistral-reasoning.json, probe 66a). OpenAI's clients read a message's
// content as a string, and so do the doors (chat.ResponseMessage,
// chat.WholeChunks): before, such an answer reached an OpenAI SDK with no
// text it could read, and at /v1/messages and /v1/responses (or to a
// stream request) failed as untranslatable or undecodable after the
// upstream had billed it, and moved on to the next target. It is rewritten
// as a stream's delta is.

// listContentAnswer reports whether one of choices' (an answer's raw
// "choices") messages has a list as its content: a scan, no allocation, on
// every whole answer.
func listContentAnswer(choices []byte) bool {
	list, ok := rawjson.ScanArray(choices)
	if !ok {
		return false
	}
	for _, el, ok := list.Next(); ok; _, el, ok = list.Next() {
		if c := rawjson.Member(rawjson.Member(el, "message"), "content"); len(c) > 0 && c[0] == '[' {
			return true
		}
	}
	return false
}

// flatListAnswer returns body, a whole chat.completion, with every
// message's list content rewritten as flatListContent rewrites a delta's;
// body itself where none can be (a list holding neither text nor thinking
// stays as it came).
func flatListAnswer(body []byte) []byte {
	var answer map[string]json.RawMessage
	if json.Unmarshal(body, &answer) != nil {
		return body
	}
	var choices []map[string]json.RawMessage
	if json.Unmarshal(answer["choices"], &choices) != nil {
		return body
	}
	done := false
	for _, ch := range choices {
		var msg map[string]json.RawMessage
		if json.Unmarshal(ch["message"], &msg) != nil || len(msg["content"]) == 0 || msg["content"][0] != '[' {
			continue
		}
		text, thought, ok := flatParts(msg["content"])
		if !ok {
			continue
		}
		flatInto(msg, text, thought)
		ch["message"] = encode(msg)
		done = true
	}
	if !done {
		return body
	}
	answer["choices"] = encode(choices)
	if out := encode(answer); out != nil {
		return out
	}
	return body
}

// encode is rawjson.Marshal of a value decoded a moment ago, which always
// encodes (nil if it did not, which the caller's decoding then refuses).
func encode(v any) json.RawMessage {
	b, _ := rawjson.Marshal(v)
	return b
}

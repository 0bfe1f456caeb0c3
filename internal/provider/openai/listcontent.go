package openai

import (
	"encoding/json"

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

// flatParts reads a list content: its text and its thinking, joined as a
// whole answer's are (rawListParts); ok is false for a list that is not
// one of parts, or that holds neither.
func flatParts(raw json.RawMessage) (text, thought string, ok bool) {
	var t, th joined
	if !rawListParts(raw, &t, &th) || t.b == nil && th.b == nil && !th.seen {
		return "", "", false
	}
	return t.text(), th.text(), true
}

// flatInto writes text and thought into m, a stream delta whose list
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

// flatListAnswer returns body, a whole chat.completion (valid JSON), with
// every message's list content rewritten as flatListContent rewrites a
// delta's, and every other byte as it came; body itself where none can be
// (a list holding neither text nor thinking, or one it cannot read, stays
// as it came). The text and the thinking are the parts' JSON strings
// joined as written, never decoded: before review 66g the answer was
// decoded into maps and encoded again (a 60 MB answer of one list
// allocated about 0.9 GB, its members sorted and its other choices
// rewritten).
func flatListAnswer(body []byte) []byte {
	cs, ce, err := rawjson.MemberSpan(body, "choices")
	if err != nil || cs < 0 {
		return body
	}
	list, ok := rawjson.ScanArray(body[cs:ce])
	if !ok {
		return body
	}
	var out []byte
	last := 0
	for _, el, ok := list.Next(); ok; _, el, ok = list.Next() {
		msg := rawjson.Member(el, "message")
		flat, ok := flatListMessage(msg)
		if !ok {
			continue
		}
		at := cap(body) - cap(msg) // msg is a slice of body's array: its offset
		if out == nil {
			out = make([]byte, 0, len(body)+len(flat)-len(msg))
		}
		out = append(append(out, body[last:at]...), flat...)
		last = at + len(msg)
	}
	if out == nil {
		return body
	}
	return append(out, body[last:]...)
}

// flatListMessage is msg, a message whose content is a list, with its text
// as content (null when it has none) and its thinking after any
// reasoning_content it had; ok is false for any other message, or a list
// flatParts would not read.
func flatListMessage(msg []byte) ([]byte, bool) {
	s, e, err := rawjson.MemberSpan(msg, "content")
	if err != nil || s < 0 || msg[s] != '[' {
		return nil, false
	}
	var text, thought joined
	if !rawListParts(msg[s:e], &text, &thought) || text.b == nil && thought.b == nil {
		return nil, false
	}
	content := []byte("null")
	if text.b != nil {
		content = text.quoted()
	}
	msg = rawjson.Replace(msg, s, e, content)
	if thought.b == nil {
		return msg, true
	}
	if rs, re, _ := rawjson.MemberSpan(msg, "reasoning_content"); rs >= 0 && msg[rs] == '"' {
		var all joined
		all.add(msg[rs:re], re-rs+len(thought.b))
		all.add(thought.quoted(), 0)
		return rawjson.Replace(msg, rs, re, all.quoted()), true
	}
	return rawjson.WithLast(rawjson.Without(msg, "reasoning_content"), "reasoning_content", thought.quoted()), true
}

// joined is JSON strings joined: the escaped insides of each, after an
// opening quote (a valid JSON string's insides joined are the joined
// string's, so nothing is decoded); b is nil until one is added.
type joined struct {
	b []byte
	// seen: a thinking list was read, empty or not. Magistral closes its
	// thinking with {"type":"thinking","thinking":[]} between its last
	// thought and its text (pydantic-ai's recorded stream, probe 66o): a
	// chunk that adds nothing, not a malformed one.
	seen bool
}

// add appends the JSON string str's insides; room is the whole's size at
// most, for the one allocation.
func (j *joined) add(str []byte, room int) {
	if j.b == nil {
		j.b = append(make([]byte, 0, room+2), '"')
	}
	j.b = append(j.b, str[1:len(str)-1]...)
}

// quoted is the JSON string of what was joined.
func (j *joined) quoted() []byte { return append(j.b, '"') }

// text is what was joined, decoded ("" for nothing): the insides of valid
// JSON strings, so it decodes.
func (j *joined) text() string {
	var s string
	if j.b != nil {
		_ = json.Unmarshal(j.quoted(), &s)
	}
	return s
}

// rawListParts adds to text and thought list's text parts' and thinking
// parts' text, and reports false for a list that is not one of parts
// (an element not an object, a text not a string, a thinking not a list).
// It is the one reading of a list content: a stream's delta (flatParts)
// and a whole answer's message (flatListMessage).
func rawListParts(list []byte, text, thought *joined) bool {
	return listParts(list, text, thought, false)
}

// listParts is rawListParts; inThinking reads a thinking part's own list,
// whose parts' thinking is not the thought and is not descended (review
// 66q: read at every level, each level's part scanned whole, thinking
// nested 4,000 deep around 1 MB of text cost 1.2 s of CPU, a 64 MiB
// answer over a minute).
func listParts(list []byte, text, thought *joined, inThinking bool) bool {
	parts, isList := rawjson.ScanArray(list)
	if !isList {
		return false
	}
	for _, p, more := parts.Next(); more; _, p, more = parts.Next() {
		if string(p) == "null" {
			continue // a part of nothing, as json.Unmarshal reads it
		}
		if p[0] != '{' {
			return false
		}
		t, th := rawjson.Member(p, "text"), rawjson.Member(p, "thinking")
		if rawjson.Set(t) && t[0] != '"' || rawjson.Set(th) && th[0] != '[' {
			return false
		}
		switch typ, _ := rawjson.String(rawjson.Member(p, "type")); {
		case typ == "text" && rawjson.Set(t):
			text.add(t, len(list))
		case typ == "thinking" && rawjson.Set(th):
			// Its parts' text is the thought (their own thinking is not).
			if inThinking {
				continue
			}
			thought.seen = true
			if !listParts(th, thought, nil, true) {
				return false
			}
		}
	}
	return true
}

// encode is rawjson.Marshal of a value decoded a moment ago, which always
// encodes (nil if it did not, which the caller's decoding then refuses).
func encode(v any) json.RawMessage {
	b, _ := rawjson.Marshal(v)
	return b
}

package responses

import (
	"encoding/json"
	"strings"

	"github.com/detour-llm/detour/internal/rawjson"
)

// A Stream's reasoning item: an OpenAI-compatible model's streamed
// reasoning text (reasoning_content) as one reasoning_text part, announced
// and closed as OpenAI's Responses streams an open model's reasoning
// (response.content_part.added with a reasoning_text part,
// response.reasoning_text.delta, response.reasoning_text.done,
// response.content_part.done), which the openai SDKs' stream helpers
// accumulate. Reasoning comes before what it leads to: text or a call
// closes it, and reasoning after them opens an item of its own.

type openReasoning struct {
	index int
	item  *ReasoningItem
	b     strings.Builder
}

// json is the item as it stands, its text the one part.
func (r *openReasoning) json() json.RawMessage {
	return reasoningJSON(r.item, r.b.String())
}

// reasoningPart is a reasoning_text part holding text, as JSON.
func reasoningPart(text string) []byte {
	b := append(make([]byte, 0, len(text)+40), `{"type":"reasoning_text","text":`...)
	b = rawjson.AppendString(b, text)
	return append(b, '}')
}

// reasoningJSON is item as JSON with one reasoning_text part holding text
// (json.Marshal's bytes for the item with that part), spliced in as
// messageJSON splices a message's parts.
func reasoningJSON(item *ReasoningItem, text string) json.RawMessage {
	shell := *item
	shell.Content = nil
	b := rawJSON(&shell) // Content is the last member: …,"content":null}
	b = append(b[:len(b)-len("null}")], '[')
	b = append(b, reasoningPart(text)...)
	return append(b, "]}"...)
}

// reasoning streams reasoning text into the open reasoning item, opening
// one when none is (after closing an open message: it comes after it).
// Reasoning while a tool call is open is dropped: closing the call there
// would cut its arguments short, and the client would run it with broken
// JSON (hostile 53b); the models that reason say it before their calls.
func (s *Stream) reasoning(t string) {
	if len(s.order) > 0 {
		return
	}
	r := s.think
	if r == nil {
		s.closeMessageInOrder()
		r = &openReasoning{index: len(s.resp.Output), item: newReasoning("in_progress")}
		s.resp.Output = append(s.resp.Output, r.item)
		s.think = r
		s.held += itemHeld
		s.reasoningAdded(r)
	}
	r.b.WriteString(t)
	s.held += rawjson.StringLen(t)
	s.cut = -int32(r.index + 1)
	s.deltaEvent("response.reasoning_text.delta", r.item.ID, r.index, 0, t, false)
}

// reasoningAdded sends output_item.added for r's item (no content yet)
// and content_part.added for its empty reasoning_text part, written by
// hand (they come on the relay's stack, as messageAdded's).
func (s *Stream) reasoningAdded(r *openReasoning) {
	it := r.item
	b := append(s.body[:0], `{"output_index":`...)
	b = appendInt(b, r.index)
	b = append(b, `,"item":{"id":`...)
	b = rawjson.AppendString(b, it.ID)
	b = append(b, `,"type":"reasoning","status":`...)
	b = rawjson.AppendString(b, it.Status)
	s.body = append(b, `,"summary":[],"content":[]}}`...)
	s.eventJSON("response.output_item.added", s.body)
	s.partEvent("response.content_part.added", it.ID, r.index, 0, reasoningPart(""))
}

// closeReasoning closes the open reasoning item with its done events.
func (s *Stream) closeReasoning() {
	r := s.think
	if r == nil {
		return
	}
	s.think = nil
	r.item.Status = s.closing(r.index)
	text := r.b.String()
	b := append(s.body[:0], `{"item_id":`...)
	b = rawjson.AppendString(b, r.item.ID)
	b = append(b, `,"output_index":`...)
	b = appendInt(b, r.index)
	b = append(b, `,"content_index":0,"text":`...)
	b = rawjson.AppendString(b, text)
	s.body = append(b, '}')
	s.eventJSON("response.reasoning_text.done", s.body)
	s.partEvent("response.content_part.done", r.item.ID, r.index, 0, reasoningPart(text))
	s.done(r.index, r.json())
}

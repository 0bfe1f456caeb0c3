package responses

import (
	"encoding/json"

	"github.com/detour-llm/detour/internal/rawjson"
)

// Closing a Stream's items: each closes once, in output order, with its
// .done events (docs/doors.md, "Stream").

// closeMessageInOrder closes the open message, and first the calls opened
// before it, which come before it in the output.
func (s *Stream) closeMessageInOrder() {
	if m := s.msg; m != nil {
		s.closeCalls(m.index)
		s.closeMessage()
	}
}

func (s *Stream) closeMessage() {
	m := s.msg
	if m == nil {
		return
	}
	s.msg = nil
	m.item.Status = s.closing(m.index)
	parts := m.content()
	for _, p := range m.parts {
		if p.refusal {
			s.event("response.refusal.done", struct {
				ItemID       string `json:"item_id"`
				OutputIndex  int    `json:"output_index"`
				ContentIndex int    `json:"content_index"`
				Refusal      string `json:"refusal"`
			}{m.item.ID, m.index, p.index, p.b.String()})
		} else {
			// By hand, as json.Marshal would write the event's struct
			// {item_id, output_index, content_index, text, logprobs}: the
			// whole text is escaped once, into the buffer, not copied and
			// grown on the way (hostile review 51b).
			b := append(s.body[:0], `{"item_id":`...)
			b = rawjson.AppendString(b, m.item.ID)
			b = append(b, `,"output_index":`...)
			b = appendInt(b, m.index)
			b = append(b, `,"content_index":`...)
			b = appendInt(b, p.index)
			b = append(b, `,"text":`...)
			b = rawjson.AppendString(b, p.b.String())
			s.body = append(b, `,"logprobs":[]}`...)
			s.eventJSON("response.output_text.done", s.body)
		}
		s.partEvent("response.content_part.done", m.item.ID, m.index, p.index, parts[p.index])
	}
	s.done(m.index, messageJSON(m.item, parts))
}

// closing is the status the item at index closes with: "incomplete" for
// the one the output limit or a content filter cut short (the last, still
// being written when the answer ended), as OpenAI marks it (probe 51b: a
// call cut mid-arguments closed "completed", and clients ran it with broken
// JSON), else "completed", an earlier call whose arguments were whole
// included (review 51a).
func (s *Stream) closing(index int) string {
	if int(s.cut) == index+1 {
		return "incomplete"
	}
	return "completed"
}

// partEvent sends content_part.added or .done for the part at index of
// the item itemID at outputIndex, part as JSON, encoded by hand so that no
// encoding nests more than the part's own levels.
func (s *Stream) partEvent(kind, itemID string, outputIndex, index int, part json.RawMessage) {
	b := append(s.body[:0], `{"item_id":`...)
	b = rawjson.AppendString(b, itemID)
	b = append(b, `,"output_index":`...)
	b = appendInt(b, outputIndex)
	b = append(b, `,"content_index":`...)
	b = appendInt(b, index)
	b = append(b, `,"part":`...)
	s.body = append(append(b, part...), '}')
	s.eventJSON(kind, s.body)
}

// responseEvent sends an event whose one member is the response as it
// stands (response.created, …, response.completed): the bytes of
// struct{Response *Response}, a level of encoding fewer.
func (s *Stream) responseEvent(kind string) {
	b := append(s.body[:0], `{"response":`...)
	s.body = append(append(b, rawJSON(s.resp)...), '}')
	s.eventJSON(kind, s.body)
}

// done sends output_item.done for the final item at index, item as JSON,
// and keeps it so in the response: encoded once, and shallow to encode
// again in response.completed.
func (s *Stream) done(index int, item json.RawMessage) {
	s.resp.Output[index] = item
	b := append(s.body[:0], `{"output_index":`...)
	b = appendInt(b, index)
	b = append(b, `,"item":`...)
	s.body = append(append(b, item...), '}')
	s.eventJSON("response.output_item.done", s.body)
}

// closeArgued closes the open calls that have arguments, when every open
// call has: an open call still without them keeps the ones after it open
// too, so items close in output order.
func (s *Stream) closeArgued() {
	for _, i := range s.order {
		if s.calls[i].args.Len() == 0 {
			return
		}
	}
	s.closeCalls(len(s.resp.Output))
}

// closeCalls closes the open calls whose output index is below before, in
// the order they opened (their output order); the others stay open.
func (s *Stream) closeCalls(before int) {
	kept := s.order[:0]
	for _, i := range s.order {
		c := s.calls[i]
		if c.index >= before {
			kept = append(kept, i)
			continue
		}
		c.item.Status, c.item.Arguments = s.closing(c.index), c.args.String()
		// name as OpenAI sends it: "The name of the function that was
		// called" (clients read it here, not only from the item).
		s.event("response.function_call_arguments.done", struct {
			ItemID      string `json:"item_id"`
			Name        string `json:"name"`
			OutputIndex int    `json:"output_index"`
			Arguments   string `json:"arguments"`
		}{c.item.ID, c.item.Name, c.index, c.item.Arguments})
		s.done(c.index, rawJSON(c.item))
		delete(s.calls, i)
		if s.closed == nil {
			s.closed = make(map[int]bool)
		}
		s.closed[i] = true
	}
	s.order = kept
	if len(kept) == 0 {
		s.calls, s.order = nil, nil
	}
}

package responses

import (
	"encoding/json"

	"github.com/detour-llm/detour/internal/rawjson"
)

// Event payloads and SSE framing for Stream. Each payload is an event's
// members other than "type" and "sequence_number", which event adds.

type itemEvent struct {
	OutputIndex int `json:"output_index"`
	Item        any `json:"item"`
}

// errorEvent is the error event's payload: the fields flat, as OpenAI's
// reference writes the event, and again nested under "error" with its
// type, as the live API sends it: openai-go, openai-node 6 and
// openai-python raise only on the nested object, and read the flat event
// to its end as a finished answer (probe 56b: LangGraph ran a cut tool
// call; openai/openai-dotnet#881 shows the nested form; probe 66c: a
// passthrough's flat event alone was a finished answer to openai-go).
type errorEvent struct {
	Code    string      `json:"code"`
	Message string      `json:"message"`
	Param   *string     `json:"param"`
	Error   errorDetail `json:"error"`
}

type errorDetail struct {
	Type    string  `json:"type"`
	Code    string  `json:"code"`
	Message string  `json:"message"`
	Param   *string `json:"param"`
}

func newErrorEvent(typ, code, message string) errorEvent {
	return errorEvent{code, message, nil, errorDetail{typ, code, message, nil}}
}

// ErrorEventData is the data of the error event numbered seq that ends a
// stream Detour relays but did not build (a passthrough's, whose numbers
// are the upstream's), as Stream.Fail writes its own: typ and code are
// what the error envelope's "type" and "code" carry for the failure.
func ErrorEventData(seq int, typ, code, message string) []byte {
	b, _ := json.Marshal(struct {
		Type string `json:"type"`
		Seq  int    `json:"sequence_number"`
		errorEvent
	}{"error", seq, newErrorEvent(typ, code, message)})
	return b
}

// deltaEvent sends a delta event (output_text, refusal,
// function_call_arguments) with its members written by hand, as json.Marshal
// writes them: one a chunk, on the relay's stack, where encoding/json's
// reflection took a frame a level (docs/benchmarks.md, "Round 22").
// contentIndex < 0 leaves content_index out; logprobs adds "logprobs":[].
func (s *Stream) deltaEvent(kind, itemID string, outputIndex, contentIndex int, delta string, logprobs bool) {
	b := append(s.body[:0], `{"item_id":`...)
	b = rawjson.AppendString(b, itemID)
	b = append(b, `,"output_index":`...)
	b = appendInt(b, outputIndex)
	if contentIndex >= 0 {
		b = append(b, `,"content_index":`...)
		b = appendInt(b, contentIndex)
	}
	b = append(b, `,"delta":`...)
	b = rawjson.AppendString(b, delta)
	if logprobs {
		b = append(b, `,"logprobs":[]`...)
	}
	s.body = append(b, '}')
	s.eventJSON(kind, s.body)
}

// messageAdded sends output_item.added for m's item, just opened (no
// content yet), written by hand as json.Marshal writes itemEvent: it comes
// at the first text, on the relay's stack (deltaEvent).
func (s *Stream) messageAdded(m *openMessage) {
	it := m.item
	if len(it.Content) > 0 {
		s.event("response.output_item.added", itemEvent{m.index, it})
		return
	}
	b := append(s.body[:0], `{"output_index":`...)
	b = appendInt(b, m.index)
	b = append(b, `,"item":{"id":`...)
	b = rawjson.AppendString(b, it.ID)
	b = append(b, `,"type":`...)
	b = rawjson.AppendString(b, it.Type)
	b = append(b, `,"status":`...)
	b = rawjson.AppendString(b, it.Status)
	b = append(b, `,"role":`...)
	b = rawjson.AppendString(b, it.Role)
	s.body = append(b, `,"content":[]}}`...)
	s.eventJSON("response.output_item.added", s.body)
}

// event appends one frame: the payload's members plus "type" and
// "sequence_number".
func (s *Stream) event(kind string, payload any) {
	body, err := json.Marshal(payload)
	if err != nil || len(body) < 2 || body[0] != '{' {
		body = []byte("{}")
	}
	s.eventJSON(kind, body)
}

// eventJSON is event for a payload already encoded: body is a JSON object
// as json.Marshal writes it.
func (s *Stream) eventJSON(kind string, body []byte) {
	s.buf = append(s.buf, "event: "...)
	s.buf = append(s.buf, kind...)
	s.buf = append(s.buf, "\ndata: {\"type\":"...)
	s.buf = rawjson.AppendString(s.buf, kind)
	s.buf = append(s.buf, ",\"sequence_number\":"...)
	s.buf = appendInt(s.buf, s.seq)
	if len(body) > 2 {
		s.buf = append(s.buf, ',')
	}
	s.buf = append(s.buf, body[1:]...)
	s.buf = append(s.buf, "\n\n"...)
	s.seq++
}

// out returns a copy of the frames built since the last call.
func (s *Stream) out() []byte {
	if len(s.buf) == 0 {
		return nil
	}
	return append([]byte(nil), s.buf...)
}

func appendInt(b []byte, n int) []byte {
	var d [20]byte
	i := len(d)
	if n == 0 {
		return append(b, '0')
	}
	for n > 0 {
		i--
		d[i] = byte('0' + n%10)
		n /= 10
	}
	return append(b, d[i:]...)
}

package responses

import "encoding/json"

// Event payloads and SSE framing for Stream. Each payload is an event's
// members other than "type" and "sequence_number", which event adds.

type itemEvent struct {
	OutputIndex int `json:"output_index"`
	Item        any `json:"item"`
}

type textDelta struct {
	ItemID       string `json:"item_id"`
	OutputIndex  int    `json:"output_index"`
	ContentIndex int    `json:"content_index"`
	Delta        string `json:"delta"`
	Logprobs     []any  `json:"logprobs"`
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
	s.buf, _ = appendJSONString(s.buf, kind)
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

func appendJSONString(b []byte, v string) ([]byte, error) {
	q, err := json.Marshal(v)
	return append(b, q...), err
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

package responses

import (
	"errors"
	"strings"

	"github.com/detour-llm/detour/internal/provider/chat"
)

// Stream encodes canonical chat.completion.chunk objects as Responses
// stream events. Feed it with Chunk, then call End once on a normal end of
// the stream or Fail once on a failure; each returns complete SSE frames
// (`event: <type>\ndata: <json>\n\n`) to write in order. Events follow
// https://platform.openai.com/docs/api-reference/responses-streaming and the
// openai-go Response*Event types; every event carries sequence_number from
// 0.
//
// Order: response.created and response.in_progress before the first output;
// text opens a message item (response.output_item.added,
// response.content_part.added) and streams response.output_text.delta; a
// chat refusal streams as response.refusal.delta into a refusal part of the
// same message. A tool call opens a function_call item and streams
// response.function_call_arguments.delta. A tool call closes the open
// message item (output_text.done or refusal.done and content_part.done for
// each part, then output_item.done); text after a tool call opens a new
// message item. End closes every open item in output order, then sends
// response.completed, or response.incomplete when the finish reason was
// length or content_filter. Only choice 0 is read.
//
// A Stream is not safe for concurrent use. New streams come from NewStream.
type Stream struct {
	echo    *Echo
	resp    *Response
	seq     int
	started bool
	ended   bool
	buf     []byte

	msg    *openMessage      // the open message item, nil when none
	calls  map[int]*openCall // open function_call items by chunk index
	order  []int             // open call indexes in opening order
	finish string
	usage  *chat.Usage
}

type openMessage struct {
	index int
	item  *MessageItem
	parts []*openPart // in content order
	// text and refusal are the message's output_text and refusal parts,
	// nil until their first delta.
	text, refusal *openPart
}

type openPart struct {
	index   int
	refusal bool
	b       strings.Builder
}

// final is the part as it stands.
func (p *openPart) final() any {
	if p.refusal {
		return &RefusalPart{Type: "refusal", Refusal: p.b.String()}
	}
	return newText(p.b.String())
}

// content is the message's parts as they stand.
func (m *openMessage) content() []any {
	out := make([]any, len(m.parts))
	for i, p := range m.parts {
		out[i] = p.final()
	}
	return out
}

type openCall struct {
	index int
	item  *CallItem
	args  strings.Builder
}

// NewStream starts an encoder for a response to the request echoed by e
// (nil for defaults); model is used until a chunk names the model.
func NewStream(e *Echo, model string, created int64) *Stream {
	if e == nil {
		e = &Echo{}
	}
	return &Stream{echo: e, resp: newResponse(NewID(), created, model, e)}
}

// ID is the response id the stream reports.
func (s *Stream) ID() string { return s.resp.ID }

// ErrEnded is returned when a chunk arrives after End or Fail.
var ErrEnded = errors.New("responses: stream already ended")

// Chunk translates one canonical chunk into zero or more frames. A chunk
// that is not valid JSON is an error and changes nothing.
func (s *Stream) Chunk(data []byte) ([]byte, error) {
	if s.ended {
		return nil, ErrEnded
	}
	var c chunk
	if err := readChunk(data, &c); err != nil {
		return nil, err
	}
	s.buf = s.buf[:0]
	if c.Model != "" && !s.started {
		s.resp.Model = c.Model
	}
	s.start()
	if c.Usage != nil {
		s.usage = c.Usage
	}
	for _, ch := range c.Choices {
		if ch.Index != 0 {
			continue
		}
		d := ch.Delta
		if d.Content != nil && *d.Content != "" {
			s.text(*d.Content)
		}
		if d.Refusal != nil && *d.Refusal != "" {
			s.refusal(*d.Refusal)
		}
		for _, tc := range d.ToolCalls {
			s.toolCall(tc.Index, tc.ID, tc.Function.Name, tc.Function.Arguments)
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			s.finish = *ch.FinishReason
		}
	}
	return s.out(), nil
}

// End closes every open item and sends response.completed (or
// response.incomplete) with the whole response and its usage. Later calls
// return nothing.
func (s *Stream) End() []byte {
	if s.ended {
		return nil
	}
	s.buf = s.buf[:0]
	s.start()
	s.closeMessage()
	s.closeCalls()
	s.resp.finish(s.finish)
	s.resp.Usage = responsesUsage(s.usage)
	kind := "response.completed"
	if s.resp.Status == "incomplete" {
		kind = "response.incomplete"
	}
	s.event(kind, struct {
		Response *Response `json:"response"`
	}{s.resp})
	s.ended = true
	return s.out()
}

// Fail ends the stream with an error. Once response.created was sent it
// sends the `error` event {code, message, param} and then response.failed:
// the response with status "failed", error {code, message}, the output so
// far (open items marked "incomplete") and any usage. The error event is
// there for clients that read no response.failed (LangChain's ChatOpenAI
// ends such a stream as if it completed; the openai SDKs throw at the
// error event), response.failed for those that end a stream on it (Codex,
// which skips events it does not know). Before response.created it sends
// the `error` event alone.
// code is what the error envelope's "code" carries for the same failure
// (the Detour class name, or a code such as "shutdown"), so a client sees
// one vocabulary whether the failure came before or after the commit.
// Later calls return nothing.
func (s *Stream) Fail(code, message string) []byte {
	if s.ended {
		return nil
	}
	s.ended = true
	s.buf = s.buf[:0]
	s.event("error", struct {
		Code    string  `json:"code"`
		Message string  `json:"message"`
		Param   *string `json:"param"`
	}{code, message, nil})
	if !s.started {
		return s.out()
	}
	if s.msg != nil {
		s.msg.item.Status = "incomplete"
		s.msg.item.Content = s.msg.content()
	}
	for _, i := range s.order {
		c := s.calls[i]
		c.item.Status, c.item.Arguments = "incomplete", c.args.String()
	}
	s.resp.Status = "failed"
	s.resp.Error = &ResponseError{Code: code, Message: message}
	s.resp.Usage = responsesUsage(s.usage)
	s.event("response.failed", struct {
		Response *Response `json:"response"`
	}{s.resp})
	return s.out()
}

func (s *Stream) start() {
	if s.started {
		return
	}
	s.started = true
	s.event("response.created", struct {
		Response *Response `json:"response"`
	}{s.resp})
	s.event("response.in_progress", struct {
		Response *Response `json:"response"`
	}{s.resp})
}

// message returns the open message item, opening one when none is.
func (s *Stream) message() *openMessage {
	if s.msg == nil {
		m := &openMessage{index: len(s.resp.Output), item: &MessageItem{
			ID: itemID("msg_"), Type: "message", Status: "in_progress", Role: "assistant", Content: []any{},
		}}
		s.resp.Output = append(s.resp.Output, m.item)
		s.msg = m
		s.event("response.output_item.added", itemEvent{m.index, m.item})
	}
	return s.msg
}

// openPart adds a content part to m and announces it.
func (s *Stream) openPart(m *openMessage, refusal bool) *openPart {
	p := &openPart{index: len(m.parts), refusal: refusal}
	m.parts = append(m.parts, p)
	s.event("response.content_part.added", partEvent{m.item.ID, m.index, p.index, p.final()})
	return p
}

func (s *Stream) text(t string) {
	m := s.message()
	if m.text == nil {
		m.text = s.openPart(m, false)
	}
	m.text.b.WriteString(t)
	s.event("response.output_text.delta", textDelta{m.item.ID, m.index, m.text.index, t, []any{}})
}

// refusal streams a chat refusal delta as response.refusal.delta into the
// message's refusal part.
func (s *Stream) refusal(t string) {
	m := s.message()
	if m.refusal == nil {
		m.refusal = s.openPart(m, true)
	}
	m.refusal.b.WriteString(t)
	s.event("response.refusal.delta", struct {
		ItemID       string `json:"item_id"`
		OutputIndex  int    `json:"output_index"`
		ContentIndex int    `json:"content_index"`
		Delta        string `json:"delta"`
	}{m.item.ID, m.index, m.refusal.index, t})
}

func (s *Stream) toolCall(index int, id, name, args string) {
	c := s.calls[index]
	if c == nil {
		s.closeMessage()
		ns, n := s.echo.clientName(name)
		c = &openCall{index: len(s.resp.Output), item: &CallItem{
			ID: itemID("fc_"), Type: "function_call", Status: "in_progress", CallID: id, Name: n, Namespace: ns,
		}}
		if s.calls == nil {
			s.calls = make(map[int]*openCall)
		}
		s.calls[index] = c
		s.order = append(s.order, index)
		s.resp.Output = append(s.resp.Output, c.item)
		s.event("response.output_item.added", itemEvent{c.index, c.item})
	}
	if args == "" {
		return
	}
	c.args.WriteString(args)
	s.event("response.function_call_arguments.delta", struct {
		ItemID      string `json:"item_id"`
		OutputIndex int    `json:"output_index"`
		Delta       string `json:"delta"`
	}{c.item.ID, c.index, args})
}

func (s *Stream) closeMessage() {
	m := s.msg
	if m == nil {
		return
	}
	s.msg = nil
	for _, p := range m.parts {
		if p.refusal {
			s.event("response.refusal.done", struct {
				ItemID       string `json:"item_id"`
				OutputIndex  int    `json:"output_index"`
				ContentIndex int    `json:"content_index"`
				Refusal      string `json:"refusal"`
			}{m.item.ID, m.index, p.index, p.b.String()})
		} else {
			s.event("response.output_text.done", struct {
				ItemID       string `json:"item_id"`
				OutputIndex  int    `json:"output_index"`
				ContentIndex int    `json:"content_index"`
				Text         string `json:"text"`
				Logprobs     []any  `json:"logprobs"`
			}{m.item.ID, m.index, p.index, p.b.String(), []any{}})
		}
		s.event("response.content_part.done", partEvent{m.item.ID, m.index, p.index, p.final()})
	}
	m.item.Status, m.item.Content = "completed", m.content()
	s.event("response.output_item.done", itemEvent{m.index, m.item})
}

func (s *Stream) closeCalls() {
	for _, i := range s.order {
		c := s.calls[i]
		c.item.Status, c.item.Arguments = "completed", c.args.String()
		s.event("response.function_call_arguments.done", struct {
			ItemID      string `json:"item_id"`
			OutputIndex int    `json:"output_index"`
			Arguments   string `json:"arguments"`
		}{c.item.ID, c.index, c.item.Arguments})
		s.event("response.output_item.done", itemEvent{c.index, c.item})
	}
	s.calls, s.order = nil, nil
}

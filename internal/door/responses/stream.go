package responses

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/detour-llm/detour/internal/provider/chat"
	"github.com/detour-llm/detour/internal/rawjson"
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
	// cut is 1 + the output index of the item the output limit or a
	// content filter cut short, which closes "incomplete"; 0 for none.
	// While the stream runs it is minus that of the item that got the last
	// piece of text or arguments (the one being written), which End makes
	// the cut one if the answer was cut (review 51b: the last item in the
	// output is not always the one being written).
	cut  int32
	buf  []byte
	body []byte // an event's members, built by hand

	think  *openReasoning    // the open reasoning item, nil when none
	msg    *openMessage      // the open message item, nil when none
	apart  chat.Calls        // the answer's tool calls, told apart
	calls  map[int]*openCall // open function_call items by call (apart's numbering)
	order  []int             // open calls in opening order
	closed map[int]bool      // calls closed before the end
	opened int               // function_call items opened, for chat.MaxParts
	finish string
	usage  *chat.Usage
	chunk  chat.StreamChunk // the chunk Chunk reads, kept so its id is copied once a stream
	held   int              // bytes of text, refusal, arguments, call names and ids kept for the done events
}

// MaxHeld bounds the answer a Stream keeps to repeat in its done events and
// response.completed: past it Chunk returns ErrTooLarge, and the stream is
// failed rather than the gateway's memory grown for as long as an upstream
// streams. The closing events say the answer again four times over, so
// what is held costs many times its size to close (hostile review 51b: a
// 48 MiB answer took 900 MiB of heap); 16 MiB is some thirty times the
// longest answer a model writes (128,000 tokens of text are about 0.5 MB).
const MaxHeld = 16 << 20

// itemHeld is what an item costs to say again beside its text (its id,
// type and status in each of its events, the item, response.completed),
// counted as held when it opens: a stream alternating reasoning and text a
// byte at a time opened 300,000 items from 600 KB of text and took 820 MiB
// (hostile 53b). Text is counted as it is escaped (rawjson.StringLen).
const itemHeld = 512

// ErrTooLarge is Chunk's error once the answer held passes MaxHeld.
var ErrTooLarge = errors.New("responses: the answer passed 16 MiB")

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

// content is the message's parts as they stand, each as JSON.
func (m *openMessage) content() []json.RawMessage {
	out := make([]json.RawMessage, len(m.parts))
	for i, p := range m.parts {
		out[i] = rawJSON(p.final())
	}
	return out
}

// rawJSON is v as JSON (the door's own types always encode).
func rawJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// messageJSON is the message item as JSON, with parts as its content. The
// item is encoded without them and the parts spliced in, so that no
// encoding nests more than a level of values: encoding/json's encoder
// takes a frame or more per level on the handler's stack, and a message's
// output_item.done took it past 8 KiB (docs/benchmarks.md, "Round 6: the
// doors"). The bytes are json.Marshal's for the whole item.
func messageJSON(item *MessageItem, parts []json.RawMessage) json.RawMessage {
	shell := *item
	shell.Content = nil
	b := rawJSON(&shell) // Content is the last member: …,"content":null}
	b = append(b[:len(b)-len("null}")], '[')
	for i, p := range parts {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, p...)
	}
	return append(b, "]}"...)
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
// that is not valid JSON is an error and changes nothing; ErrTooLarge says
// the answer held passed MaxHeld, and the stream is to end with Fail.
func (s *Stream) Chunk(data []byte) ([]byte, error) {
	if s.ended {
		return nil, ErrEnded
	}
	c := &s.chunk
	if err := chat.ReadStreamChunk(data, c); err != nil {
		return nil, err
	}
	s.buf = s.buf[:0]
	if c.Model != "" && !s.started {
		s.resp.Model = c.Model
	}
	s.start()
	if u := c.Reported(); u != nil {
		s.usage = u
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue
		}
		d := &ch.Delta
		if t := d.Thinking(); t != "" {
			s.reasoning(t)
		}
		if d.Content != nil && *d.Content != "" {
			s.text(*d.Content)
		}
		if d.Refusal != nil && *d.Refusal != "" {
			s.refusal(*d.Refusal)
		}
		for i := range d.ToolCalls {
			// Parallel calls an upstream sent at one index are told
			// apart: each call has an index of its own from here on.
			tc := &d.ToolCalls[i]
			if call, _, ok := s.apart.Of(tc); ok {
				s.toolCall(call, tc.ID, tc.Function.Name, tc.Function.Arguments, tc.ExtraContent)
			}
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			s.finish = *ch.FinishReason
		}
	}
	if s.held > MaxHeld {
		return nil, ErrTooLarge
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
	// The closing events say what is held about four times over (the
	// done events, the item, response.completed): sized once, the buffer
	// is not copied again and again as it grows.
	s.buf = slices.Grow(s.buf[:0], 4*s.held+4096)
	s.start()
	if s.finish == "length" || s.finish == "content_filter" {
		s.cut = -s.cut // the item being written (items are at most chat.MaxParts)
	} else {
		s.cut = 0
	}
	// Every open item closes in output order: calls opened before an open
	// message first, then it, then the calls after it — as a client that
	// builds its history from output_item.done expects (reviews 32d, 32i:
	// text, call, text closed as 0, 2, 1; call, text, call as 1, 0, 2).
	s.closeReasoning()
	s.closeMessageInOrder()
	s.closeCalls(len(s.resp.Output))
	s.resp.finish(s.finish)
	s.resp.Usage = responsesUsage(s.usage)
	kind := "response.completed"
	if s.resp.Status == "incomplete" {
		kind = "response.incomplete"
	}
	s.responseEvent(kind)
	s.ended = true
	return s.out()
}

// Fail ends the stream with an error. Once response.created was sent it
// sends the `error` event (code, message and param, flat and nested with
// its type: errorEvent) and then response.failed:
// the response with status "failed", error {code, message}, the output so
// far (open items marked "incomplete") and any usage. The error event is
// there for clients that read no response.failed (LangChain's ChatOpenAI
// ends such a stream as if it completed; the openai SDKs throw at the
// error event, at its nested "error"), response.failed for those that end a stream on it (Codex,
// which skips events it does not know). Before response.created it sends
// the `error` event alone.
// typ and code are what the error envelope's "type" and "code" carry for
// the same failure (OpenAI's type for the class; the Detour class name, or
// a code such as "shutdown"), so a client sees one vocabulary whether the
// failure came before or after the commit: the nested error's "type" is
// the envelope's, as OpenAI's own nested error's is ("insufficient_quota",
// "invalid_request_error"), not the code (probe 66c: "auth" after the
// commit where the same failure before it was "authentication_error").
// Later calls return nothing.
func (s *Stream) Fail(typ, code, message string) []byte {
	if s.ended {
		return nil
	}
	s.ended = true
	s.buf = s.buf[:0]
	s.event("error", newErrorEvent(typ, code, message))
	if !s.started {
		return s.out()
	}
	if s.held > MaxHeld {
		// Past the bound: the output is not said again (the client has
		// had every item already, and saying it whole is what the bound
		// is against).
		s.resp.Output = s.resp.Output[:0]
	} else {
		if r := s.think; r != nil {
			r.item.Status = "incomplete"
			s.resp.Output[r.index] = r.json()
		}
		if m := s.msg; m != nil {
			m.item.Status = "incomplete"
			s.resp.Output[m.index] = messageJSON(m.item, m.content())
		}
		for _, i := range s.order {
			c := s.calls[i]
			c.item.Status, c.item.Arguments = "incomplete", c.args.String()
		}
	}
	s.resp.Status = "failed"
	s.resp.Error = &ResponseError{Code: code, Message: message}
	s.resp.Usage = responsesUsage(s.usage)
	s.responseEvent("response.failed")
	return s.out()
}

func (s *Stream) start() {
	if s.started {
		return
	}
	s.started = true
	s.responseEvent("response.created")
	s.responseEvent("response.in_progress")
}

// message returns the open message item, opening one when none is.
func (s *Stream) message() *openMessage {
	s.closeReasoning()
	if s.msg == nil {
		m := &openMessage{index: len(s.resp.Output), item: &MessageItem{
			ID: itemID("msg_"), Type: "message", Status: "in_progress", Role: "assistant", Content: []any{},
		}}
		s.resp.Output = append(s.resp.Output, m.item)
		s.msg = m
		s.held += itemHeld
		s.messageAdded(m)
	}
	return s.msg
}

// openPart adds a content part to m and announces it.
func (s *Stream) openPart(m *openMessage, refusal bool) *openPart {
	p := &openPart{index: len(m.parts), refusal: refusal}
	m.parts = append(m.parts, p)
	s.partEvent("response.content_part.added", m.item.ID, m.index, p.index, rawJSON(p.final()))
	return p
}

func (s *Stream) text(t string) {
	m := s.message()
	if m.text == nil {
		m.text = s.openPart(m, false)
	}
	m.text.b.WriteString(t)
	s.held += rawjson.StringLen(t)
	s.cut = -int32(m.index + 1)
	s.deltaEvent("response.output_text.delta", m.item.ID, m.index, m.text.index, t, true)
}

// refusal streams a chat refusal delta as response.refusal.delta into the
// message's refusal part.
func (s *Stream) refusal(t string) {
	m := s.message()
	if m.refusal == nil {
		m.refusal = s.openPart(m, true)
	}
	m.refusal.b.WriteString(t)
	s.held += rawjson.StringLen(t)
	s.cut = -int32(m.index + 1)
	s.deltaEvent("response.refusal.delta", m.item.ID, m.index, m.refusal.index, t, false)
}

func (s *Stream) toolCall(index int, id, name, args string, extra []byte) {
	if s.closed[index] {
		// A piece of a call already closed, in output order, before a
		// later message (upstreams that interleave calls): its item was
		// sent whole; a piece now must not open a nameless call of its
		// own (review 32k). Dropped.
		return
	}
	c := s.calls[index]
	if c == nil && s.opened >= chat.MaxParts {
		return // more tool calls than any answer makes: dropped
	}
	if c == nil {
		s.closeReasoning()
		s.closeMessageInOrder()
		// The calls open before it that have their arguments are done, as
		// OpenAI streams them: one call's added … done before the next is
		// added. A client that keeps one current call (LlamaIndex's
		// OpenAIResponses) merged two parallel calls into one otherwise
		// (review 48c). A call without arguments yet stays open: an upstream
		// may name several calls before it sends their arguments (review 48b).
		s.closeArgued()
		ns, n := s.echo.clientName(name)
		if id == "" {
			id = NewCallID() // an upstream that gave none (LM Studio, Ollama, SGLang's later calls)
		}
		if sig := chat.TaggedSignature(extra); sig != "" {
			s.signed(sig)
		}
		c = &openCall{index: len(s.resp.Output), item: &CallItem{
			ID: itemID("fc_"), Type: "function_call", Status: "in_progress", CallID: id, Name: n, Namespace: ns,
		}}
		if s.calls == nil {
			s.calls = make(map[int]*openCall)
		}
		s.calls[index] = c
		s.order = append(s.order, index)
		s.opened++
		// The name and the id are kept too, and said again at the end:
		// counted as the arguments are (hostile review 51b: 96 calls named
		// by 1 MiB each were held past the bound).
		s.held += rawjson.StringLen(name) + rawjson.StringLen(id) + itemHeld
		s.resp.Output = append(s.resp.Output, c.item)
		s.event("response.output_item.added", itemEvent{c.index, c.item})
	}
	if args == "" {
		return
	}
	c.args.WriteString(args)
	s.held += rawjson.StringLen(args)
	s.cut = -int32(c.index + 1)
	s.deltaEvent("response.function_call_arguments.delta", c.item.ID, c.index, -1, args, false)
}

// signed sends a whole reasoning item carrying a Gemini call's sealed
// thought signature, before the call, as Answer places it (docs/doors.md,
// "Gemini thought signatures").
func (s *Stream) signed(sig string) {
	it := newReasoning("completed")
	it.EncryptedContent = sig
	index := len(s.resp.Output)
	s.resp.Output = append(s.resp.Output, it)
	s.held += rawjson.StringLen(sig) + itemHeld
	s.event("response.output_item.added", itemEvent{index, it})
	s.done(index, rawJSON(it))
}

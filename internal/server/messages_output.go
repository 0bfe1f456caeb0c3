package server

import (
	"github.com/detour-llm/detour/internal/sse"
	"net/http"

	"github.com/detour-llm/detour/internal/dispatch"
	"github.com/detour-llm/detour/internal/door/messages"
)

// messagesOutput is the dispatch.Output of a /v1/messages stream. It
// shares sseOutput's commit (headers, X-Detour-*) and its timed, batched
// writes, and writes Anthropic's frames: for a native stream (an Anthropic
// target), each upstream event's data as it came under
// "event: <its type>"; for a translated one, the messages.Encoder's frames.
// A failure after the commit point is Anthropic's "event: error" with the
// envelope. Not safe for concurrent use; use newMessagesOutput.
type messagesOutput struct {
	sse         *sseOutput
	native      bool
	enc         *messages.Encoder
	inputTokens int  // message_start's input_tokens estimate for a translated stream
	stopped     bool // the last native event relayed was a message_stop
	buf         []byte
}

func newMessagesOutput(w http.ResponseWriter, id, route string) *messagesOutput {
	return &messagesOutput{sse: newSSEOutput(w, id, route)}
}

// Commit writes the response headers and chooses the framing.
func (o *messagesOutput) Commit(c dispatch.Commit) error {
	if err := o.sse.Commit(c); err != nil {
		return err
	}
	o.native = c.Native
	if !o.native {
		o.enc = messages.NewEncoder(o.sse.a.route)
		o.enc.InputTokens = o.inputTokens
	}
	return nil
}

// Chunk writes one upstream event (native) or the frames of one canonical
// chunk (translated).
func (o *messagesOutput) Chunk(chunk []byte) error {
	if err := o.sse.open(); err != nil {
		return err
	}
	if !o.native {
		frames, err := o.enc.Chunk(chunk)
		if err != nil || len(frames) == 0 {
			return nil // a chunk the encoder cannot read writes nothing
		}
		return o.sse.write(frames)
	}
	h := readEvent(chunk)
	typ := h.name
	// The relay ends the stream on what the provider's reader reads: an
	// odd event it reads as message_stop is the stream's one end, named so
	// on its event line too (the gateway then adds none of its own).
	o.stopped = string(h.name) == "message_stop" || h.odd && h.relayIs(chunk, "message_stop")
	switch {
	case o.stopped:
		typ = messageStop
	case typ == nil: // Anthropic names every event; the SSE default is "message"
		typ = messageEvent
	}
	o.buf = sse.AppendEvent(o.buf[:0], typ, chunk)
	err := o.sse.relay(o.buf, o.stopped) // the upstream's own last event waits for release
	o.buf = keepFrame(o.buf)
	return err
}

var messageStop = []byte("message_stop")

// End closes the stream: the encoder's message_delta and message_stop, or,
// for a native stream that finished without relaying message_stop, one
// message_stop.
func (o *messagesOutput) End() error {
	if err := o.sse.open(); err != nil {
		return err
	}
	var b []byte
	switch {
	case !o.native:
		b = o.enc.End()
	case !o.stopped:
		b = []byte("event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
	}
	return o.sse.finish(b)
}

func (o *messagesOutput) holdEnd() { o.sse.holdEnd() }
func (o *messagesOutput) release() { o.sse.release() }

// Flush sends what Chunk wrote.
func (o *messagesOutput) Flush() error { return o.sse.Flush() }

// Fail ends the stream with Anthropic's error event.
func (o *messagesOutput) Fail(f *dispatch.Failure) error {
	if o.sse.state != 1 {
		return errNotCommitted
	}
	return o.sse.fail(messages.ErrorEventDetails(f.Class, f.Status, f.Message, messagesCode(f), messagesDetails(f)))
}

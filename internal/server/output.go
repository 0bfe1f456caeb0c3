package server

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/dispatch"
	"github.com/detour-llm/detour/internal/offstack"
	"github.com/detour-llm/detour/internal/sse"
)

// clientWriteTimeout bounds one write to a client: a streaming client that
// stalls longer is dropped, so it cannot hold an upstream.
const clientWriteTimeout = 30 * time.Second

// answer is what the X-Detour-* headers of one response say.
type answer struct {
	id, route        string // the decision id; the route or target the client named
	target, provider string // empty when no attempt was made
	attempts         int
	class            string // set on a failure only
}

// detourHeaders sets every X-Detour-* header of a response, the decision id
// again as X-Request-Id and Request-Id, and its Date (httpDate): the one place they are set, for streams (at the commit point)
// and whole answers alike.
// The values share one allocation (each a slice of its own, capped, so an
// Add to one never reaches the next); the names are canonical as written.
func detourHeaders(h http.Header, a answer) {
	vals := make([]string, 0, 9)
	set := func(name, v string) {
		vals = append(vals, v)
		h[name] = vals[len(vals)-1 : len(vals) : len(vals)]
	}
	set("Date", httpDate())
	set("X-Detour-Decision", a.id)
	// The same id under the names the SDKs show in their errors
	// (anthropic-sdk-go's "(Request-ID: …)", the OpenAI SDKs' request_id):
	// a user's error message leads the operator to the decision record.
	set("X-Request-Id", a.id)
	set("Request-Id", a.id)
	set("X-Detour-Route", a.route)
	if a.target != "" {
		set("X-Detour-Target", a.target)
		set("X-Detour-Provider", a.provider)
	}
	set("X-Detour-Attempts", strconv.Itoa(a.attempts))
	if a.class != "" {
		set("X-Detour-Class", a.class)
	}
}

// requestID is the id of the answer w's headers h are for: the one they
// carry (the decision id, detourHeaders), or a fresh one of the same
// form, set as X-Request-Id and Request-Id. Every answer carries one, the
// gateway's own refusals too (a 401, an unknown model's 404, a body the
// front refuses), which name no decision record: before review 63c they
// carried none, and anthropic-sdk-go's Error.RequestID and the OpenAI
// SDKs' request id were empty just where a user had an error to report.
func requestID(h http.Header) string {
	if v := h["X-Request-Id"]; len(v) > 0 {
		return v[0]
	}
	id := decision.NewID()
	vals := []string{id, id} // one allocation; each capped, as in detourHeaders
	h["X-Request-Id"], h["Request-Id"] = vals[0:1:1], vals[1:2:2]
	return id
}

// errCommitted and errNotCommitted refuse calls out of order.
var (
	errCommitted    = errors.New("server: the stream is already committed")
	errNotCommitted = errors.New("server: the stream is not committed")
	errEnded        = errors.New("server: the stream has ended")
)

// sseOutput is the dispatch.Output of a chat-completions stream: it writes
// the response headers at the commit point, each chunk as an SSE data
// event, "[DONE]" at a normal end, and an "error" event carrying the error
// envelope (and no [DONE]) when the stream breaks. Chunks wait in
// net/http's buffer until Flush (dispatch flushes before it waits for the
// upstream); End and Fail flush. Every batch of writes and its flush are
// bounded by timeout; a write that fails or times out reports the client
// gone. Not safe for concurrent use (dispatch calls it from the request's
// goroutine); the zero value is not usable: use newSSEOutput.
type sseOutput struct {
	w       http.ResponseWriter
	rc      *http.ResponseController
	a       answer // id and route; the rest is set at the commit point
	timeout time.Duration
	state   int  // 0 before the commit point, 1 streaming, 2 ended
	pending bool // written since the last flush, under one write deadline
	// headerOut: net/http has written the response header (see
	// offstack.Run); early counts the bytes written before that.
	headerOut bool
	early     int
	// hold: the stream's last event waits in held until release (holdEnd).
	hold bool
	held []byte
}

func newSSEOutput(w http.ResponseWriter, id, route string) *sseOutput {
	return &sseOutput{w: w, rc: http.NewResponseController(w), a: answer{id: id, route: route}, timeout: clientWriteTimeout}
}

// Commit writes the response headers.
func (o *sseOutput) Commit(c dispatch.Commit) error {
	if o.state != 0 {
		return errCommitted
	}
	o.state = 1
	h := o.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	o.a.target, o.a.provider, o.a.attempts = c.Target, c.Provider, c.Attempts
	detourHeaders(h, o.a)
	o.w.WriteHeader(http.StatusOK)
	return nil
}

// Chunk writes one chat.completion.chunk as an SSE data event.
func (o *sseOutput) Chunk(chunk []byte) error { return o.data(chunk) }

// Flush sends what Chunk wrote.
func (o *sseOutput) Flush() error {
	if !o.pending {
		return nil
	}
	o.pending = false
	if !o.headerOut {
		o.headerOut = true
		return offstack.Run(o.rc.Flush)
	}
	return o.rc.Flush()
}

// End writes the end marker, [DONE], and flushes.
func (o *sseOutput) End() error {
	if err := o.open(); err != nil {
		return err
	}
	return o.finish(doneFrame)
}

var doneFrame = []byte("data: " + string(sse.Done) + "\n\n")

// holdEnd makes the stream's last event wait for release: set for a call
// a client key's limits meter, so that its spend lands before the client
// sees the stream end and can ask again (docs/config.md, client_keys).
func (o *sseOutput) holdEnd() { o.hold = true }

// finish ends the stream with b, its last event (nil: none of its own):
// written and flushed, or, held, kept for release while what came before
// is flushed now.
func (o *sseOutput) finish(b []byte) error {
	o.state = 2
	if o.hold {
		o.held = append(o.held, b...)
		return o.Flush()
	}
	if len(b) == 0 {
		return o.Flush()
	}
	return o.last(o.write(b))
}

// relay writes frame, one passthrough event, for the next Flush; a
// metered stream (holdEnd) holds it instead when end says the relay may
// end the stream on it (holdFrame).
func (o *sseOutput) relay(frame []byte, end bool) error {
	if o.hold && end {
		return o.holdFrame(frame)
	}
	if err := o.unhold(); err != nil {
		return err
	}
	return o.write(frame)
}

// holdFrame keeps b, a passthrough event the relay may end its stream on,
// for release; should the stream go on (another event, a failure), what
// comes next writes it first (unhold), so that a held event is only ever
// the stream's last, in the upstream's order, and never follows an error
// event.
func (o *sseOutput) holdFrame(b []byte) error {
	if err := o.unhold(); err != nil {
		return err
	}
	o.held = append(o.held, b...)
	return nil
}

// unhold writes, for the next Flush, an event held while streaming that
// turned out not to be the stream's last.
func (o *sseOutput) unhold() error {
	if len(o.held) == 0 {
		return nil
	}
	b := o.held
	o.held = b[:0] // the ResponseWriter has copied it
	return o.write(b)
}

// release writes and flushes the held last event, if any. A client gone
// by then has had every event but the end.
func (o *sseOutput) release() {
	if b := o.held; len(b) > 0 {
		o.held = nil
		_ = o.last(o.write(b))
	}
}

// last flushes after the final write of a stream (err is that write's).
func (o *sseOutput) last(err error) error {
	if err != nil {
		return err
	}
	return o.Flush()
}

// Fail ends the stream with an SSE error event and no [DONE].
func (o *sseOutput) Fail(f *dispatch.Failure) error {
	if o.state != 1 {
		return errNotCommitted
	}
	b := append([]byte("event: error\ndata: "), failureEnvelope(f)...)
	return o.fail(append(b, '\n', '\n'))
}

// fail ends a committed stream with b, its error event, written after any
// event still held (unhold) and flushed. Every door's Output ends so.
func (o *sseOutput) fail(b []byte) error {
	o.state = 2
	if err := o.unhold(); err != nil {
		return err
	}
	return o.last(o.write(b))
}

func (o *sseOutput) data(b []byte) error {
	if err := o.open(); err != nil {
		return err
	}
	return o.send(len(b), func() error { return sse.WriteData(o.w, b) })
}

// open reports why nothing may be written now: before the commit point,
// or after the end; nil while streaming. Every door's Output asks it.
func (o *sseOutput) open() error {
	switch o.state {
	case 0:
		return errNotCommitted
	case 2:
		return errEnded
	}
	return nil
}

// write writes b, whole frames, under the write timeout, for the next
// Flush.
func (o *sseOutput) write(b []byte) error {
	return o.send(len(b), func() error {
		_, err := o.w.Write(b)
		return err
	})
}

// send runs one write of about n bytes for the next Flush. The first write
// after a flush sets the write deadline, which then bounds the whole batch
// and its flush (a full buffer writes through to the client before the
// flush). Before a write that may fill net/http's buffer while the header
// is not out (the full buffer would write it), what is buffered is flushed
// with the header, off the handler's stack.
func (o *sseOutput) send(n int, write func() error) error {
	if !o.pending {
		_ = o.rc.SetWriteDeadline(time.Now().Add(o.timeout))
		o.pending = true
	}
	if !o.headerOut {
		// An SSE frame adds "data: " to each line of b and a blank line:
		// counted as twice b, so the estimate is never short.
		if o.early += 2*n + 16; o.early >= headerBuffer {
			o.headerOut = true
			if err := offstack.Run(o.rc.Flush); err != nil {
				return err
			}
		}
	}
	return write()
}

// headerBuffer is net/http's HTTP/1.1 response buffer: the body's first
// bytes wait there, and the header is written when it fills or is flushed.
const headerBuffer = 2048

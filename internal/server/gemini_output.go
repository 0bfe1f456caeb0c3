package server

import (
	"bytes"
	"errors"
	"net/http"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/dispatch"
	"github.com/detour-llm/detour/internal/door/gemini"
)

// geminiOutput is the dispatch.Output of a streamGenerateContent?alt=sse
// stream. It shares sseOutput's commit and its timed, batched writes, and
// writes Google's frames: for a native stream (a Gemini target) each
// upstream event's data as it came, as "data: …" and a blank line; for a
// translated one, the gemini.Encoder's frames. A failure after the commit
// point is one more data event holding Google's error envelope, which
// @google/genai raises as an ApiError (gemini.ErrorFrame). Not safe for
// concurrent use.
type geminiOutput struct {
	sse      *sseOutput
	native   bool
	thoughts *bool // the client asked for thoughts (read at the commit point)
	enc      *gemini.Encoder
	buf      []byte
}

func newGeminiOutput(w http.ResponseWriter, id, route string, thoughts *bool) *geminiOutput {
	return &geminiOutput{sse: newSSEOutput(w, id, route), thoughts: thoughts}
}

// Commit writes the response headers and chooses the framing.
func (o *geminiOutput) Commit(c dispatch.Commit) error {
	if err := o.sse.Commit(c); err != nil {
		return err
	}
	o.native = c.Native
	if !o.native {
		o.enc = gemini.NewEncoder(o.sse.a.route, *o.thoughts)
	}
	return nil
}

// Chunk writes one upstream event (native) or the frames of one canonical
// chunk (translated).
func (o *geminiOutput) Chunk(chunk []byte) error {
	if err := o.sse.open(); err != nil {
		return err
	}
	if !o.native {
		frames, err := o.enc.Chunk(chunk)
		if errors.Is(err, gemini.ErrTooLarge) {
			return dispatch.ErrTooLarge // the calls held passed gemini.MaxHeld: the stream is failed
		}
		if err != nil || len(frames) == 0 {
			return nil // a chunk the encoder cannot read, or one it holds, writes nothing yet
		}
		return o.sse.write(frames)
	}
	o.buf = append(append(append(o.buf[:0], "data: "...), chunk...), "\r\n\r\n"...)
	// A chunk with a finish reason may be the stream's last: a metered
	// stream holds it until its spend lands (sseOutput.relay).
	err := o.sse.relay(o.buf, bytes.Contains(chunk, finishReasonKey))
	o.buf = keepFrame(o.buf)
	return err
}

var finishReasonKey = []byte(`"finishReason"`)

// End closes the stream: a translated stream's last frame (the encoder's);
// a native stream's last event came as it was.
func (o *geminiOutput) End() error {
	if err := o.sse.open(); err != nil {
		return err
	}
	var b []byte
	if !o.native {
		b = o.enc.End()
	}
	return o.sse.finish(b)
}

func (o *geminiOutput) holdEnd() { o.sse.holdEnd() }
func (o *geminiOutput) release() { o.sse.release() }

// Flush sends what Chunk wrote.
func (o *geminiOutput) Flush() error { return o.sse.Flush() }

// Fail ends the stream with Google's error envelope as a data event. Its
// code is the failure's status, or, for a failure inside a 200 stream,
// the status its class stands for. A translated stream first writes the
// text its encoder held (probe 69h: the words before a cut were lost).
func (o *geminiOutput) Fail(f *dispatch.Failure) error {
	if o.sse.state != 1 {
		return errNotCommitted
	}
	frame := gemini.ErrorFrame(f.Class, streamStatus(f), clientMessage(f.Message))
	if !o.native && o.enc != nil {
		if said := o.enc.Said(); said != nil {
			frame = append(said, frame...)
		}
	}
	return o.sse.fail(frame)
}

// streamStatus is the HTTP status a failure after the commit point is told
// with: its own when it is an error status, else its class's, as Google
// would have answered it (a quota is RESOURCE_EXHAUSTED, 429, where
// dispatch's statusFor says 402 to the OpenAI doors; a gone model's cut
// stream UNAVAILABLE, 503, not its 404: the stream was served).
func streamStatus(f *dispatch.Failure) int {
	if f.Status >= 400 {
		return f.Status
	}
	switch f.Class {
	case classify.Timeout:
		return http.StatusGatewayTimeout
	case classify.RateLimited, classify.Quota:
		return http.StatusTooManyRequests
	case classify.BadRequest, classify.ContextLength, classify.Refusal, classify.Overflow:
		return http.StatusBadRequest
	case classify.Unavailable, classify.ServerError:
		return http.StatusServiceUnavailable
	case classify.Auth, classify.Forbidden, classify.Unknown:
	}
	return http.StatusInternalServerError
}

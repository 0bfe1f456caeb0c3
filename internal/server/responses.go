package server

import (
	"net/http"
	"time"

	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/dispatch"
	"github.com/detour-llm/detour/internal/door/responses"
)

// POST /v1/responses: OpenAI's Responses API, stateless (docs/doors.md,
// "OpenAI Responses"). The body is translated to canonical chat
// (responses.Translate) and served by the same engine as chat; the answer
// is translated back (responses.FromCompletion), or streamed as Responses
// events (responsesOutput). Errors before the commit point, and the
// gateway's own, are the OpenAI envelope with the real status.

func (s *Server) responses(w http.ResponseWriter, r *http.Request) {
	a := s.openAIFront(w, r, "/v1/responses", dispatch.OpChat)
	if a == nil {
		return
	}
	defer s.bodies.give(a.held) // the body is kept for failover until the request ends
	req, err := responses.Translate(a.body)
	if err != nil {
		e, ok := err.(*responses.Error)
		if !ok {
			e = &responses.Error{Code: "invalid_value", Message: err.Error()}
		}
		writeEnvelope(w, http.StatusBadRequest, responses.Envelope("invalid_request_error", e.Code, e.Message, e.Param))
		return
	}
	call := &dispatch.Call{Model: a.model, Body: req.Chat, Stream: req.Stream, API: "responses"}
	if msg := attemptHeaders(r, call); msg != "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "invalid_request", msg)
		return
	}
	if a.client != nil {
		call.Client = a.client.Name
	}
	if s.refused(w, r, a.st, a.client) {
		return
	}
	call.ID = decision.NewID()
	created := time.Now().Unix()
	if call.Stream {
		call.Out = newResponsesOutput(w, call.ID, call.Model, responses.NewStream(&req.Echo, a.model, created))
	}
	res := a.st.Dispatcher.Do(r.Context(), call)
	spend(r, a.st, a.client, res.Decision)
	if res.Committed || res.Canceled {
		return
	}
	finishWhole(w, call, res, func() ([]byte, error) { return responses.FromCompletion(res.Body, &req.Echo, created) })
}

// responsesOutput is the dispatch.Output of a /v1/responses stream: the
// canonical chunks go through a responses.Stream encoder, and its frames
// (`event: <type>` + `data: <json>`) are written and flushed as they come.
// There is no [DONE]: response.completed (or response.incomplete) ends a
// normal stream, response.failed one that broke after the commit point.
// Like sseOutput, not safe for concurrent use; use newResponsesOutput.
type responsesOutput struct {
	sse *sseOutput // headers, state and timed writes
	enc *responses.Stream
}

func newResponsesOutput(w http.ResponseWriter, id, route string, enc *responses.Stream) *responsesOutput {
	return &responsesOutput{sse: newSSEOutput(w, id, route), enc: enc}
}

// Commit writes the response headers.
func (o *responsesOutput) Commit(c dispatch.Commit) error { return o.sse.Commit(c) }

// Chunk writes the frames of one canonical chunk. A chunk the encoder
// cannot read changes nothing and is not the client's failure: it is
// skipped.
func (o *responsesOutput) Chunk(chunk []byte) error {
	if err := o.ready(); err != nil {
		return err
	}
	b, err := o.enc.Chunk(chunk)
	if err != nil || len(b) == 0 {
		return nil
	}
	return o.write(b)
}

// End closes the response with response.completed (or response.incomplete).
func (o *responsesOutput) End() error {
	if err := o.ready(); err != nil {
		return err
	}
	b := o.enc.End()
	o.sse.state = 2
	return o.write(b)
}

// Fail ends the stream with response.failed carrying the failure's code
// (the class, or a code such as "shutdown") and message.
func (o *responsesOutput) Fail(f *dispatch.Failure) error {
	if o.sse.state != 1 {
		return errNotCommitted
	}
	b := o.enc.Fail(f.ErrorCode(), f.Message)
	o.sse.state = 2
	return o.write(b)
}

func (o *responsesOutput) ready() error {
	switch o.sse.state {
	case 0:
		return errNotCommitted
	case 2:
		return errEnded
	}
	return nil
}

func (o *responsesOutput) write(b []byte) error {
	return o.sse.send(func() error {
		_, err := o.sse.w.Write(b)
		return err
	})
}

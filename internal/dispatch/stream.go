package dispatch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/sse"
)

// Held-back events are bounded per stream: an upstream that sends only
// events without content (role-only deltas, empty chunks) cannot grow the
// process. Past either bound the attempt is a server_error and fails over.
// A legitimate stream holds back a handful (a role chunk, a filter result);
// events that carry nothing to send (pings, thinking the client never sees)
// are not held and not counted.
const (
	maxHeldEvents = 256
	maxHeldBytes  = 1 << 20
)

// stream relays an upstream event stream. Until the first event with content
// it holds events back, so an error or block that arrives first still fails
// over; the first content commits the response; after that a failure ends
// the stream with the Output's Fail (for the client: an error event and no [DONE]).
func (w *walk) stream(e *endpointRT, resp *http.Response, wd *watchdog, o *outcome) {
	o.streamed = true
	defer resp.Body.Close()
	unbound(resp)
	body := &flushingBody{ReadCloser: resp.Body, out: w.call.Out, wd: wd}
	resp.Body = body
	defer func() {
		if body.flush(o) != nil {
			w.clientFailed(o)
		}
	}()
	st := w.streamOf(e, o, resp)
	var held heldEvents
	// The watchdog times the upstream only: before the first content the
	// first-token timeout runs from the headers; after it the idle timeout
	// runs while waiting for the next event and is paused while the client
	// is written to, so a slow reader is never filed as a stalled upstream.
	// The idle clock restarts only after an event with content: events
	// that carry none (Anthropic's pings, empty chunks) are no progress,
	// and an upstream that hung mid-answer but keeps sending them must
	// not hold the client's stream open for ever (review 33a); the waits
	// they punctuate add up (watchdog.resume).
	wd.arm(PhaseFirstToken, e.prov.cfg.FirstTokenTimeout)
	progress := true
	for {
		if o.committed && progress {
			wd.arm(PhaseIdle, e.prov.cfg.IdleTimeout)
		} else if o.committed {
			wd.resume(PhaseIdle)
		}
		ev, err := st.Next()
		if body.clientErr != nil {
			w.clientFailed(o)
			return
		}
		if err != nil {
			w.streamStopped(o, err, wd)
			return
		}
		if o.committed {
			wd.pause()
		}
		o.answerBytes += int64(len(ev.Raw))
		progress = ev.Content || ev.Done || ev.Progress
		if ev.Progress && !o.committed {
			// Written, not yet sent (a value gathered whole): the model has
			// begun, so the first-token clock starts again from here.
			wd.arm(PhaseFirstToken, e.prov.cfg.FirstTokenTimeout)
		}
		if ev.Malformed {
			o.malformed++
			continue
		}
		if w.noteEvent(e, &ev, o) && w.eventFailed(e, resp, classified(&ev), ev.Error, o) {
			return
		}
		if !o.committed {
			if ev.Done && !ev.Content {
				// An end marker before any content (a relay that failed
				// before the model said anything) is no answer, however
				// cleanly it ends: nothing is committed (review 33a).
				w.streamEnd(o, io.EOF, "")
				return
			}
			if !ev.Content {
				if held.hold(ev.Chunks, o) {
					continue
				}
				return
			}
			wd.pause()
			wd.committed(w.maxStream())
			if !w.commit(e, held.events, o) {
				return
			}
			held = heldEvents{}
		}
		if ev.Content {
			o.delivered++
		}
		for _, c := range ev.Chunks {
			if !w.write(o, c) {
				return
			}
			wd.wrote(len(c))
		}
		body.pending = o.committed
		if ev.Done {
			o.ok = w.end(o)
			o.billable = true
			return
		}
	}
}

// noteEvent files what ev says about the answer (usage, a finish) and reports whether it must be classified: an error
// event, or any event before the commit point. It and heldEvents.hold are
// out of stream's loop to keep stream's frame small: the relay's deepest
// moment sits under it (docs/benchmarks.md, "Round 6").
func (w *walk) noteEvent(e *endpointRT, ev *provider.Event, o *outcome) bool {
	if ev.Usage != nil {
		o.usage = ev.Usage
		w.cont.report(ev.Usage)
		w.stripUsage(e, ev) // asked for by the gateway, not the client
	}
	if ev.Reopened {
		o.finished = false
	}
	if ev.Finished {
		o.finished, o.choices = true, ev.Choices
	} else if ev.Content && o.finished {
		o.wentOn = true
	}
	return ev.Error || !o.committed
}

// heldEvents are the events without content a stream holds back before its
// commit point, copied (an adapter may reuse its buffers).
type heldEvents struct {
	events [][]byte
	bytes  int
}

// hold keeps chunks, or fails o and reports false past the bounds.
func (h *heldEvents) hold(chunks [][]byte, o *outcome) bool {
	for _, c := range chunks {
		h.bytes += len(c)
		h.events = append(h.events, append([]byte(nil), c...))
	}
	if len(h.events) > maxHeldEvents || h.bytes > maxHeldBytes {
		heldCap(o)
		return false
	}
	return true
}

// eventFailed classifies an event before the commit point, and any error
// event, and reports whether it ends the attempt. It and heldCap are
// functions of their own because the relay stays parked under stream's
// frame, and the classifier reads the first events from deeper still
// (docs/benchmarks.md, "Round 6").
func (w *walk) eventFailed(e *endpointRT, resp *http.Response, raw []byte, isErr bool, o *outcome) bool {
	v := w.classify(classify.Response{Status: resp.StatusCode, Header: resp.Header, Body: raw,
		Dialect: e.prov.cfg.Dialect, Provider: e.prov.cfg.Name, Stream: true, Model: e.ep.Model}, isErr)
	if isErr && !v.Failed {
		v = classify.Verdict{Failed: true, Class: classify.Unknown, Evidence: "stream:error event"}
	}
	if !v.Failed {
		return false
	}
	if isErr && o.finished && w.erredAfterFinish(v, o) {
		return true
	}
	o.failWith(v, w.messageOf(raw, false))
	o.upstreamError(e, raw)
	o.meant = inbandStatus(raw)
	if o.committed {
		o.billable = true
		w.streamError(o)
	}
	return true
}

// erredAfterFinish ends, as finished, a committed stream whose answer was
// complete when the upstream sent an error event, of verdict v: every
// choice asked for had finished and nothing came after (an OpenRouter
// chunk with an error after the finish chunk, Anthropic's event: error
// between message_delta and message_stop). Only what follows the answer
// was lost, its usage or its end marker, as on a cut there (streamEnd).
// The client gets the answer with its door's normal end; the verdict is
// kept as the attempt's evidence (finish, lateError). False, and nothing
// done, when the answer was not complete, or when the event withdraws it
// on policy grounds (refusal: "Output blocked by content filtering
// policy"): the event fails the attempt as any other.
func (w *walk) erredAfterFinish(v classify.Verdict, o *outcome) bool {
	if !o.committed || o.wentOn || v.Class == classify.Refusal || !w.allChoices(o) {
		return false
	}
	o.late = v
	o.billable = true
	o.ok = w.end(o)
	return true
}

// allChoices reports whether the stream finished as many choices as the
// request asked for (n, 1 when absent; at the Completions door n for each
// prompt of a batch: CompletionChoices). Read only where a stream that
// said it was finished ends without its end marker, or with an error.
// The client's own body is read: a passthrough's (a Completions request's
// n) may have no canonical one.
func (w *walk) allChoices(o *outcome) bool {
	n := choicesAsked(w.call.sent())
	if w.call.completions() {
		// Review 65f: a batch cut after its first prompt's choice
		// finished, before the next began, ended as whole ([DONE],
		// outcome ok) with one completion of two.
		n = CompletionChoices(w.call.sent())
	}
	return n <= 1 || o.choices >= n
}

// classified is what of ev the classifier reads: its digest in place of an
// event longer than it reads (provider.Event.Digest), else the event.
func classified(ev *provider.Event) []byte {
	if ev.Digest != nil && len(ev.Raw) > classify.MaxBody {
		return ev.Digest
	}
	return ev.Raw
}

// heldCap fails the attempt that held back too much.
func heldCap(o *outcome) {
	o.billable = true // the stream began: the upstream may have run it
	o.failWith(classify.Verdict{Class: classify.ServerError, Evidence: "stream:held-back-cap"},
		fmt.Sprintf("the upstream sent more than %d events or %d bytes without content", maxHeldEvents, maxHeldBytes))
}

// streamStopped handles a stream that ended without an end marker, or an
// error reading it.
func (w *walk) streamStopped(o *outcome, err error, wd *watchdog) {
	// A cut, or an end without a finish, just after the client held the
	// relay back; never a stall the watchdog timed (its clock runs only
	// while the relay waits on the upstream).
	o.heldBack = o.committed && wd.expired() == "" && (err == io.EOF || !sseLimit(err)) && wd.heldBack()
	w.streamEnd(o, err, wd.expired())
}

// streamEnd handles the end of the upstream stream: a clean end, a cut or a
// stall.
func (w *walk) streamEnd(o *outcome, err error, expired Phase) {
	o.billable = true // the stream began: the upstream may have run it
	switch {
	case errors.Is(w.base.Err(), context.Canceled):
		w.gone(o)
		if o.committed && w.shuttingDown() {
			w.errorEvent(shutdownFailure())
		}
	case o.committed && o.finished && (err == io.EOF || !o.wentOn) && w.allChoices(o):
		// The answer said it was finished but the end marker never came:
		// finish promptly for the client, however the connection ended —
		// closed, cut or stalled. Only the usage or the end marker was
		// lost, not the answer (review 39g: a cut between OpenAI's finish
		// chunk and its usage chunk ended a whole answer with an error
		// event, counted against the upstream). Not when the answer went
		// on after its finish reason (some OpenAI-compatible servers send
		// one on every chunk): then only a clean end finishes it, and a
		// cut or a stall is one (review 39i). Nor when the request asked
		// for n choices and fewer finished: the others never came (review
		// 40e).
		o.ok = w.end(o)
	case err == io.EOF && o.committed:
		// Neither a finish reason nor an end marker: the answer was cut,
		// however cleanly the connection closed.
		o.failWith(classify.Verdict{Class: classify.ServerError, Evidence: "stream:eof-no-finish"},
			"the upstream stream ended without finishing the answer (no finish reason, no end marker)")
	case err == io.EOF:
		o.failWith(classify.Verdict{Class: classify.ServerError, Evidence: "stream:ended before content"},
			"the upstream stream ended before any content")
	case expired != "":
		o.expired(expired, "the upstream stream stalled past its "+string(expired)+" timeout")
	case errors.Is(err, sse.ErrLineTooLong):
		o.failWith(classify.Verdict{Class: classify.ServerError, Evidence: "stream:line-too-long"},
			fmt.Sprintf("the upstream sent a stream line longer than %d bytes", sse.DefaultMaxLine))
	case errors.Is(err, sse.ErrEventTooLarge):
		o.failWith(classify.Verdict{Class: classify.ServerError, Evidence: "stream:event-too-large"},
			fmt.Sprintf("the upstream sent a stream event larger than %d bytes", sse.DefaultMaxLine))
	default:
		v := classify.Transport(err)
		if v.Class != classify.Timeout {
			v = classify.Verdict{Class: classify.ServerError, Evidence: "stream:cut"}
		}
		o.failWith(v, "the upstream stream was cut: "+err.Error())
	}
	if o.verdict.Failed && o.committed {
		w.streamError(o)
	}
}

// sseLimit reports whether err is the SSE reader's bound on what the
// upstream sent, not the connection ending.
func sseLimit(err error) bool {
	return errors.Is(err, sse.ErrLineTooLong) || errors.Is(err, sse.ErrEventTooLarge)
}

// commit hands the stream to the client's Output, then the held-back events.
func (w *walk) commit(e *endpointRT, held [][]byte, o *outcome) bool {
	o.committed = true
	if o.streamed {
		e.firsts.Add(1) // its first content (endpointRT.counts, lengthy)
		if !o.began.IsZero() {
			o.firstToken = time.Since(o.began)
		}
	}
	if w.cont.first() { // a continuation's client has the stream already
		if err := w.call.Out.Commit(Commit{Target: e.key.Target, Provider: e.key.Provider, Attempts: len(w.rec.Attempts) + 1, Native: o.native}); err != nil {
			w.clientFailed(o)
			return false
		}
	}
	for _, c := range held {
		if !w.write(o, c) {
			return false
		}
	}
	return true
}

// write sends one chunk to the client's Output. A client that is gone or
// stalls past the front's write timeout ends the attempt as canceled.
func (w *walk) write(o *outcome, chunk []byte) bool {
	if w.cont != nil && !o.native { // a native event is relayed as it came
		return w.cont.write(w, o, chunk)
	}
	return w.sent(o, w.call.Out.Chunk(chunk))
}

// sent files what the Output's Chunk said: nil, the chunk is written; an
// answer too large for it to hold (ErrTooLarge) fails the attempt, the
// client told with the error event; any other error, the client is gone.
func (w *walk) sent(o *outcome, err error) bool {
	switch {
	case err == nil:
		return true
	case errors.Is(err, ErrTooLarge):
		answerTooLarge(o, "the upstream answer is larger than the client's API lets the gateway hold") // the stream began: the upstream has run it
		w.streamError(o)
	default:
		w.clientFailed(o)
	}
	return false
}

// end tells the client's Output the stream ended normally.
func (w *walk) end(o *outcome) bool {
	if w.call.Out.End() != nil {
		w.clientFailed(o)
		return false
	}
	return true
}

// clientFailed files an attempt whose client could not be written to.
func (w *walk) clientFailed(o *outcome) {
	o.canceled = true
	o.ok = false
	o.billable = true // the stream began: the upstream has run it
	o.verdict = classify.Verdict{Evidence: "client write failed"}
}

// streamError ends a committed stream with the failure of o.
func (w *walk) streamError(o *outcome) {
	f := Failure{Status: o.status, Class: o.verdict.Class, Message: o.message, UpstreamCode: o.upCode,
		UpstreamOpenAICode: o.oaCode, UpstreamParam: w.call.upstreamParam(o, o.oaParam), UpstreamDetails: o.upDetails}
	if o.meant != 0 {
		f.Status = o.meant
	}
	if f.Message == "" {
		f.Message = "the upstream stream failed: " + o.verdict.Class.String() + " (" + o.verdict.Evidence + ")"
	}
	if w.cont != nil { // the walk may continue the stream; settle tells the client if not
		w.cont.failure = &f
		return
	}
	w.errorEvent(&f)
}

// errorEvent tells the client's Output that the committed stream ended
// with f.
func (w *walk) errorEvent(f *Failure) {
	f.scrub(w.d.opt.ScrubForClient, w.call.sent()) // it leaves the process: no secret in it
	_ = w.call.Out.Fail(f)
}

// flushingBody is a committed stream's upstream body as the relay reads it.
// Chunks written to the client stay in the front's buffer until the relay
// is about to read the upstream again: then they are flushed, so events
// that arrived together leave in one write, and none waits while the
// upstream is quiet (docs/design.md, "Streams"). The upstream's idle clock
// is paused while the client is written to and resumes after.
type flushingBody struct {
	io.ReadCloser
	out       Output
	wd        *watchdog
	pending   bool  // chunks were written since the last flush
	clientErr error // the flush failed: the client is gone or stalled
}

var errClientGone = errors.New("dispatch: the client could not be written to")

func (b *flushingBody) Read(p []byte) (int, error) {
	if b.pending {
		b.pending = false
		b.wd.pause()
		if err := b.out.Flush(); err != nil {
			b.clientErr = err
			return 0, errClientGone
		}
		b.wd.resume(PhaseIdle)
	}
	return b.ReadCloser.Read(p)
}

// flush sends what the relay wrote last, when the attempt ends without the
// Output's End or Fail (a continuation goes on from there); its error is
// the client's.
func (b *flushingBody) flush(o *outcome) error {
	if !b.pending || o.canceled || o.ok || b.clientErr != nil {
		return nil
	}
	b.pending = false
	b.clientErr = b.out.Flush()
	return b.clientErr
}

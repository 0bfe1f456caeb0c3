package server

import (
	"net/http"
	"strconv"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/dispatch"
	"github.com/detour-llm/detour/internal/inprogress"
	"github.com/detour-llm/detour/internal/limit"
)

// attemptHeaders applies X-Detour-Max-Attempts and
// X-Detour-Max-Billable-Attempts to call; it returns a message for the
// client when one is malformed.
func attemptHeaders(r *http.Request, call *dispatch.Call) string {
	for _, h := range []struct {
		name string
		dst  *int
	}{{"X-Detour-Max-Attempts", &call.MaxAttempts}, {"X-Detour-Max-Billable-Attempts", &call.MaxBillable}} {
		if v := r.Header.Get(h.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return h.name + " must be a whole number of at least 1"
			}
			*h.dst = n
		}
	}
	return ""
}

// begin readies call once the front has admitted a: the
// X-Detour-Max-* headers, the client's name, its rate and budget (refused),
// then the decision id. It reports false when it has refused the request,
// in d's envelope, and answered the client.
func (s *Server) begin(w http.ResponseWriter, r *http.Request, d door, a *admitted, call *dispatch.Call) bool {
	if msg := attemptHeaders(r, call); msg != "" {
		s.refuse(w, d, http.StatusBadRequest, "invalid_request", msg)
		return false
	}
	if a.client != nil {
		call.Client = a.client.Name
		if len(a.client.Sums) > 1 {
			if d.key != nil {
				call.ClientKey = keySlot(a.client, d.key(r))
			} else {
				call.ClientKey = keyIndex(a.client, r, d.apiKeyFirst)
			}
		}
		// Every keyed request is metered, limited or not: a reload may give
		// its key a rate or budget while it runs, which counts it when it
		// ends (spender), a stream it left included (review 40a).
		call.Metered = a.st.Limits != nil
		call.Limited = call.Metered && a.client.Limited()
	}
	if s.refused(w, r, d, a) {
		return false
	}
	call.ID = decision.NewID()
	call.Allowance = a
	return true
}

// do runs call and writes its whole answer in d's envelope (body reads a
// successful answer for the client) unless the client has it already (a
// committed stream) or is gone. What the call used is spent against the
// client's limits before a whole answer leaves (a Redis round trip, and
// only for a client with a budget or token limit): a client that asks
// again the moment it has the answer, on any replica, meets the spend
// (docs/config.md, client_keys); so is a stream's before its last event,
// which its Output holds until then (endHolder). The decision record is
// filed after the answer, so encoding, scrubbing and exporting it never
// delay it — except that with decisions: {sync: always} the record is on
// disk first. The end of a stream's body waits for the record (net/http
// ends a chunked body when the handler returns).
func (s *Server) do(w http.ResponseWriter, r *http.Request, d door, a *admitted, call *dispatch.Call) {
	disp := a.st.Dispatcher
	held, _ := call.Out.(endHolder)
	if held != nil && call.Metered && a.client.Limited() { // a key without limits waits for nothing
		held.holdEnd()
	}
	if s.progress != nil { // until the request ends (s.end): no defer in this frame, which a stream keeps
		s.progress.Add(s.inProgress(a, call))
	}
	res := disp.Run(r.Context(), call)
	first := disp.RecordFirst() // decisions: {sync: always} promises a record for every answer
	if first {
		disp.Record(r.Context(), res)
	}
	s.spendFor(r, a, res.Decision)
	if held != nil {
		held.release()
	}
	if !res.Committed && !res.Canceled {
		finishWhole(w, d, call, res)
		// With its length set, the answer is whole once flushed: the
		// client has it before the record below.
		_ = http.NewResponseController(w).Flush()
	}
	if !first {
		disp.Record(r.Context(), res)
	}
}

// endHolder is a stream Output whose last event can wait until the
// request's spend has landed (sseOutput.holdEnd).
type endHolder interface {
	holdEnd()
	release()
}

// finishWhole writes the answer of a request that was not streamed to the
// client (or whose stream never committed), in d's envelope: the
// X-Detour-* headers, then the failure's envelope with its real status, or
// the answer's body, already in the door's words (an answer the door cannot
// express failed its attempt in dispatch: Call.Whole).
func finishWhole(w http.ResponseWriter, d door, call *dispatch.Call, res *dispatch.Result) {
	a := answer{id: call.ID, route: call.Model, target: res.Target, provider: res.Provider, attempts: res.Attempts}
	if res.Failure != nil {
		a.class = res.Failure.Class.String()
	}
	detourHeaders(w.Header(), a)
	writeDeadline(w)
	if f := res.Failure; f != nil {
		if f.RetryAfter > 0 {
			w.Header().Set("Retry-After", strconv.FormatInt(limit.RetryAfterSeconds(f.RetryAfter), 10)) // rounded up: never back too soon
			// The SDKs prefer the exact wait when there is one.
			w.Header().Set("Retry-After-Ms", strconv.FormatInt((f.RetryAfter+time.Millisecond-1).Milliseconds(), 10)) // rounded up
		}
		if f.NoRetry {
			w.Header().Set("X-Should-Retry", "false")
		}
		writeEnvelope(w, f.Status, d.failure(f))
		return
	}
	b := res.Body
	vals := []string{"application/json", strconv.Itoa(len(b)), "false"} // one allocation for all three
	h := w.Header()
	h["Content-Type"], h["Content-Length"] = vals[0:1:1], vals[1:2:2]
	// A served answer is not to be asked for again: anthropic-sdk-go
	// (v2.17.0) and @anthropic-ai/sdk (1.17.0) resend a non-streamed POST
	// whose body drops part-way, even after a 2xx, unless the answer says
	// x-should-retry: false; through Detour that resend is a second
	// upstream call, billed and charged to the key again (build 67f).
	h["X-Should-Retry"] = vals[2:3:3]
	w.Write(b)
}

// exactCount sends call, a token count the route's first target makes
// itself (count_tokens, :countTokens), with one attempt and no failover (a
// count is advisory), and answers d's client when it can: with the
// upstream's count as it came (X-Detour-* headers and x-should-retry:
// false, as finishWhole's: build 67f, hostile 69j), or with its refusal
// when the count failed for the request's own fault (bad_request: an image
// that is not one; the count is the check the vendor documents before
// sending, so the client gets its 400, not an estimate of a request that
// cannot run: review 63c). It reports false, having written nothing, when
// the caller's estimate is to answer: any other failure (the key, an
// outage) says nothing of the request.
func (s *Server) exactCount(w http.ResponseWriter, r *http.Request, d door, in *admitted, call *dispatch.Call) bool {
	call.MaxAttempts, call.ID = 1, decision.NewID()
	if in.client != nil {
		call.Client = in.client.Name
	}
	res := in.st.Dispatcher.Do(r.Context(), call)
	switch f := res.Failure; {
	case res.Canceled:
	case f == nil && res.Native:
		detourHeaders(w.Header(), answer{id: call.ID, route: call.Model, target: res.Target, provider: res.Provider, attempts: res.Attempts})
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("X-Should-Retry", "false")
		w.Write(res.Body)
	case f != nil && f.Class == classify.BadRequest:
		finishWhole(w, d, call, res)
	default:
		return false
	}
	return true
}

// inProgress is call as the console lists it while it runs (kept in a),
// and has call tell it each attempt it makes.
func (s *Server) inProgress(a *admitted, call *dispatch.Call) *inprogress.Request {
	api := call.API
	switch {
	case call.Native != nil && call.Native.API == dispatch.APICountTokens:
		api = "count_tokens"
	case call.Native != nil && call.Native.API == dispatch.APIGeminiCountTokens:
		api = "gemini_count_tokens"
	case api == "":
		api = "chat"
	}
	req := &a.progress
	req.ID, req.API, req.Route, req.Client, req.Stream, req.Started = call.ID, api, call.Model, call.Client, call.Stream, time.Now()
	call.Progress = req
	return req
}

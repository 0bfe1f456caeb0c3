package dispatch

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/rawjson"
)

// The seam between the HTTP front and dispatch (docs/design.md, "Who owns
// the client"): a Call carries facts about the request, a Result facts
// about its end, and a committed stream goes to the caller's Output.
// Dispatch never writes to the client itself: no headers, no envelopes, no
// SSE framing.

// Call is one client request.
type Call struct {
	// Model is the route or target name the client sent.
	Model string
	// Body is the request in OpenAI Chat Completions JSON, valid JSON: as
	// the client sent it, already checked by the front, or a door's
	// translation (encoding/json's).
	Body []byte
	// Stream says the client asked for a stream; Out must then be set.
	Stream bool
	// CachePrompt: the client asked for its prompt to be cached
	// (provider.Request.CachePrompt).
	CachePrompt bool
	// MaxAttempts and MaxBillable come from the X-Detour-Max-Attempts and
	// X-Detour-Max-Billable-Attempts headers; 0 means the route's. They may
	// only lower the route's limits.
	MaxAttempts, MaxBillable int
	// Out receives a committed stream; nil for a request without one.
	Out Output
	// ID is the decision id.
	ID string
	// Client names the client key used (see decision.Decision.Client), and
	// ClientKey which of its keys (decision.Decision.ClientKey).
	Client    string
	ClientKey int
	// Progress, when set, is told each attempt as it begins (the
	// console's "In progress", internal/inprogress).
	Progress Progress
	// Metered: a client key's limits may count what the call uses (the
	// front sets it for every keyed request: a reload may add limits while
	// it runs), so a billable attempt whose upstream never reports usage
	// gets an Estimate of its input (docs/config.md, client_keys);
	// otherwise none is made (it would read the request for nothing).
	Metered bool
	// Limited: the client key has a rate or a budget now. Only then is a
	// whole answer its client left read to its end for its usage
	// (attemptContext, detach.go).
	Limited bool
	// API names the client API (door) the request came through, for the
	// decision record: "chat" when empty (see decision.Decision.API).
	API string
	// Op is what the call asks of its upstreams: a chat completion (the
	// zero value) or embeddings (embed.go).
	Op Op
	// Native, when set, is the client's own request in another client API:
	// a target whose adapter serves that API gets it as sent (only "model"
	// replaced) and answers in that API's shape (native.go). Other targets
	// get Body, the canonical translation; a nil Body means the request
	// cannot be translated, and they fail as "translate".
	Native *Native
	// Whole, when set, turns a whole (not streamed) canonical answer into
	// the door's own at the attempt that got it, so that an answer the door
	// cannot express (a tool call whose arguments are not JSON, at the
	// Messages door) fails that attempt rather than reaching the client as
	// a 502 after a record that says ok: class unknown, evidence
	// "answer:untranslatable", billable (it ran), and the walk moves on
	// (docs/behaviour.md, "Classes"). Result.Body is then its output. A
	// native answer is not given to it.
	Whole func(canonical []byte) ([]byte, error)
	// ClientParam, when set, is the member of the client's own request a
	// member of Body names, "" where none does faithfully: a door whose
	// client API is not Chat Completions translates its request into Body,
	// and what names a member of a translated attempt's request — an
	// OpenAI-dialect upstream's error.param, an adapter's refusal
	// (provider.Unsupported) — names a member of Body, which the client
	// never sent ("messages[2].content" for the Responses door's
	// "input[1].content"). The Failure's Param and UpstreamParam are told
	// through it; an attempt that sent the client's own body (Native) names
	// the client's member itself. nil: Body is the client's own request.
	ClientParam func(chatParam string) string
	// Allowance, when set, is the front's request-body allowance, from
	// which an attempt takes the cost of a translation into a provider's
	// dialect (TranslationCost of Body) while it is made. An attempt it
	// refuses is not made: nothing is sent or cooled, and the walk moves
	// on (evidence "allowance"; docs/config.md, max_inflight_body_bytes).
	// nil holds nothing.
	Allowance Allowance

	req  *provider.Request // the request the adapters read, built once
	echo []byte            // evidence(true), built once an attempt
	// upstream rewinds the body of the attempt under way as Detour sent it
	// to the upstream (its request's own GetBody, kept by keepSent before
	// sendOnce guards it); attempt counts the attempts made, echoAt is
	// the one echo was built for.
	upstream        func() (io.ReadCloser, error)
	attempt, echoAt int
	emb             embedCall // an embeddings call's parse and request, built once (embed.go)
}

// Progress is told each attempt as it begins: its number in the request
// (from 1), its target and provider, and when it began. Attempt must
// return at once. An interface, not a func: a method value would be one
// more allocation a request (docs/benchmarks.md, "Round 23").
type Progress interface {
	Attempt(n int, target, provider string, at time.Time)
}

// api is the door's name for the record ("chat" by default).
func (c *Call) api() string {
	if c.API == "" {
		return "chat"
	}
	return c.API
}

// advisory reports whether c only asks a question about a request (a
// count_tokens call, Anthropic's or Gemini's): it is never billed and
// tells health nothing.
func (c *Call) advisory() bool {
	return c.Native != nil && (c.Native.API == APICountTokens || c.Native.API == APIGeminiCountTokens)
}

// completions reports whether c came in by the legacy Completions door
// (a passthrough: its body is sent(), and Body is empty).
func (c *Call) completions() bool { return c.Native != nil && c.Native.API == APICompletions }

// sent is the body as the client sent it: the native body of a door that
// is not Chat Completions, else Body. Text in it is no evidence (an
// upstream may quote it back) and is the client's own to read.
func (c *Call) sent() []byte {
	if c.Native != nil {
		return c.Native.Body
	}
	return c.Body
}

// evidence is what the classifier reads an answer's echoes against
// (classify.Response.Request; docs/behaviour.md, "Echo rule"): everything
// the client chose that an upstream may quote back — its body and, for a
// native call, the header values Detour forwards
// (Anthropic quotes an unknown anthropic-beta value in its 400) — and, for
// an error answer to a translated request, the body Detour sent that
// upstream for the attempt (keepSent), without its model member. The upstream reads Detour's translation, not the client's
// body: a text file Detour decoded from base64 for a Claude target, the
// Messages door's "Tool <name> is loaded and can be called." around the
// client's tool name, the schema note that joins the client's property
// names, text parts joined with a line break (hostile 58). Whatever a
// translation, now or later, writes from the client's words is in it.
//
// What else the sent body holds is Detour's: its fixed sentences and the
// dialect's field names (the target's model name is left out, so that an
// answer naming it still shows it: review 58b). A real answer's phrase is
// discarded only where the whole text it matched occurs in that body; no
// fixed sentence of Detour's holds a phrase (the words they share with
// one, as "loaded", are half of it at most). The
// classifier's corpora (classify/corpus_test.go) keep their classes with
// a translated body as evidence (TestHostile58SentBodyKeepsRealAnswers).
//
// An error answer is read against all of it, joined once per attempt; a
// success against the client's body alone, without a copy, and with
// nothing read from the sent body: a success costs nothing more.
func (c *Call) evidence(errorAnswer bool) []byte {
	if !errorAnswer || c.upstream == nil && !c.echoHeaders() {
		return c.sent()
	}
	if c.echo == nil || c.echoAt != c.attempt {
		b := append([]byte(nil), c.sent()...)
		if c.Native != nil {
			for _, vs := range c.Native.Header {
				for _, v := range vs {
					b = append(append(b, '\n'), v...)
				}
			}
		}
		if c.upstream != nil {
			if rc, err := c.upstream(); err == nil {
				var sent bytes.Buffer
				if _, err := sent.ReadFrom(rc); err == nil {
					// Without its model: the operator's name for the
					// upstream's model, which an answer naming it ("model:
					// claude-…") must still show (review 58b: masked as
					// the client's in cooling reasons and records).
					b = append(append(b, '\n'), rawjson.Without(sent.Bytes(), "model")...)
				}
				rc.Close()
			}
		}
		c.echo, c.echoAt = b, c.attempt
	}
	return c.echo
}

// keepSent keeps the body of the attempt's request hreq (nil: none was
// made) for evidence: its own GetBody, which net/http sets for the byte
// readers the adapters send, and which reads nothing until an error
// answer asks. It must run before sendOnce, which makes GetBody fail once
// the request was written. Only a translated request is kept (a door
// other than Chat Completions, or a target that does not speak it): a
// Chat Completions body sent to an OpenAI-dialect endpoint holds the
// client's words as the client wrote them, and reading it again would
// only double an error answer's cost in memory (review 58b: a 20 MB
// request failing at eight endpoints allocated 480 MB). A batched
// embeddings call keeps none (keepSent(nil, false)).
func (c *Call) keepSent(hreq *http.Request, translated bool) {
	c.attempt++
	c.upstream = nil
	if hreq != nil && (translated || c.Native != nil) {
		c.upstream = hreq.GetBody
	}
}

// echoHeaders reports forwarded header values an upstream may quote.
func (c *Call) echoHeaders() bool { return c.Native != nil && len(c.Native.Header) > 0 }

// request is c as the adapters read it.
func (c *Call) request() *provider.Request {
	if c.req == nil {
		c.req = &provider.Request{Body: c.Body, Stream: c.Stream, Translated: c.Native != nil, CachePrompt: c.CachePrompt}
	}
	return c.req
}

// Output is where a committed stream goes; the HTTP front implements it
// for its client. Dispatch calls Commit once, when the first content is
// ready, then Chunk for each canonical chat.completion.chunk JSON, then End
// (a normal end) or Fail (the stream broke after the commit point). Commit
// and Chunk are never called after End or Fail; all calls come from the
// request's one goroutine.
//
// Chunk may keep what it wrote in the front's buffer: dispatch calls Flush
// before it waits for the upstream, so events that arrived together leave
// together and none is held while the upstream is quiet (docs/design.md,
// "Streams"). End and Fail send everything themselves.
//
// Each method returns an error when the client is gone or stalled past the
// front's write timeout; dispatch then ends the attempt as canceled. A
// method must not hold the call longer than that timeout: the upstream's
// idle clock is paused while it runs.
//
// Chunk returns ErrTooLarge when the Output cannot hold more of the answer
// (a door that repeats the whole answer at its end); any other error says
// the client is gone.
type Output interface {
	Commit(Commit) error
	Chunk(chunk []byte) error
	Flush() error
	End() error
	Fail(*Failure) error
}

// ErrTooLarge is what an Output's Chunk returns when it cannot hold more of
// the answer: the attempt fails (server_error, evidence "answer:too large",
// as a whole answer past 64 MiB does) and the client gets the error event.
var ErrTooLarge = errors.New("dispatch: the answer is too large for the client's API")

// Commit describes the attempt whose stream is being committed.
type Commit struct {
	Target, Provider string
	// Attempts counts every attempt so far, this one included.
	Attempts int
	// Native: each Chunk is the raw data of one upstream event in the
	// Call's Native API, to relay as is; otherwise chunks are canonical
	// chat.completion.chunk JSON.
	Native bool
}

// Result is the end of one request.
type Result struct {
	Decision *decision.Decision
	// Body is the canonical chat.completion of a successful non-stream
	// request (what the Call's Whole made of it, when set), or, when Native
	// is set, the upstream's answer in the Call's Native API, as it came.
	Body []byte
	// Native says Body is in the Call's Native API.
	Native bool
	// Committed means the stream reached the Output: the response is written.
	Committed bool
	// Failure is set when no attempt answered (and nothing was committed),
	// or when a committed stream broke (Committed is then true).
	Failure *Failure
	// Canceled means the client went away.
	Canceled bool
	// Target and Provider answered (or, on failure, made the last attempt);
	// empty when no attempt was made.
	Target, Provider string
	// Attempts is the number of attempts made.
	Attempts int
}

// Allowance is memory an attempt takes for a while (Call.Allowance): a
// translation's cost while it runs, then the translated body while the
// attempt sends it.
type Allowance interface {
	// Cap is the most one hold may take (MaxTranslationCost): a
	// translation that would cost more is never made.
	Cap() int64
	// Hold takes n bytes and reports whether it could.
	Hold(n int64) bool
	// Settle ends the hold of n bytes, keeping kept bytes counted.
	Settle(n, kept int64)
	// Release gives back n kept bytes.
	Release(n int64)
}

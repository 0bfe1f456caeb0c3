package dispatch

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/provider/openai"
)

// Failure is what the client is told when nothing answered, or how a
// committed stream failed: the last attempt's real status and the upstream's
// own message.
type Failure struct {
	// Status is the last attempt's upstream status when it was 400-599;
	// otherwise (no HTTP answer, a 2xx or 3xx carrying a failure, a status
	// outside 100-599) the status a provider would send for Class (statusFor).
	Status int
	Class  classify.Class
	// Message is the upstream's own message, or a description of what
	// happened when there was none; an auth failure's says first that the
	// credential refused was the gateway's.
	Message string
	// Code, when set, is the error code the client is told instead of the
	// one its class gives (e.g. "shutdown", which no upstream said).
	Code string
	// Param, when set, is the request's member Detour's own refusal names
	// (a member no target's dialect expresses: provider.Unsupported), told
	// as OpenAI's error.param: the client's own member (Call.ClientParam).
	Param string
	// UpstreamCode is the upstream's own code for its error where its API
	// names one apart from its type (Anthropic's error.details.error_code:
	// thread_not_found, enforced_spend_limit_reached): a client of the same
	// API reads it (its SDKs' typed errors and thread recovery), so the
	// Messages door tells it where Code is empty (upstreamcode.go).
	UpstreamCode string
	// UpstreamOpenAICode and UpstreamParam are an OpenAI-dialect upstream's
	// own error.code and error.param (unsupported_value and temperature,
	// say): the OpenAI doors tell them where the failure is the request's
	// own, as OpenAI would, so an SDK's error keeps the value it names
	// (probe 67c: the envelope said bad_request and no param).
	// UpstreamParam is the client's own member, as Param is.
	UpstreamOpenAICode string
	UpstreamParam      string
	// UpstreamDetails is the rest of an Anthropic-dialect upstream's
	// error.details beside UpstreamCode, as upstreamDetails keeps it (a
	// JSON object, or nil): the Messages door tells it with the code.
	UpstreamDetails []byte
	// RetryAfter, when positive, is how long the client should wait before
	// it asks again: set for a rate_limited or server_error failure whose
	// wait is known (retryafter.go); the front sends it as Retry-After and
	// Retry-After-Ms.
	RetryAfter time.Duration
	// NoRetry: the client is told not to retry the request (x-should-retry:
	// false): no endpoint will serve it soon, it is at fault itself, or a
	// retry would pay again past its billable budget (retryafter.go).
	NoRetry bool
}

// clientParam is p, a member the attempt o's request names, as the member
// of the client's own request it was made from (ClientParam), "" for none.
func (c *Call) clientParam(o *outcome, p string) string {
	if p == "" || o.native || c.ClientParam == nil {
		return p
	}
	return c.ClientParam(p)
}

// upstreamParam is clientParam of p, an OpenAI-dialect upstream's own
// error.param, which names a member of the body the adapter sent: for a
// door's translation, with openai.FitDescriptions' note among its messages
// (openai.SentParam; hostile 69d: off by one message, it named a member
// the client never got wrong).
func (c *Call) upstreamParam(o *outcome, p string) string {
	if p == "" || o.native || c.ClientParam == nil || c.Native == nil {
		return c.clientParam(o, p)
	}
	if p = openai.SentParam(c.Body, p); p == "" {
		return ""
	}
	return c.ClientParam(p)
}

// shutdownFailure is what a request still in flight at the end of the
// shutdown grace period is told: try again (elsewhere), after a second,
// as its Retry-After says (another replica, or this one restarted).
func shutdownFailure() *Failure {
	return &Failure{Status: http.StatusServiceUnavailable, Class: classify.ServerError, Code: "shutdown",
		Message: "Detour is shutting down: the request was ended at the end of its grace period; retry it", RetryAfter: time.Second}
}

// toldStatus is the status a client is told for a failure of class c
// whose last answer had status (400-599). It stays the upstream's, but
// where it would tell the client the opposite of what the class means:
// a full context window is a 400 whatever the upstream answered (OpenAI,
// Anthropic and Gemini all answer 400, and clients recognise it there
// alone: llama-server's 500 and TGI's 422 reached Codex as "high demand"
// it did not compact on, and @langchain/anthropic retried a 500 three
// times and never saw the overflow — probe 58); a request's own failure
// (bad_request, refusal, overflow) read from a 5xx is told with its
// class's status, since a 5xx tells every SDK to send the same request
// again, which fails the same way (docs/behaviour.md, "The client's
// status").
func toldStatus(c classify.Class, status int) int {
	switch c {
	case classify.ContextLength:
		return http.StatusBadRequest
	case classify.BadRequest, classify.Refusal, classify.Overflow:
		if status >= 500 {
			return statusFor(c)
		}
	case classify.Timeout, classify.RateLimited, classify.Quota, classify.ServerError, classify.Unavailable,
		classify.Auth, classify.Forbidden, classify.Unknown:
	}
	return status
}

// statusFor is the status to report when an attempt got no HTTP answer, a
// 2xx or 3xx that carried a failure (a block reason, an in-band error), or a
// status outside 100-599: never a 2xx with an error envelope. Each class gets
// the status a provider would have sent for it.
func statusFor(c classify.Class) int {
	switch c {
	case classify.Timeout:
		return http.StatusGatewayTimeout
	case classify.RateLimited:
		return http.StatusTooManyRequests
	case classify.Quota:
		return http.StatusPaymentRequired
	case classify.Unavailable:
		return http.StatusNotFound
	case classify.Auth:
		return http.StatusUnauthorized
	case classify.Forbidden:
		return http.StatusForbidden
	case classify.Overflow:
		return http.StatusRequestEntityTooLarge
	case classify.ContextLength, classify.Refusal, classify.BadRequest:
		return http.StatusBadRequest // as OpenAI answers a content-policy refusal
	case classify.ServerError, classify.Unknown:
		return http.StatusBadGateway
	}
	return http.StatusBadGateway
}

// scrub removes secrets from what of f leaves the process: its message,
// and the upstream's code and param, each dropped if scrubbing changes it.
func (f *Failure) scrub(forClient func(msg string, sent []byte) string, sent []byte) {
	f.Message = forClient(f.Message, sent)
	for _, s := range []*string{&f.UpstreamCode, &f.UpstreamOpenAICode, &f.UpstreamParam} {
		if *s != "" && forClient(*s, sent) != *s {
			*s = ""
		}
	}
	if d := string(f.UpstreamDetails); d != "" && forClient(d, sent) != d {
		f.UpstreamDetails = nil
	}
}

// visibleControls is msg, an upstream's words that reach the client's
// error and the record, with each C0 control but the tab and the line
// feed (ESC, U+001B, opens a terminal's escape sequences: fuzz 69f), DEL,
// each C1 control (U+0080–U+009F: U+009B is a terminal's CSI) and each
// bidi embedding, override or isolate (U+202A–U+202E, U+2066–U+2069: a
// line drawn in another order than it reads) written as its \uXXXX text,
// so a client that prints its error in a terminal (a coding agent) shows
// them instead of obeying them (hostile 68d). Marks a right-to-left language needs (U+200E, U+200F, joiners)
// are kept. Text without them is msg itself.
func visibleControls(msg string) string {
	i := strings.IndexFunc(msg, controlRune)
	if i < 0 {
		return msg
	}
	var b strings.Builder
	b.Grow(len(msg) + 8)
	b.WriteString(msg[:i])
	for _, r := range msg[i:] {
		if controlRune(r) {
			fmt.Fprintf(&b, "\\u%04x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// controlRune reports a rune visibleControls writes as its \uXXXX text:
// a C1 control, a bidi embedding, override or isolate, and a C0 control
// but the tab and the line feed (fuzz 69f: ESC, U+001B, opens the 7-bit
// CSI "ESC [" and OSC "ESC ]" every terminal obeys, where U+009B is CSI
// to few; a carriage return or a backspace draws over the words before
// it), and DEL.
func controlRune(r rune) bool {
	return r < 0x20 && r != '\t' && r != '\n' || r >= 0x7f && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

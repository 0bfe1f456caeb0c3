package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/dispatch"
)

// envelope is the one encoder of an error the gateway tells a client: the
// OpenAI error envelope {"error":{message, type, code, param}}, for the
// gateway's own refusals and for upstream failures alike (as a body, or as
// the data of a stream's error event).
func envelope(kind, code, msg string) []byte { return envelopeParam(kind, code, msg, "") }

// envelopeParam is envelope naming the request's member param ("": null).
func envelopeParam(kind, code, msg, param string) []byte {
	type body struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Code    string  `json:"code"`
		Param   *string `json:"param"`
	}
	var p *string
	if param != "" {
		p = &param
	}
	b, _ := json.Marshal(struct {
		Error body `json:"error"`
	}{body{Message: clientMessage(msg), Type: kind, Code: code, Param: p}})
	return b
}

// maxMessage bounds the message of an error the gateway writes to a
// client, its own or an upstream's. Refusals quote what the client sent
// (a model no route has, a role, a number no field can hold), and a value
// of invalid UTF-8 is quoted three times its size: a refused 2 MiB body
// was answered with 6 MiB, built and held after its bytes were given back
// to the body allowance, for as long as the client took to read it (up to
// the 30 s write timeout), so a few clients that never read took the
// gateway's memory far past max_inflight_body_bytes (review 39e). No
// message a client needs is a fraction of this long.
const maxMessage = 16 << 10

// clientMessage is msg cut to about maxMessage bytes, for a client.
func clientMessage(msg string) string { return cut(msg, maxMessage) }

// cut is s cut to about n bytes: its first three quarters and its last
// quarter, at the start of a rune, joined by an ellipsis (what a message
// says after the value it quotes, such as the field a number was for, is
// kept).
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head, tail := n*3/4, len(s)-n/4
	for head > 0 && !utf8.RuneStart(s[head]) {
		head--
	}
	for tail < len(s) && !utf8.RuneStart(s[tail]) {
		tail++
	}
	return s[:head] + "…" + s[tail:]
}

// failureEnvelope is the envelope of a failed request: the class's type
// and errorCode.
func failureEnvelope(f *dispatch.Failure) []byte {
	return envelopeParam(failureType(f), errorCode(f), openaiMessage(f), failureParam(f))
}

// failureParam is the member of the request an OpenAI-dialect upstream
// named in its error.param, where the failure is the request's own (the
// classes whose 400 the client is to fix): "" otherwise.
func failureParam(f *dispatch.Failure) string {
	if f.Param != "" { // Detour's own refusal of a member (dispatch.Failure.Param)
		return f.Param
	}
	switch f.Class {
	case classify.BadRequest, classify.ContextLength, classify.Refusal, classify.Overflow:
		return f.UpstreamParam
	case classify.Timeout, classify.RateLimited, classify.Quota, classify.ServerError, classify.Unavailable,
		classify.Auth, classify.Forbidden, classify.Unknown:
		return ""
	}
	return ""
}

// failureType is the "type" an OpenAI-shaped envelope tells the client for
// f, in an error event after the commit point too.
func failureType(f *dispatch.Failure) string {
	if f.Class == classify.Unknown && f.Status >= 400 && f.Status < 500 {
		// An unknown answered with a 4xx (an upstream's unfamiliar 400, a
		// request no target's dialect can express): the request's, as
		// OpenAI types a 400 (a 2xx whose error says 400 is sent as one).
		// upstream_error stays for an unknown answered with a 5xx.
		return "invalid_request_error"
	}
	return errorType(f.Class)
}

// openaiMessage is the message an OpenAI door tells the client for f: the
// upstream's words, but a context-length failure another vendor worded its
// own way is told in OpenAI's words first, with the counts when the
// vendor gave them (classify.ContextCounts), and the vendor's message
// after: LangChain's ChatOpenAI recognises a full window by "maximum
// context length" in the message, not by the code, and its summarising
// fallback runs only then (probe c50e). docs/behaviour.md, "API".
func openaiMessage(f *dispatch.Failure) string {
	if f.Class == classify.Refusal && !strings.Contains(f.Message, policyViolation) {
		// LiteLLM raises its ContentPolicyViolationError (which its
		// content_policy_fallbacks act on) only where the error holds both
		// "invalid_request_error" (the type) and "content_policy_violation",
		// OpenAI's own code for a policy refusal; Microsoft's clients want
		// Azure's code, content_filter (probe 57b, review 57b).
		return policyViolation + ": " + f.Message
	}
	if f.Class != classify.ContextLength || strings.Contains(strings.ToLower(f.Message), "maximum context length") {
		return f.Message
	}
	if used, window, ok := classify.ContextCounts(f.Message); ok {
		return fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. (%s)", window, used, f.Message)
	}
	// OpenAI's opening without the counts: LiteLLM raises its
	// ContextWindowExceededError (which DSPy's ReAct trims its trajectory
	// on, and context_window_fallbacks move on) only on "This model's
	// maximum context length is" (probe 57b).
	return "This model's maximum context length is exceeded by your messages. (" + f.Message + ")"
}

// policyViolation is OpenAI's own code for a policy refusal.
const policyViolation = "content_policy_violation"

// errorCode is the code an OpenAI-shaped envelope tells the client: the
// failure's own Code, else OpenAI's code for the class where OpenAI has one
// (clients act on those: Codex compacts its history on
// context_length_exceeded and stops on insufficient_quota; review 37c),
// else the class name (docs/behaviour.md#api).
func errorCode(f *dispatch.Failure) string {
	if f.Code != "" {
		return f.Code
	}
	switch f.Class {
	case classify.ContextLength:
		return "context_length_exceeded"
	case classify.Quota:
		return "insufficient_quota"
	case classify.RateLimited:
		return "rate_limit_exceeded"
	case classify.Unavailable:
		return "model_not_found"
	case classify.Refusal:
		// Azure's, which Microsoft's clients (Semantic Kernel, Agent
		// Framework) raise their content-filter exception on; the message
		// names content_policy_violation too, for LiteLLM (openaiMessage).
		return "content_filter"
	case classify.Auth:
		// Not invalid_api_key: that is the client's own key refused at the
		// front; here the operator's provider key was (review 37d).
		return f.Class.String()
	case classify.BadRequest:
		// The request's own fault: OpenAI's own code for it where an
		// OpenAI-dialect upstream gave one (unsupported_value beside its
		// param), which the SDKs' errors carry (probe 67c). Not an
		// overflow's: OpenAI words one request past a per-minute cap as
		// rate_limit_exceeded, which a client would wait out.
		if f.UpstreamOpenAICode != "" {
			return f.UpstreamOpenAICode
		}
		return f.Class.String()
	case classify.Timeout, classify.ServerError, classify.Forbidden, classify.Overflow, classify.Unknown:
		return f.Class.String()
	}
	return f.Class.String()
}

// writeError writes the gateway's own error in the OpenAI envelope.
func writeError(w http.ResponseWriter, status int, kind, code, msg string) {
	writeEnvelope(w, status, envelope(kind, code, msg))
}

func writeEnvelope(w http.ResponseWriter, status int, b []byte) {
	requestID(w.Header())
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}

// errorType maps a class to the OpenAI error envelope's "type".
func errorType(c classify.Class) string {
	switch c {
	case classify.Timeout:
		return "timeout_error"
	case classify.RateLimited:
		return "rate_limit_error"
	case classify.Quota:
		return "insufficient_quota"
	case classify.ServerError:
		return "server_error"
	case classify.Unavailable:
		return "not_found_error"
	case classify.Auth:
		return "authentication_error"
	case classify.Forbidden:
		return "permission_error"
	case classify.Overflow, classify.ContextLength, classify.BadRequest, classify.Refusal:
		return "invalid_request_error"
	case classify.Unknown:
		return "upstream_error"
	}
	return "upstream_error"
}

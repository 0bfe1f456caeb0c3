package messages

import (
	"encoding/json"
	"net/http"

	"github.com/detour-llm/detour/classify"
)

// Anthropic's error types, each with the HTTP status Anthropic answers it
// with. Source: "Claude API errors", https://platform.claude.com/docs/en/api/errors
// (HTTP errors: 400 invalid_request_error, 401 authentication_error, 402
// billing_error, 403 permission_error, 404 not_found_error, 413
// request_too_large, 429 rate_limit_error, 500 api_error, 504 timeout_error,
// 529 overloaded_error).
const (
	TypeInvalidRequest  = "invalid_request_error"
	TypeAuthentication  = "authentication_error"
	TypeBilling         = "billing_error"
	TypePermission      = "permission_error"
	TypeNotFound        = "not_found_error"
	TypeRequestTooLarge = "request_too_large"
	TypeRateLimit       = "rate_limit_error"
	TypeAPI             = "api_error"
	TypeTimeout         = "timeout_error"
	TypeOverloaded      = "overloaded_error"
)

// StatusOverloaded is Anthropic's non-standard 529 "overloaded".
const StatusOverloaded = 529

// TypeForStatus is the error type Anthropic uses for an HTTP status: the
// documented pairs above; any other 4xx is invalid_request_error (as
// Anthropic says it does), 503 is overloaded_error (Detour's own 503s mean
// "too busy, retry": max_inflight_body_bytes, shutdown), any other status
// api_error.
func TypeForStatus(status int) string {
	switch status {
	case http.StatusBadRequest:
		return TypeInvalidRequest
	case http.StatusUnauthorized:
		return TypeAuthentication
	case http.StatusPaymentRequired:
		return TypeBilling
	case http.StatusForbidden:
		return TypePermission
	case http.StatusNotFound:
		return TypeNotFound
	case http.StatusRequestEntityTooLarge:
		return TypeRequestTooLarge
	case http.StatusTooManyRequests:
		return TypeRateLimit
	case http.StatusGatewayTimeout:
		return TypeTimeout
	case StatusOverloaded, http.StatusServiceUnavailable:
		return TypeOverloaded
	}
	if status >= 400 && status < 500 {
		return TypeInvalidRequest
	}
	return TypeAPI
}

// ErrorType is the error type to tell a client about a failure of class c
// that ended with HTTP status (the real status the server reports). The
// class decides where it names a cause Anthropic has a type for; a server
// error keeps overloaded_error when the status says overloaded (529, 503),
// and an unknown failure takes the type of its status.
func ErrorType(c classify.Class, status int) string {
	switch c {
	case classify.Timeout:
		return TypeTimeout
	case classify.RateLimited:
		return TypeRateLimit
	case classify.Quota:
		return TypeBilling
	case classify.ServerError:
		if t := TypeForStatus(status); t == TypeOverloaded {
			return t
		}
		return TypeAPI
	case classify.Unavailable:
		return TypeNotFound
	case classify.Auth:
		return TypeAuthentication
	case classify.Forbidden:
		return TypePermission
	case classify.Overflow:
		return TypeRequestTooLarge
	case classify.ContextLength, classify.Refusal, classify.BadRequest:
		return TypeInvalidRequest
	case classify.Unknown:
		return TypeForStatus(status)
	}
	return TypeForStatus(status)
}

type errorBody struct {
	Type  string      `json:"type"`
	Error errorDetail `json:"error"`
}

type errorDetail struct {
	Type    string          `json:"type"`
	Message string          `json:"message"`
	Details json.RawMessage `json:"details,omitempty"`
}

// ThreadUnsupported is Anthropic's error code for a request a message
// thread cannot serve (ThreadUnsupportedRequestErrorDetails): the SDKs'
// tool runners, whose threads are created to continue unthreaded, send
// the turn again with the whole conversation and no thread
// (anthropic-sdk-go betamessagethread.go recoversFrom).
const ThreadUnsupported = "thread_unsupported_request"

// Envelope is Anthropic's error body:
// {"type":"error","error":{"type":typ,"message":message}}. The Detour class
// is not in it (Anthropic's envelope has no place for it): the server sends
// it as X-Detour-Class.
func Envelope(typ, message string) []byte {
	b, _ := json.Marshal(errorBody{Type: "error", Error: errorDetail{Type: typ, Message: message}})
	return b
}

// ClassEnvelope is Envelope for a failure of class c reported with status;
// a context-length failure is told in Anthropic's words (contextMessage),
// and a failure's own code, when it has one, is error.details.error_code.
func ClassEnvelope(c classify.Class, status int, message, code string) []byte {
	return ClassEnvelopeDetails(c, status, message, code, nil)
}

// ClassEnvelopeDetails is ClassEnvelope with more of error.details beside
// the code: more, a JSON object of the members an Anthropic upstream sent
// there (image_dimensions_too_large's max_side_length_pixels and paths,
// which anthropic-sdk-go's Error.Details reads), or nil. Without a code
// there are no details.
func ClassEnvelopeDetails(c classify.Class, status int, message, code string, more json.RawMessage) []byte {
	d := errorDetail{Type: ErrorType(c, status), Message: contextMessage(c, message)}
	if code != "" {
		b, _ := json.Marshal(struct {
			ErrorCode string `json:"error_code"`
		}{code})
		if len(more) > 2 && more[0] == '{' && json.Valid(more) {
			b = append(append(b[:len(b)-1], ','), more[1:]...)
		}
		d.Details = b
	}
	b, _ := json.Marshal(errorBody{Type: "error", Error: d})
	return b
}

// ErrorEvent is Anthropic's error event, which ends a stream that broke
// after its commit point: "event: error" with ClassEnvelope's data.
func ErrorEvent(c classify.Class, status int, message, code string) []byte {
	return ErrorEventDetails(c, status, message, code, nil)
}

// ErrorEventDetails is ErrorEvent with ClassEnvelopeDetails' data.
func ErrorEventDetails(c classify.Class, status int, message, code string, more json.RawMessage) []byte {
	out := append([]byte("event: error\ndata: "), ClassEnvelopeDetails(c, status, message, code, more)...)
	return append(out, "\n\n"...)
}

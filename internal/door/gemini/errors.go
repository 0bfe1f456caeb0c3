package gemini

import (
	"encoding/json"
	"net/http"

	"github.com/detour-llm/detour/classify"
)

// Google's error envelope (google.rpc.Status as the Gemini API writes it):
// {"error":{"code":400,"message":"…","status":"INVALID_ARGUMENT"}}. code is
// the HTTP status; status the canonical code's name. Source: "Troubleshooting
// guide" of the Gemini API (https://ai.google.dev/gemini-api/docs/troubleshooting,
// "Backend service error codes") and google.rpc.Code.

// Google's status names, by the HTTP status Google answers each with.
const (
	StatusInvalidArgument   = "INVALID_ARGUMENT"
	StatusUnauthenticated   = "UNAUTHENTICATED"
	StatusPermissionDenied  = "PERMISSION_DENIED"
	StatusNotFound          = "NOT_FOUND"
	StatusResourceExhausted = "RESOURCE_EXHAUSTED"
	StatusCancelled         = "CANCELLED"
	StatusInternal          = "INTERNAL"
	StatusUnavailable       = "UNAVAILABLE"
	StatusDeadlineExceeded  = "DEADLINE_EXCEEDED"
	StatusUnimplemented     = "UNIMPLEMENTED"
)

// StatusFor is the status name Google gives an HTTP status: 400
// INVALID_ARGUMENT, 401 UNAUTHENTICATED, 403 PERMISSION_DENIED, 404
// NOT_FOUND, 413 INVALID_ARGUMENT (Google answers an oversized request
// 400 INVALID_ARGUMENT; Detour's own 413 keeps its status, named so), 429
// RESOURCE_EXHAUSTED, 499 CANCELLED, 500 INTERNAL, 501 UNIMPLEMENTED, 503
// UNAVAILABLE, 504 DEADLINE_EXCEEDED; any other 4xx INVALID_ARGUMENT
// (405 and 415 included: Google has no name of their own for them), any
// other 5xx INTERNAL (502 and 529 included).
func StatusFor(status int) string {
	switch status {
	case http.StatusUnauthorized:
		return StatusUnauthenticated
	case http.StatusForbidden:
		return StatusPermissionDenied
	case http.StatusNotFound:
		return StatusNotFound
	case http.StatusTooManyRequests:
		return StatusResourceExhausted
	case 499:
		return StatusCancelled
	case http.StatusNotImplemented:
		return StatusUnimplemented
	case http.StatusServiceUnavailable:
		return StatusUnavailable
	case http.StatusGatewayTimeout:
		return StatusDeadlineExceeded
	}
	if status >= 500 {
		return StatusInternal
	}
	return StatusInvalidArgument
}

// StatusOf is the status name to tell a client about a failure of class c
// reported with the HTTP status: the status's name, but where the class
// names a cause the status does not (a timeout a 502 reported, a quota a
// 402 reported).
func StatusOf(c classify.Class, status int) string {
	switch c {
	case classify.Timeout:
		return StatusDeadlineExceeded
	case classify.RateLimited, classify.Quota:
		return StatusResourceExhausted
	case classify.Auth:
		return StatusUnauthenticated
	case classify.Forbidden:
		return StatusPermissionDenied
	case classify.Unavailable:
		if status == http.StatusNotFound {
			return StatusNotFound
		}
		return StatusUnavailable
	case classify.ServerError:
		if status < 500 {
			return StatusInternal
		}
	case classify.BadRequest, classify.ContextLength, classify.Refusal, classify.Overflow, classify.Unknown:
	}
	return StatusFor(status)
}

type envelope struct {
	Error errorBody `json:"error"`
}

type errorBody struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Status  string `json:"status"`
}

// Envelope is Google's error body for HTTP status code, named by
// StatusFor: what @google/genai's ApiError carries (its status the code,
// its message the body as JSON) and @ai-sdk/google reads
// (error.message).
func Envelope(code int, message string) []byte {
	return envelopeOf(code, StatusFor(code), message)
}

// ClassEnvelope is Envelope for a failure of class c reported with the
// HTTP status code, its status name from the class (StatusOf).
func ClassEnvelope(c classify.Class, code int, message string) []byte {
	return envelopeOf(code, StatusOf(c, code), message)
}

func envelopeOf(code int, status, message string) []byte {
	if code < 400 || code > 599 {
		code = http.StatusInternalServerError // the SDK raises an ApiError for 4xx and 5xx alone
	}
	b, _ := json.Marshal(envelope{errorBody{Code: code, Message: message, Status: status}})
	return b
}

// ErrorFrame ends a stream that failed after its commit point: one SSE data
// event holding the envelope, as Google ends a broken stream. @google/genai
// reads each event's data and throws an ApiError whose status is the
// envelope's code (throwIfStreamErrorChunk, 3.6.1); a 200 stream's code is
// the failure's own status, at least 400.
func ErrorFrame(c classify.Class, code int, message string) []byte {
	out := append([]byte("data: "), ClassEnvelope(c, code, message)...)
	return append(out, "\r\n\r\n"...)
}

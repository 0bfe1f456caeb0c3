package gemini

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

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
	Code    int         `json:"code"`
	Message string      `json:"message"`
	Status  string      `json:"status"`
	Details []retryInfo `json:"details,omitempty"`
}

// retryInfo is google.rpc.RetryInfo as Google puts it in an error's
// details: {"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"37s"}.
type retryInfo struct {
	Type       string `json:"@type"`
	RetryDelay string `json:"retryDelay"`
}

// Envelope is Google's error body for HTTP status code, named by
// StatusFor: what @google/genai's ApiError carries (its status the code,
// its message the body as JSON) and @ai-sdk/google reads
// (error.message).
func Envelope(code int, message string) []byte {
	return envelopeOf(code, StatusFor(code), message, 0)
}

// EnvelopeWait is Envelope with, when wait is above 0, Google's RetryInfo
// detail saying it (whole seconds, rounded up), as Google's own 429s carry
// it. The Gemini CLI reads it (0.61.0, classifyGoogleError): a wait past 5
// minutes ends its turn at once ("Suggested retry after …s"), where without
// it the CLI retries a 429 ten times over minutes (operator review 69l: a
// key's spent monthly budget retried until its user gave up).
func EnvelopeWait(code int, message string, wait time.Duration) []byte {
	return envelopeOf(code, StatusFor(code), message, wait)
}

// ClassEnvelope is Envelope for a failure of class c reported with the
// HTTP status code, its status name from the class (StatusOf).
func ClassEnvelope(c classify.Class, code int, message string) []byte {
	return envelopeOf(code, StatusOf(c, code), message, 0)
}

// ClassEnvelopeWait is ClassEnvelope with the RetryInfo of EnvelopeWait.
func ClassEnvelopeWait(c classify.Class, code int, message string, wait time.Duration) []byte {
	return envelopeOf(code, StatusOf(c, code), message, wait)
}

func envelopeOf(code int, status, message string, wait time.Duration) []byte {
	if code < 400 || code > 599 {
		code = http.StatusInternalServerError // the SDK raises an ApiError for 4xx and 5xx alone
	}
	e := envelope{errorBody{Code: code, Message: message, Status: status}}
	if wait > 0 {
		secs := int64((wait + time.Second - 1) / time.Second) // rounded up: never back too soon
		e.Error.Details = []retryInfo{{Type: "type.googleapis.com/google.rpc.RetryInfo", RetryDelay: strconv.FormatInt(secs, 10) + "s"}}
	}
	b, _ := json.Marshal(e)
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

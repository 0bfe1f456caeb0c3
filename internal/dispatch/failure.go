package dispatch

import (
	"encoding/json"
	"net/http"

	"github.com/detour-llm/detour/classify"
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
	// happened when there was none.
	Message string
	// Code, when set, is the envelope's "code" instead of the class (e.g.
	// "shutdown", which no upstream said).
	Code string
}

// shutdownFailure is what a request still in flight at the end of the
// shutdown grace period is told: try again (elsewhere).
func shutdownFailure() *Failure {
	return &Failure{Status: http.StatusServiceUnavailable, Class: classify.ServerError, Code: "shutdown",
		Message: "Detour is shutting down: the request was ended at the end of its grace period; retry it"}
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
	case classify.Overflow, classify.ContextLength, classify.BadRequest:
		return "invalid_request_error"
	case classify.Refusal:
		return "content_policy_violation"
	case classify.Unknown:
		return "upstream_error"
	}
	return "upstream_error"
}

// Envelope is the OpenAI error envelope for f: {"error":{message, type, code, param}},
// with the Detour class as "code".
func (f *Failure) Envelope() []byte {
	type body struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Code    string  `json:"code"`
		Param   *string `json:"param"`
	}
	b, _ := json.Marshal(struct {
		Error body `json:"error"`
	}{body{Message: f.Message, Type: errorType(f.Class), Code: f.code()}})
	return b
}

func (f *Failure) code() string {
	if f.Code != "" {
		return f.Code
	}
	return f.Class.String()
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

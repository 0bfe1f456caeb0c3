package messages

import (
	"encoding/json"
	"testing"

	"github.com/detour-llm/detour/classify"
)

// TestTypeForStatus checks the pairs of "Claude API errors"
// (https://platform.claude.com/docs/en/api/errors), and the other statuses.
func TestTypeForStatus(t *testing.T) {
	for typ, status := range map[string]int{
		TypeInvalidRequest: 400, TypeAuthentication: 401, TypeBilling: 402, TypePermission: 403,
		TypeNotFound: 404, TypeRequestTooLarge: 413, TypeRateLimit: 429, TypeAPI: 500,
		TypeTimeout: 504, TypeOverloaded: 529,
	} {
		if got := TypeForStatus(status); got != typ {
			t.Errorf("TypeForStatus(%d) = %s, want %s", status, got, typ)
		}
	}
	for status, typ := range map[int]string{405: TypeInvalidRequest, 415: TypeInvalidRequest, 503: TypeOverloaded,
		502: TypeAPI, 200: TypeAPI} {
		if got := TypeForStatus(status); got != typ {
			t.Errorf("TypeForStatus(%d) = %s, want %s", status, got, typ)
		}
	}
}

// TestErrorType names a type for every class, and lets an overloaded
// server error and an unknown failure keep what their status says.
func TestErrorType(t *testing.T) {
	want := map[classify.Class]string{
		classify.Timeout: TypeTimeout, classify.RateLimited: TypeRateLimit, classify.Quota: TypeBilling,
		classify.ServerError: TypeAPI, classify.Unavailable: TypeNotFound, classify.Auth: TypeAuthentication,
		classify.Forbidden: TypePermission, classify.Overflow: TypeRequestTooLarge,
		classify.ContextLength: TypeInvalidRequest, classify.Refusal: TypeInvalidRequest,
		classify.BadRequest: TypeInvalidRequest, classify.Unknown: TypeAPI,
	}
	for _, c := range classify.Classes() {
		if got := ErrorType(c, 502); got != want[c] {
			t.Errorf("%s at 502: %s, want %s", c, got, want[c])
		}
	}
	if got := ErrorType(classify.ServerError, 529); got != TypeOverloaded {
		t.Errorf("server_error at 529: %s", got)
	}
	if got := ErrorType(classify.Unknown, 400); got != TypeInvalidRequest {
		t.Errorf("unknown at 400: %s", got)
	}
}

// TestEnvelope checks Anthropic's error shape, as the errors page shows it:
// {"type":"error","error":{"type":"not_found_error","message":"The requested resource could not be found."}}.
func TestEnvelope(t *testing.T) {
	got := string(Envelope(TypeNotFound, "The requested resource could not be found."))
	want := `{"type":"error","error":{"type":"not_found_error","message":"The requested resource could not be found."}}`
	if got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	var e struct {
		Error struct{ Type, Message string }
	}
	if err := json.Unmarshal(ClassEnvelope(classify.RateLimited, 429, `say "hi"`), &e); err != nil ||
		e.Error.Type != TypeRateLimit || e.Error.Message != `say "hi"` {
		t.Errorf("ClassEnvelope: %+v %v", e, err)
	}
}

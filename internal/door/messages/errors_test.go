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
	if err := json.Unmarshal(ClassEnvelope(classify.RateLimited, 429, `say "hi"`, ""), &e); err != nil ||
		e.Error.Type != TypeRateLimit || e.Error.Message != `say "hi"` {
		t.Errorf("ClassEnvelope: %+v %v", e, err)
	}
}

// TestContextLengthInAnthropicsWords: a context-length failure another
// vendor worded is told as Anthropic words it, with the counts when the
// vendor gave them (Claude Code compacts on "prompt is too long" alone);
// Anthropic's own words, and other classes, pass as they came.
func TestContextLengthInAnthropicsWords(t *testing.T) {
	for _, c := range []struct {
		class   classify.Class
		in, out string
	}{
		// vLLM's wording (its serving_engine: "you requested N tokens"):
		// the prompt fits, the output asked for does not beside it —
		// Anthropic's words for that (probe 58: Claude Code lowers its
		// max_tokens on them, where it compacts on "prompt is too long").
		{classify.ContextLength, "This model's maximum context length is 32768 tokens. However, you requested 33000 tokens (32000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
			"input length and `max_tokens` exceed context limit: 32000 + 1000 > 32768 (prompt is too long for the max_tokens asked; This model's maximum context length is 32768 tokens. However, you requested 33000 tokens (32000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.)"},
		// The messages alone past the window: a prompt too long.
		{classify.ContextLength, "This model's maximum context length is 32768 tokens. However, you requested 34000 tokens (33000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.",
			"prompt is too long: 34000 tokens > 32768 maximum (This model's maximum context length is 32768 tokens. However, you requested 34000 tokens (33000 in the messages, 1000 in the completion). Please reduce the length of the messages or completion.)"},
		// Anthropic's own words pass as they came.
		{classify.ContextLength, "input length and `max_tokens` exceed context limit: 189136 + 20000 > 204648, decrease input length or `max_tokens` and try again",
			"input length and `max_tokens` exceed context limit: 189136 + 20000 > 204648, decrease input length or `max_tokens` and try again"},
		{classify.ContextLength, "The input token count (1052916) exceeds the maximum number of tokens allowed (1048576).",
			"prompt is too long: 1052916 tokens > 1048576 maximum (The input token count (1052916) exceeds the maximum number of tokens allowed (1048576).)"},
		{classify.ContextLength, "Your input exceeds the context window of this model. Please adjust your input and try again.",
			"prompt is too long (Your input exceeds the context window of this model. Please adjust your input and try again.)"},
		{classify.ContextLength, "prompt is too long: 209834 tokens > 200000 maximum", "prompt is too long: 209834 tokens > 200000 maximum"},
		{classify.BadRequest, "This model's maximum context length is 10 tokens. However, you requested 20 tokens", "This model's maximum context length is 10 tokens. However, you requested 20 tokens"},
	} {
		var e struct {
			Error struct{ Message string }
		}
		if err := json.Unmarshal(ClassEnvelope(c.class, 400, c.in, ""), &e); err != nil || e.Error.Message != c.out {
			t.Errorf("%s %q:\n got %q\nwant %q", c.class, c.in, e.Error.Message, c.out)
		}
	}
}

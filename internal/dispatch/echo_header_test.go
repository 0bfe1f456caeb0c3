package dispatch_test

import (
	"context"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// The client's anthropic-beta header reaches an Anthropic target as sent
// (docs/doors.md, "Passthrough"), and Anthropic quotes an unknown value back
// in its 400: "Unexpected value(s) `prompt-caching-2024-07-31` for the
// `anthropic-beta` header. Please consult our documentation at
// docs.anthropic.com or try again without the header."
// (zed-industries/zed#42715, anthropics/claude-code#53855). The classifier
// is given the client's body, not its headers, so the echo check cannot see
// the value: a client sending `anthropic-beta: insufficient_quota` made the
// attempt quota (the account cooled, the operator paged); `invalid
// x-api-key` made it auth, `model_not_found` unavailable.
func TestClientBetaHeaderEchoedIsNoEvidence(t *testing.T) {
	for _, beta := range []string{"insufficient_quota", "credit balance is too low", "invalid x-api-key", "model_not_found"} {
		t.Run(beta, func(t *testing.T) {
			answer := upstreamtest.Step{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"Unexpected value(s) ` +
				"`" + beta + "`" + ` for the ` + "`anthropic-beta`" + ` header. Please consult our documentation at docs.anthropic.com or try again without the header."}}`}
			d, ua, _ := nativeDispatcher(t, upstreamtest.Steps(answer), upstreamtest.Steps(upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-x", "hi")}))
			call := nativeCall(false, nil)
			call.Native.Header.Set("anthropic-beta", beta)
			res := d.Do(context.Background(), call)
			if got := ua.Requests(); len(got) == 0 || got[0].Header.Get("Anthropic-Beta") != beta {
				t.Fatalf("the Anthropic target did not get the client's header")
			}
			if len(res.Decision.Attempts) == 0 {
				t.Fatalf("no attempt recorded: %+v", res.Decision)
			}
			a := res.Decision.Attempts[0]
			switch a.Class {
			case "quota", "auth", "unavailable":
				t.Errorf("attempt 1: %s (%s): the client's own header value decided it", a.Class, a.Evidence)
			}
		})
	}
}

package e2e

import (
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 62h: the Messages door told an Anthropic target's
// error.details.error_code to the client (Failure.UpstreamCode) whatever
// the class. For auth, the refused credential is the gateway's, and
// Detour's message says so first ("not the client's key": operator review
// 48) — but the code beside it says the client's organization is on hold
// or its key's creator left, which the SDKs raise as the client's own
// typed error.
func TestReview62hGatewayCredentialCodeIsNotTheClients(t *testing.T) {
	for _, code := range []string{"organization_on_hold", "claude_code_key_creator_not_member"} {
		r := claudeAnswers(t, upstreamtest.Step{Status: 401,
			Body: `{"type":"error","error":{"type":"authentication_error","message":"denied","details":{"error_code":"` + code + `"}}}`})
		t.Logf("%d class=%s %s", r.Status, r.Header.Get("X-Detour-Class"), r.Body)
		if detailCode(r) == code {
			t.Errorf("the gateway's own credential refused (%s): the client is told error_code %q beside %s", r.Header.Get("X-Detour-Class"), code, r.Body)
		}
	}
}

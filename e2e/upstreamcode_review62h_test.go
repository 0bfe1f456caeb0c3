package e2e

import (
	"encoding/json"
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
		fs := fakes(t, map[string]upstreamtest.Script{
			"anthropic": script(upstreamtest.Step{Status: 401,
				Body: `{"type":"error","error":{"type":"authentication_error","message":"denied","details":{"error_code":"` + code + `"}}}`}),
			"openai": script(ok("gpt-4o-mini", "x")),
			"gemini": script(upstreamtest.Step{Body: review62cGemini}),
		})
		g := start(t, review62cCfg, fs)
		r := g.raw(t, "POST", "/v1/messages", `{"model":"r-claude","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`,
			"x-api-key", "client-key-1", "anthropic-version", "2023-06-01")
		var env struct {
			Error struct {
				Message string `json:"message"`
				Details struct {
					ErrorCode string `json:"error_code"`
				} `json:"details"`
			} `json:"error"`
		}
		_ = json.Unmarshal(r.Body, &env)
		t.Logf("%d class=%s %s", r.Status, r.Header.Get("X-Detour-Class"), r.Body)
		if env.Error.Details.ErrorCode == code {
			t.Errorf("the gateway's own credential refused (%s): the client is told error_code %q beside %q", r.Header.Get("X-Detour-Class"), code, env.Error.Message)
		}
	}
}

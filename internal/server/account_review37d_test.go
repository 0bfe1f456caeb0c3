package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 37d. accountEdits (internal/redact/account.go) hides an OpenAI
// organization id only in the form "org-" + 12 alphanumerics, and a project
// as "proj_". Two of the commonest providers behind an OpenAI- or
// Anthropic-dialect gateway name the operator's organisation otherwise, in
// the very 429s a client of a shared gateway provokes at will (each quoted
// from a public issue):
//   - Groq: "in organization `org_01hs26sgxde6dva0eke39336sv` ... Limit 6000,
//     Used 3513, Requested 3166" (continuedev/continue#10920,
//     openinterpreter#408): "org_" + a ULID — the usage is hidden, the org
//     is not;
//   - Anthropic: "This request would exceed the rate limit for your
//     organization (a22cf6e6-a940-4fff-8c4c-1580816ac7be) of 1,000,000 input
//     tokens per minute" (stackblitz/bolt.new#8589): the org UUID.
//
// docs/security.md says the point is that no client key reads "which
// organization served it".
func TestReview37dAccountScrubberHidesGroqAndAnthropicOrgIDs(t *testing.T) {
	for _, c := range []struct {
		name, dialect, body, secret string
	}{
		{"groq", "openai",
			`{"error":{"message":"Rate limit reached for model ` + "`llama-3.3-70b-versatile`" + ` in organization ` + "`org_01hs26sgxde6dva0eke39336sv`" + ` service tier ` + "`on_demand`" + ` on tokens per minute (TPM): Limit 6000, Used 3513, Requested 3166. Please try again in 6.78s. Visit https://console.groq.com/docs/rate-limits for more information.","type":"tokens","code":"rate_limit_exceeded"}}`,
			"org_01hs26sgxde6dva0eke39336sv"},
		{"anthropic", "anthropic",
			`{"type":"error","error":{"type":"rate_limit_error","message":"This request would exceed the rate limit for your organization (a22cf6e6-a940-4fff-8c4c-1580816ac7be) of 1,000,000 input tokens per minute. For details, refer to: https://docs.anthropic.com/en/api/rate-limits. You can see the response headers for current usage."}}`,
			"a22cf6e6-a940-4fff-8c4c-1580816ac7be"},
	} {
		t.Run(c.name, func(t *testing.T) {
			up := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
				return upstreamtest.Step{Status: 429, Header: map[string]string{"Retry-After": "7"}, Body: c.body}
			})
			t.Cleanup(up.Close)
			url, _, _ := r37aGateway(t, teamAConfig(c.dialect), up, nil)
			resp, body := postWith(t, url, "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
				"Authorization", "Bearer key-team-a")
			t.Logf("client got %d %s", resp.StatusCode, strings.TrimSpace(body))
			if strings.Contains(body, c.secret) {
				t.Errorf("%s: a client key reads the operator's organization id %s in the upstream's 429", c.name, c.secret)
			}
		})
	}
}

// Review 37d. The envelope code (errorCode) gave the auth class OpenAI's "invalid_api_key"
// and the unavailable class "model_not_found" — the very codes (and, for
// auth, the very status and type) the front uses for the client's OWN
// mistakes: a wrong Detour key (front.go: 401 authentication_error
// invalid_api_key) and a model the gateway does not know (404
// model_not_found). Before, the upstream's failures said "auth" and
// "unavailable". Now an operator's revoked provider key is told to every
// client exactly as its own bad key is: status, type and code alike (an SDK
// or Codex acts on them: re-login, rotate the key), and docs/behaviour.md's
// "Each names one class" does not hold for the front's codes.
func TestReview37dUpstreamAuthFailureIsNotTheClientsOwnBadKey(t *testing.T) {
	up := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Status: 401, Body: `{"error":{"message":"Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`}
	})
	t.Cleanup(up.Close)
	url, _, _ := r37aGateway(t, teamAConfig("openai"), up, nil)
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	type env struct {
		Error struct{ Type, Code string } `json:"error"`
	}
	read := func(hdr ...string) (int, env, http.Header) {
		resp, body := postWith(t, url, "/v1/chat/completions", chat, hdr...)
		var e env
		if err := jsonUnmarshal(body, &e); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		t.Logf("%d %s (X-Detour-Class %q)", resp.StatusCode, strings.TrimSpace(body), resp.Header.Get("X-Detour-Class"))
		return resp.StatusCode, e, resp.Header
	}
	s1, own, _ := read("Authorization", "Bearer wrong-key")
	s2, ups, _ := read("Authorization", "Bearer key-team-a")
	if s1 == s2 && own.Error == ups.Error {
		t.Errorf("the client's own wrong key and the operator's rejected provider key are told alike: %d %+v; the upstream's should keep a code of its own (it was \"auth\")", s1, own.Error)
	}
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

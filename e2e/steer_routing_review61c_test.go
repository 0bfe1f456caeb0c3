package e2e

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 61c: OpenRouter's provider routing is a member of the request body
// ("provider": {"only": […], "data_collection": "deny", "zdr": true, …},
// https://openrouter.ai/docs/features/provider-routing), which an openai
// dialect target passes through untouched. A client that asks for providers
// that cannot serve the model gets OpenRouter's 404 — "No allowed
// providers are available for the selected model." (its metadata lists
// the client's requested_providers: agent0ai/agent-zero#1255, where LiteLLM
// sent them), or "No endpoints found matching your data policy (Zero data
// retention)" for "zdr": true (OpenRouter's Discord, "Wrong error messages on
// unsatisfiable chat requests"). Neither phrase is in the client's body, so
// the echo rule does not apply, and the message names nothing the
// not-found-whose rule looks for: one request cooled the endpoint for
// everyone, as if the model were gone. With the preferences in the request,
// those words are the client's own choice: bad_request, the upstream's 404
// to the client, nothing cooled (docs/behaviour.md, "A router's \"no
// provider allowed\" is the client's when the client chose the providers").

// orFake answers OpenRouter's 404 to a request that carries provider
// preferences, and a plain answer to any other.
func orFake(notFound string) upstreamtest.Script {
	return func(_ int, r upstreamtest.Request) upstreamtest.Step {
		if bytes.Contains(r.Body, []byte(`"provider"`)) {
			return upstreamtest.Step{Status: 404, Body: notFound}
		}
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("openai/gpt-4o", "ok")}
	}
}

const orCfg = `
client_keys:
  - {name: mallory, key: key-mallory}
  - {name: alice, key: key-alice}
providers:
  - {name: openrouter, dialect: openai, base_url: "{openrouter}", api_key: ` + secret + `}
  - {name: backup, dialect: openai, base_url: "{backup}", api_key: ` + secret + `}
targets:
  - {name: gpt, model: openai/gpt-4o, providers: [openrouter]}
  - {name: spare, model: gpt-4o, providers: [backup]}
routes:
  - {name: deep, targets: [gpt, spare]}
`

func TestReview61cClientRoutingPreferencesCoolNothing(t *testing.T) {
	for _, tc := range []struct {
		name, extra, answer string
		requests            int
	}{
		{"only", `,"provider":{"only":["no-such-provider"],"allow_fallbacks":false}`,
			`{"error":{"message":"No allowed providers are available for the selected model.","code":404,"metadata":{"available_providers":["openai","azure"],"requested_providers":["no-such-provider"]}}}`, 1},
		{"zdr", `,"provider":{"zdr":true}`,
			`{"error":{"message":"No endpoints found matching your data policy (Zero data retention). Configure: https://openrouter.ai/settings/privacy","code":404}}`, 3},
		{"data_collection", `,"provider":{"data_collection":"deny"}`,
			`{"error":{"message":"No endpoints available matching your guardrail restrictions and data policy. Configure: https://openrouter.ai/settings/privacy","code":404}}`, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{
				"openrouter": orFake(tc.answer),
				"backup":     script(upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o", "spare")}),
			})
			g := start(t, orCfg, fs)
			for i := 0; i < tc.requests; i++ {
				r := g.post(t, "deep", tc.extra, "Authorization", "Bearer key-mallory")
				if r.Status != http.StatusNotFound || r.Header.Get("X-Detour-Class") != "bad_request" {
					t.Errorf("mallory %d: %d class %q, want OpenRouter's 404 as bad_request (no failover to a target that ignores the preferences)",
						i+1, r.Status, r.Header.Get("X-Detour-Class"))
				}
			}
			e, _ := g.health(t).Endpoint("gpt", "openrouter")
			t.Logf("gpt/openrouter after mallory: %+v", e)
			if e.State != "healthy" {
				t.Errorf("%d request(s) carrying the client's own provider preferences left gpt/openrouter %s (class %s, until %v): the client cooled it for everyone",
					tc.requests, e.State, e.CoolingClass, e.CooldownUntil)
			}
			before := fs["backup"].Calls()
			r := g.post(t, "deep", "", "Authorization", "Bearer key-alice")
			r.wantStatus(t, http.StatusOK)
			if got := r.Header.Get("X-Detour-Target"); got != "gpt" {
				t.Errorf("alice's plain request on route deep went to %q (backup calls %d→%d), want gpt: OpenRouter serves it",
					got, before, fs["backup"].Calls())
			}
		})
	}
}

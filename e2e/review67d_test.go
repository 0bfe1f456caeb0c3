package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 67d: one tenant of a shared gateway against the others.

const review67dTenantsCfg = `
client_keys:
  - {name: team-a, key: tenant-a-key-67d}
  - {name: team-b, key: tenant-b-key-67d}
providers:
  - {name: relay, dialect: openai, base_url: "{relay}", api_key: ` + secret + `}
  - {name: other, dialect: openai, base_url: "{other}", api_key: ` + secret + `}
targets:
  - {name: cheap, model: model-a, providers: [relay]}
  - {name: dear, model: model-b, providers: [other]}
routes:
  - {name: r, targets: [cheap, dear]}
`

// litellmEndUserThrottle is LiteLLM's proxy (parallel_request_limiter_v3)
// throttling the end user a request names in "user" (a customer's rpm
// limit, or the proxy's default end-user budget): its 429 names the
// descriptor and the client's value, with retry-after the window (60 s).
// Any other request is served.
func litellmEndUserThrottle(_ int, r upstreamtest.Request) upstreamtest.Step {
	var req struct {
		User string `json:"user"`
	}
	_ = json.Unmarshal(r.Body, &req)
	if req.User == "" {
		return ok("model-a", "served")
	}
	return upstreamtest.Step{Status: 429, Header: map[string]string{"Retry-After": "60", "rate_limit_type": "requests"},
		Body: `{"error":{"message":"Rate limit exceeded for end_user: ` + req.User + `. Limit type: requests. Current limit: 5, Remaining: 0. Limit resets at: 2026-12-07 08:31:00 UTC","type":"None","param":"None","code":"429"}}`}
}

// TestReview67dEndUserThrottleCoolsNoSharedRelay: a LiteLLM proxy in front
// of the providers throttles each end user (the request's "user") on its
// own. One tenant that sends its own "user" past that end user's limit
// met a rate_limited verdict with a 60 s Retry-After, which cools the
// relay's endpoint at once: every other tenant's requests went to the next
// (dearer) target for a minute, each minute the tenant repeated it. The
// throttle is of the request's own principal, as LiteLLM's end-user budget
// already is (round 62): nothing cools.
func TestReview67dEndUserThrottleCoolsNoSharedRelay(t *testing.T) {
	for _, user := range []string{"u-1", "bob@example.com", "customer.42."} {
		t.Run(user, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"relay": litellmEndUserThrottle, "other": script(ok("model-b", "dear"))})
			g := start(t, review67dTenantsCfg, fs)
			r := g.post(t, "r", `,"user":"`+user+`"`, "Authorization", "Bearer tenant-a-key-67d")
			d := g.recs.wait(t, 1)
			t.Logf("tenant a: status %d; steps %q", r.Status, steps(d))
			if len(d.Attempts) == 0 {
				t.Fatal("no attempt")
			}
			if c := d.Attempts[0].Class; c == "rate_limited" || c == "quota" || c == "auth" {
				t.Errorf("one end user's throttle read %s (%s)", c, d.Attempts[0].Evidence)
			}
			if e, _ := g.health(t).Endpoint("cheap", "relay"); e.State != "healthy" {
				t.Errorf("the relay's endpoint is %s (%s) after one tenant's end user was throttled", e.State, e.CoolingClass)
			}
			rb := g.post(t, "r", ``, "Authorization", "Bearer tenant-b-key-67d")
			if got := rb.Header.Get("X-Detour-Target"); rb.Status != 200 || got != "cheap" {
				t.Errorf("tenant b: status %d served by %q, want 200 by cheap", rb.Status, got)
			}
			// The tenant itself meets its end user's limit: the relay's 429,
			// not the next target.
			if r.Status != 429 || fs["other"].Calls() != 0 {
				t.Errorf("tenant a: status %d, the next target called %d times: want the relay's 429", r.Status, fs["other"].Calls())
			}
			if strings.Contains(string(r.Body), secret) {
				t.Errorf("body carries the key")
			}
		})
	}
}

const review67dGoogleCfg = `
client_keys:
  - {name: team-a, key: tenant-a-key-67d}
providers:
  - {name: gem, dialect: gemini, base_url: "{gem}", api_key: ` + secret + `}
  - {name: vertex, dialect: openai, base_url: "{vertex}", api_key: ` + secret + `}
targets:
  - {name: g, model: gemini-2.5-flash, providers: [gem]}
  - {name: v, model: google/gemini-2.5-flash, providers: [vertex]}
`

// TestReview67dGoogleProjectIsNoClientsToRead: Google names the operator's
// project in its errors — the project number in a quota answer ("for
// consumer 'project_number:391029737820'", its ErrorInfo's "consumer":
// "projects/391029737820") and the project id in a resource name
// ("projects/acme-prod-llm/locations/us-central1/…") — as OpenAI names an
// organization, which a client of a shared gateway is not to read (review
// 37a: "[organization]", "[project]"). Bodies from the corpus
// (gemini-quota-metric-requests-per-minute-region-429,
// vertex-iam-permission-denied-403), the project replaced.
func TestReview67dGoogleProjectIsNoClientsToRead(t *testing.T) {
	quota := `{ "error": { "code": 429, "message": "Quota exceeded for quota metric 'Generate Content API requests per minute' and limit 'GenerateContent request limit per minute for a region' of service 'generativelanguage.googleapis.com' for consumer 'project_number:391029737820'.", "status": "RESOURCE_EXHAUSTED", "details": [ { "@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "RATE_LIMIT_EXCEEDED", "domain": "googleapis.com", "metadata": { "service": "generativelanguage.googleapis.com", "quota_location": "us-west4", "quota_limit_value": "0", "quota_limit": "GenerateContentRequestsPerMinutePerProjectPerRegion", "quota_metric": "generativelanguage.googleapis.com/generate_content_requests", "consumer": "projects/391029737820" } } ] } }`
	iam := `[{
  "error": {
    "code": 403,
    "message": "Permission 'aiplatform.endpoints.predict' denied on resource '//aiplatform.googleapis.com/projects/acme-prod-llm/locations/us-central1/endpoints/openapi' (or it may not exist).",
    "status": "PERMISSION_DENIED",
    "details": [
      {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        "reason": "IAM_PERMISSION_DENIED",
        "domain": "aiplatform.googleapis.com",
        "metadata": {
          "resource": "projects/acme-prod-llm/locations/us-central1/endpoints/openapi",
          "permission": "aiplatform.endpoints.predict"
        }
      }
    ]
  }
}
]`
	fs := fakes(t, map[string]upstreamtest.Script{
		"gem":    script(upstreamtest.Step{Status: 429, Body: quota}),
		"vertex": script(upstreamtest.Step{Status: 403, Body: iam}),
	})
	g := start(t, review67dGoogleCfg, fs)
	for _, c := range []struct{ model, project string }{{"g", "391029737820"}, {"v", "acme-prod-llm"}} {
		r := g.post(t, c.model, ``, "Authorization", "Bearer tenant-a-key-67d")
		t.Logf("%s: %d %s", c.model, r.Status, r.Body)
		if r.Status < 400 {
			t.Errorf("%s: status %d, want the upstream's failure", c.model, r.Status)
		}
		if strings.Contains(string(r.Body), c.project) {
			t.Errorf("%s: the client reads the operator's Google project %q: %s", c.model, c.project, r.Body)
		}
	}
}

// TestReview67dWholeAnswerPastTimeoutSpendsTheBudget: a budgeted tenant
// asks for a whole (non-stream) answer longer than the provider's
// `timeout` allows. Detour stops waiting and walks on; the attempt is
// billable, and the key's budget counts its input estimate only — no
// output. The upstream writes and bills the whole answer whatever becomes
// of the connection (the premise of hostile 57's read-to-the-end of an
// answer the client left), so each such request runs an answer the
// operator pays for in full, on every target of the route, while the
// tenant's budget sees a few input tokens. Here one answer of 100,000
// output tokens ($1.00 at $10 per million) against a $0.50 day: the next
// request is still admitted. A gateway's 504 or 524 in front of the model
// is the same (TestPayGatewayTimeoutIsBillable: billable, input only).
// Build 67g: the attempt of a limited key (a rate or a budget) that was
// sent and ended so counts the most output its request allowed, its
// max_tokens (unreadOutput), recorded as estimate.output_ceiling.
func TestReview67dWholeAnswerPastTimeoutSpendsTheBudget(t *testing.T) {
	answer := `{"id":"c1","object":"chat.completion","created":1,"model":"model-a","choices":[{"index":0,"message":{"role":"assistant","content":"` + strings.Repeat("word ", 2000) + `"},"finish_reason":"length"}],"usage":{"prompt_tokens":12,"completion_tokens":100000,"total_tokens":100012}}`
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(upstreamtest.Step{Delay: 700 * time.Millisecond, Body: answer})})
	g := start(t, `
client_keys:
  - {name: team-a, key: tenant-a-key-67d, budget: {usd_per_day: 0.5}}
decisions: {path: "-"}
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: `+secret+`, timeout: 300ms}
targets:
  - {name: a, model: model-a, providers: [p], price: {input: 1, output: 10}}
`, fs)
	r := g.post(t, "a", `,"max_tokens":100000`, "Authorization", "Bearer tenant-a-key-67d")
	d := g.recs.wait(t, 1)
	t.Logf("status %d; steps %q; estimate %+v", r.Status, steps(d), d.Attempts[0].Estimate)
	if e := d.Attempts[0].Estimate; e == nil || !e.OutputCeiling || e.OutputTokens != 100000 {
		t.Errorf("estimate %+v, want the request's max_tokens, 100000 output tokens, marked output_ceiling", e)
	}
	time.Sleep(time.Second) // the upstream has written (and billed) its answer by now
	if r := g.post(t, "a", ``, "Authorization", "Bearer tenant-a-key-67d"); r.Status != http.StatusTooManyRequests {
		t.Errorf("next request: %d, want 429: the $1.00 answer the upstream wrote past the timeout was not counted on a $0.50 day", r.Status)
	}
}

const review67dClaudeCfg = `
client_keys:
  - {name: team-a, key: tenant-a-key-67d}
  - {name: team-b, key: tenant-b-key-67d}
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
routes:
  - {name: deep, targets: [claude, gpt], fallback_on: [forbidden, timeout, server_error, rate_limited, quota, auth, unavailable, overflow, unknown]}
`

// TestReview67dClientsBetaGateCoolsNoEndpoint: a feature the account has
// not been granted, asked for by the client's own request — Anthropic's
// long-context beta, which a client turns on with its anthropic-beta
// header, Detour forwarding it to an Anthropic target as sent — answers
// "The long context beta is not yet available for this subscription." (a
// 400, corpus anthropic-long-context-beta-not-available-for-subscription-400),
// read as forbidden, counted against the endpoint. Every request without
// the header is served, so three of one tenant's requests (sent at once)
// cooled Claude for every tenant, and each failed probe doubled it.
func TestReview67dClientsBetaGateCoolsNoEndpoint(t *testing.T) {
	gate := upstreamtest.Step{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"The long context beta is not yet available for this subscription."},"request_id":"req_011CYRQ9U8E3bhA6nzRupvui"}`}
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			if strings.Contains(r.Header.Get("anthropic-beta"), "context-1m") {
				return gate
			}
			return upstreamtest.Step{Body: anthropicMessage("claude-sonnet-4-5", "hello from claude")}
		},
		"openai": script(ok("gpt-4o-mini", "hello from gpt")),
	})
	g := start(t, review67dClaudeCfg, fs)
	body := `{"model":"deep","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`
	for i := 0; i < 3; i++ {
		r := g.raw(t, "POST", "/v1/messages", body, "x-api-key", "tenant-a-key-67d", "anthropic-version", "2023-06-01", "anthropic-beta", "context-1m-2025-08-07")
		d := g.recs.wait(t, i+1)
		t.Logf("tenant a #%d: %d; steps %q", i+1, r.Status, steps(d))
		if len(d.Attempts) > 0 && d.Attempts[0].Counted {
			t.Errorf("tenant a #%d: the beta it asked for counted against Claude (%s, %s)", i+1, d.Attempts[0].Class, d.Attempts[0].Evidence)
		}
	}
	if e, _ := g.health(t).Endpoint("claude", "anthropic"); e.State != "healthy" {
		t.Errorf("Claude is %s (%s) after one tenant asked three times for a beta the account lacks", e.State, e.CoolingClass)
	}
	rb := g.raw(t, "POST", "/v1/messages", body, "x-api-key", "tenant-b-key-67d", "anthropic-version", "2023-06-01")
	if got := rb.Header.Get("X-Detour-Target"); rb.Status != 200 || got != "claude" {
		t.Errorf("tenant b: %d served by %q, want 200 by claude", rb.Status, got)
	}
}

// TestReview67dClientsFeatureGateCoolsNoEndpoint: the same through the
// chat door, at OpenAI-compatible endpoints: an organisation whose vision
// is off (GitHub Copilot's "vision is not enabled for this organization",
// corpus github-copilot-vision-not-enabled-for-this-organization-400)
// refuses only requests with an image; a free plan (Groq's "`service_tier`
// `auto` is not available for this org", corpus
// groq-service-tier-auto-not-available-for-org-400) only requests naming
// that tier. Three of one tenant's requests cooled the endpoint for all.
func TestReview67dClientsFeatureGateCoolsNoEndpoint(t *testing.T) {
	for _, c := range []struct{ name, extra, gateOn, answer string }{
		{"vision", `,"messages":[{"role":"user","content":[{"type":"text","text":"what is this"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]}]`,
			`"image_url"`, `{"error":{"message":"vision is not enabled for this organization","code":""}}`},
		{"service tier", `,"service_tier":"auto"`, `"service_tier"`,
			`{"error":{"message":"` + "`service_tier` `auto`" + ` is not available for this org. You can check your plan at https://console.groq.com/settings/billing/plans, and upgrade to access the required service tier.","type":"invalid_request_error"}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{
				"relay": func(_ int, r upstreamtest.Request) upstreamtest.Step {
					if strings.Contains(string(r.Body), c.gateOn) {
						return upstreamtest.Step{Status: 400, Body: c.answer}
					}
					return ok("model-a", "served")
				},
				"other": script(ok("model-b", "dear")),
			})
			g := start(t, review67dTenantsCfg, fs)
			for i := 0; i < 3; i++ {
				body := `{"model":"r"` + c.extra + `}`
				if !strings.Contains(c.extra, `"messages"`) {
					body = `{"model":"r","messages":[{"role":"user","content":"hi"}]` + c.extra + `}`
				}
				r := g.raw(t, "POST", "/v1/chat/completions", body, "Authorization", "Bearer tenant-a-key-67d")
				d := g.recs.wait(t, i+1)
				t.Logf("tenant a #%d: %d; steps %q", i+1, r.Status, steps(d))
				if len(d.Attempts) > 0 && d.Attempts[0].Counted {
					t.Errorf("tenant a #%d: its own feature counted against the relay (%s, %s)", i+1, d.Attempts[0].Class, d.Attempts[0].Evidence)
				}
			}
			if e, _ := g.health(t).Endpoint("cheap", "relay"); e.State != "healthy" {
				t.Errorf("the relay is %s (%s) after one tenant's three requests", e.State, e.CoolingClass)
			}
			rb := g.post(t, "r", ``, "Authorization", "Bearer tenant-b-key-67d")
			if got := rb.Header.Get("X-Detour-Target"); rb.Status != 200 || got != "cheap" {
				t.Errorf("tenant b: %d served by %q, want 200 by cheap", rb.Status, got)
			}
		})
	}
}

// TestRound67PrefillRefusalMovesOn: a conversation that ends with the
// assistant's turn (Claude Code resuming an interrupted session, a client
// prefilling the answer) reaches a Claude 4.6+ target as sent, which
// answers "This model does not support assistant message prefill. The
// conversation must end with a user message." (a 400). Read bad_request by
// its second sentence, the walk stopped there with a 400 the client cannot
// mend, while the next target takes the same conversation. The model's
// gap (unknown): the walk moves on, nothing cools.
func TestRound67PrefillRefusalMovesOn(t *testing.T) {
	refusal := upstreamtest.Step{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"This model does not support assistant message prefill. The conversation must end with a user message."},"request_id":"req_011"}`}
	fs := fakes(t, map[string]upstreamtest.Script{"claude": script(refusal, refusal), "gpt": script(ok("gpt-5", "dear"), ok("gpt-5", "dear"))})
	g := start(t, `
providers:
  - {name: claude, dialect: anthropic, base_url: "{claude}", api_key: `+secret+`}
  - {name: gpt, dialect: openai, base_url: "{gpt}", api_key: `+secret+`}
targets:
  - {name: sonnet, model: claude-sonnet-5-5, providers: [claude]}
  - {name: five, model: gpt-5, providers: [gpt]}
routes:
  - {name: r, targets: [sonnet, five]}
`, fs)
	body := `{"model":"r","messages":[{"role":"user","content":"Write a JSON object"},{"role":"assistant","content":"{\"name\": \""}]}`
	r := g.raw(t, http.MethodPost, "/v1/chat/completions", body)
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "sonnet/claude unknown next_target", "five/gpt ok done")
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	if e, _ := g.health(t).Endpoint("sonnet", "claude"); e.State != "healthy" {
		t.Errorf("the Claude endpoint is %s (%s) after a client's prefill", e.State, e.CoolingClass)
	}
}

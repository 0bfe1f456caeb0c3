package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// One test per class of docs/behaviour.md#classes: the whole attempt sequence, what the client
// sees, and what health remembers for the next request. Every upstream error
// body is a real one from classify/testdata/corpus.

// twoEndpoints: target "a" reachable through p1 then p2; target "b" through q.
// p1's timeout (1s) is far above a fake's immediate answer on a loaded
// machine and far below a silent fake's 10s.
const twoEndpoints = `
providers:
  - {name: p1, dialect: openai, base_url: "{p1}", api_key: ` + secret + `, timeout: 1s}
  - {name: p2, dialect: openai, base_url: "{p2}", api_key: ` + secret + `}
  - {name: q, dialect: openai, base_url: "{q}", api_key: ` + secret + `}
targets:
  - {name: a, model: model-a, providers: [p1, p2]}
  - {name: b, model: model-b, providers: [q]}
routes:
  - {name: r, targets: [a, b]}
`

// oneEach: target "a" only through p1, target "b" only through q.
const oneEach = `
providers:
  - {name: p1, dialect: openai, base_url: "{p1}", api_key: ` + secret + `, timeout: 1s}
  - {name: q, dialect: openai, base_url: "{q}", api_key: ` + secret + `}
targets:
  - {name: a, model: model-a, providers: [p1]}
  - {name: b, model: model-b, providers: [q]}
routes:
  - {name: r, targets: [a, b]}
  - {name: fast, strategy: fastest, targets: [a, b]}
  - {name: pool, strategy: pool, targets: [a, b]}
`

func TestTimeoutIsBillableAndNeverRetriedOnTheSameEndpoint(t *testing.T) {
	silent := upstreamtest.Step{Delay: 10 * time.Second, Body: upstreamtest.ChatJSON("model-a", "late")}
	t.Run("next endpoint", func(t *testing.T) {
		fs := fakes(t, map[string]upstreamtest.Script{"p1": script(silent), "p2": script(ok("model-a", "hi")), "q": script(ok("model-b", "hi"))})
		g := start(t, twoEndpoints, fs)
		g.post(t, "r", "").wantStatus(t, 200)
		d := g.recs.wait(t, 1)
		wantSteps(t, d, "a/p1 timeout next_endpoint", "a/p2 ok done")
		if a := d.Attempts[0]; !a.Billable || !a.Counted || a.Evidence != "timeout:headers" {
			t.Errorf("timeout attempt: %+v", a)
		}
		if n := fs["p1"].Calls(); n != 1 {
			t.Errorf("silent endpoint called %d times, want 1", n)
		}
	})
	t.Run("next target", func(t *testing.T) {
		fs := fakes(t, map[string]upstreamtest.Script{"p1": script(silent), "q": script(ok("model-b", "hi"))})
		g := start(t, oneEach, fs)
		r := g.post(t, "r", "")
		r.wantStatus(t, 200)
		if _, model := r.content(t); model != "model-b" {
			t.Errorf("model %q, want the model that answered", model)
		}
		wantSteps(t, g.recs.wait(t, 1), "a/p1 timeout next_target", "b/q ok done")
	})
}

func TestRateLimited(t *testing.T) {
	const body = "mistral-requests-rate-limit-exceeded"
	t.Run("Retry-After within max_wait: same endpoint again", func(t *testing.T) {
		fs := fakes(t, map[string]upstreamtest.Script{
			"p1": script(corpus(t, body, "Retry-After", "1"), ok("model-a", "hi")),
			"p2": script(ok("model-a", "p2")), "q": script(ok("model-b", "q")),
		})
		g := start(t, twoEndpoints, fs)
		g.post(t, "r", "").wantStatus(t, 200)
		d := g.recs.wait(t, 1)
		wantSteps(t, d, "a/p1 rate_limited retry", "a/p1 ok done")
		if a := d.Attempts[0]; a.Counted || a.RetryAfterMS != 1000 {
			t.Errorf("rate_limited attempt: %+v", a)
		}
	})
	t.Run("Retry-After beyond max_wait: cooled, moves on", func(t *testing.T) {
		fs := fakes(t, map[string]upstreamtest.Script{
			"p1": script(corpus(t, body, "Retry-After", "30"), ok("model-a", "hi")),
			"p2": script(ok("model-a", "p2")), "q": script(ok("model-b", "q")),
		})
		g := start(t, twoEndpoints, fs)
		g.post(t, "r", "").wantStatus(t, 200)
		wantSteps(t, g.recs.wait(t, 1), "a/p1 rate_limited next_endpoint", "a/p2 ok done")
		g.post(t, "r", "").wantStatus(t, 200)
		wantSteps(t, g.recs.wait(t, 2), "a/p2 ok done")
		if n := fs["p1"].Calls(); n != 1 {
			t.Errorf("rate-limited endpoint called %d times, want 1 (it is cooling)", n)
		}
	})
}

func TestQuotaCoolsTheWholeAccount(t *testing.T) {
	for _, tc := range []struct{ name, dialect, body string }{
		{"anthropic spend cap as 400", "anthropic", "anthropic-workspace-usage-limits"},
		{"openai insufficient_quota as 429", "openai", "openai-insufficient-quota-429"},
		// The account cannot pay whatever the status or language says.
		{"minimax insufficient balance as 500", "openai", "minimax-insufficient-balance-1008-500"},
		{"zhipu 余额不足 as 429", "openai", "zhipu-1113-insufficient-balance-429-cn"},
		{"baidu daily limit in a 200 error_code body", "openai", "baidu-qianfan-open-api-daily-request-limit-17-200"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"broke": script(corpus(t, tc.body)), "q": script(ok("model-b", "hi"))})
			g := start(t, `
providers:
  - {name: broke, dialect: `+tc.dialect+`, base_url: "{broke}", api_key: `+secret+`}
  - {name: q, dialect: openai, base_url: "{q}", api_key: `+secret+`}
targets:
  - {name: a, model: model-a, providers: [broke]}
  - {name: b, model: model-b, providers: [broke, q]}
routes:
  - {name: r, targets: [a, b]}
  - {name: r2, targets: [b]}
`, fs)
			g.post(t, "r", "").wantStatus(t, 200)
			d := g.recs.wait(t, 1)
			// The account cooled: its endpoint in target b goes last at once.
			wantSteps(t, d, "a/broke quota next_target", "b/q ok done")
			if a := d.Attempts[0]; !a.Counted || a.Billable || a.Evidence == "" {
				t.Errorf("quota attempt: %+v", a)
			}
			// ... and on the next request, in another route too.
			g.post(t, "r2", "").wantStatus(t, 200)
			wantSteps(t, g.recs.wait(t, 2), "b/q ok done")
			if n := fs["broke"].Calls(); n != 1 {
				t.Errorf("the broke account was called %d times, want 1", n)
			}
			h := g.health(t)
			for _, a := range h.Accounts {
				if a.Name == "broke" && (a.State != "cooling" || a.LastClass != "quota" || a.CooldownUntil == nil) {
					t.Errorf("account in /v1/health: %+v", a)
				}
			}
		})
	}
}

func TestServerErrorRetriedOnceThenNextEndpoint(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"p1": script(corpus(t, "openai-server-error-500")), "p2": script(ok("model-a", "hi")), "q": script(ok("model-b", "q")),
	})
	g := start(t, twoEndpoints, fs)
	g.post(t, "r", "").wantStatus(t, 200)
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "a/p1 server_error retry", "a/p1 server_error next_endpoint", "a/p2 ok done")
	if a := d.Attempts[0]; !a.Counted || a.Status != 500 {
		t.Errorf("server_error attempt: %+v", a)
	}
}

func TestUnavailable(t *testing.T) {
	gone := "openrouter-no-endpoints-found-free"
	t.Run("ordered route stops with the upstream's 404", func(t *testing.T) {
		fs := fakes(t, map[string]upstreamtest.Script{"p1": script(corpus(t, gone)), "q": script(ok("model-b", "q"))})
		g := start(t, oneEach, fs)
		r := g.post(t, "r", "")
		r.wantStatus(t, 404)
		if msg := r.errMessage(t); !strings.Contains(msg, "No endpoints found for x-ai/grok-4-fast:free") {
			t.Errorf("message %q is not the upstream's", msg)
		}
		if c := r.Header.Get("X-Detour-Class"); c != "unavailable" {
			t.Errorf("X-Detour-Class %q", c)
		}
		wantSteps(t, g.recs.wait(t, 1), "a/p1 unavailable stop")
		if fs["q"].Calls() != 0 {
			t.Error("an ordered route moved to the next target on unavailable")
		}
	})
	t.Run("fastest route moves on, and the 404 endpoint is not first next time", func(t *testing.T) {
		fs := fakes(t, map[string]upstreamtest.Script{"p1": script(corpus(t, gone)), "q": script(ok("model-b", "q"))})
		g := start(t, oneEach, fs)
		g.post(t, "fast", "").wantStatus(t, 200)
		wantSteps(t, g.recs.wait(t, 1), "a/p1 unavailable next_target", "b/q ok done")
		g.post(t, "fast", "").wantStatus(t, 200)
		wantSteps(t, g.recs.wait(t, 2), "b/q ok done")
	})
	t.Run("pool route moves on", func(t *testing.T) {
		fs := fakes(t, map[string]upstreamtest.Script{"p1": script(corpus(t, gone)), "q": script(ok("model-b", "q"))})
		g := start(t, oneEach, fs)
		// A pool spreads requests: send until one reaches the 404 member first.
		for n := 1; n <= 3; n++ {
			g.post(t, "pool", "").wantStatus(t, 200)
			if d := g.recs.wait(t, n); d.Attempts[0].Target == "a" {
				wantSteps(t, d, "a/p1 unavailable next_target", "b/q ok done")
				return
			}
		}
		t.Fatal("the pool never tried member a first")
	})
}

func TestAuth(t *testing.T) {
	bad := "openai-invalid-api-key-401"
	t.Run("next endpoint of the same target", func(t *testing.T) {
		fs := fakes(t, map[string]upstreamtest.Script{"p1": script(corpus(t, bad)), "p2": script(ok("model-a", "hi")), "q": script(ok("model-b", "q"))})
		g := start(t, twoEndpoints, fs)
		g.post(t, "r", "").wantStatus(t, 200)
		wantSteps(t, g.recs.wait(t, 1), "a/p1 auth next_endpoint", "a/p2 ok done")
	})
	t.Run("not the next target by default", func(t *testing.T) {
		fs := fakes(t, map[string]upstreamtest.Script{"p1": script(corpus(t, bad)), "q": script(ok("model-b", "q"))})
		g := start(t, oneEach, fs)
		r := g.post(t, "r", "")
		r.wantStatus(t, 401)
		if msg := r.errMessage(t); !strings.Contains(msg, "Incorrect API key provided") {
			t.Errorf("message %q is not the upstream's", msg)
		}
		// The status is the upstream's, but the key it refused is the
		// gateway's own, never the client's: the message says so first,
		// or every SDK user concludes their Detour key is wrong (operator
		// review 48).
		if msg := r.errMessage(t); !strings.HasPrefix(msg, "provider p1 refused the gateway's own credential for it (not the client's key): ") {
			t.Errorf("message %q does not say whose key was refused", msg)
		}
		wantSteps(t, g.recs.wait(t, 1), "a/p1 auth stop")
	})
	t.Run("fallback_on: [auth] moves on", func(t *testing.T) {
		fs := fakes(t, map[string]upstreamtest.Script{"p1": script(corpus(t, bad)), "q": script(ok("model-b", "q"))})
		g := start(t, strings.Replace(oneEach, "{name: r, targets: [a, b]}", "{name: r, targets: [a, b], fallback_on: [auth]}", 1), fs)
		g.post(t, "r", "").wantStatus(t, 200)
		wantSteps(t, g.recs.wait(t, 1), "a/p1 auth next_target", "b/q ok done")
	})
}

func TestForbiddenDoesNotTryTheNextEndpoint(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"p1": script(corpus(t, "openai-unsupported-country-region-403")), "p2": script(ok("model-a", "hi")), "q": script(ok("model-b", "q")),
	})
	g := start(t, twoEndpoints, fs)
	r := g.post(t, "r", "")
	r.wantStatus(t, 403)
	wantSteps(t, g.recs.wait(t, 1), "a/p1 forbidden stop")
	if fs["p2"].Calls()+fs["q"].Calls() != 0 {
		t.Error("forbidden moved on")
	}
}

func TestOverflowMovesOnWithoutCooling(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"p1": script(corpus(t, "groq-request-too-large-tpm-413"), ok("model-a", "small")),
		"p2": script(ok("model-a", "hi")), "q": script(ok("model-b", "q")),
	})
	g := start(t, twoEndpoints, fs)
	g.post(t, "r", "").wantStatus(t, 200)
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "a/p1 overflow next_endpoint", "a/p2 ok done")
	if d.Attempts[0].Counted || len(d.Transitions) != 0 {
		t.Errorf("overflow counted or cooled: %+v %+v", d.Attempts[0], d.Transitions)
	}
	// Not cooled: a smaller request goes to p1 first again.
	g.post(t, "r", "").wantStatus(t, 200)
	wantSteps(t, g.recs.wait(t, 2), "a/p1 ok done")
}

func TestContextLengthMovesOnlyToALargerWindow(t *testing.T) {
	const cfg = `
providers:
  - {name: p1, dialect: openai, base_url: "{p1}", api_key: ` + secret + `}
  - {name: p2, dialect: openai, base_url: "{p2}", api_key: ` + secret + `}
  - {name: p3, dialect: openai, base_url: "{p3}", api_key: ` + secret + `}
targets:
  - {name: small, model: m-small, providers: [p1], context_window: 8000}
  - {name: same, model: m-same, providers: [p2], context_window: 8000}
  - {name: big, model: m-big, providers: [p3], context_window: 128000}
  - {name: undeclared, model: m-u, providers: [p1]}
routes:
  - {name: grow, targets: [small, same, big]}
  - {name: flat, targets: [small, same]}
  - {name: blind, targets: [undeclared, big]}
`
	long := corpus(t, "openai-context-length-exceeded")
	fs := fakes(t, map[string]upstreamtest.Script{"p1": script(long), "p2": script(long), "p3": script(ok("m-big", "fits"))})
	g := start(t, cfg, fs)

	g.post(t, "grow", "").wantStatus(t, 200)
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "small/p1 context_length next_target", "big/p3 ok done")
	wantSkip(t, d, "same/p2", "context window")

	r := g.post(t, "flat", "")
	r.wantStatus(t, 400)
	if msg := r.errMessage(t); !strings.Contains(msg, "maximum context length is 4097 tokens") {
		t.Errorf("message %q is not the upstream's", msg)
	}
	d = g.recs.wait(t, 2)
	wantSteps(t, d, "small/p1 context_length stop")
	wantSkip(t, d, "same/p2", "context window")

	g.post(t, "blind", "").wantStatus(t, 400)
	d = g.recs.wait(t, 3)
	wantSteps(t, d, "undeclared/p1 context_length stop")
	wantSkip(t, d, "big/p3", "context window")
	if n := fs["p3"].Calls(); n != 1 {
		t.Errorf("big target called %d times, want 1", n)
	}
}

func TestRefusalStopsAndIsNotASuccess(t *testing.T) {
	const cfg = `
providers:
  - {name: azure, dialect: openai, base_url: "{azure}", api_key: ` + secret + `}
  - {name: gemini, dialect: gemini, base_url: "{gemini}", api_key: ` + secret + `}
  - {name: q, dialect: openai, base_url: "{q}", api_key: ` + secret + `}
targets:
  - {name: az, model: gpt-4o, providers: [azure]}
  - {name: gem, model: gemini-2.0-flash, providers: [gemini]}
  - {name: b, model: model-b, providers: [q]}
routes:
  - {name: r1, targets: [az, b]}
  - {name: r2, targets: [gem, b]}
`
	fs := fakes(t, map[string]upstreamtest.Script{
		"azure":  script(corpus(t, "azure-content-filter-400-legacy")),
		"gemini": script(corpus(t, "gemini-prompt-blocked-safety-200")),
		"q":      script(ok("model-b", "the other vendor answered")),
	})
	g := start(t, cfg, fs)

	r := g.post(t, "r1", "")
	r.wantStatus(t, 400)
	if c := r.Header.Get("X-Detour-Class"); c != "refusal" {
		t.Errorf("X-Detour-Class %q, want refusal", c)
	}
	if msg := r.errMessage(t); !strings.Contains(msg, "content management policy") {
		t.Errorf("message %q is not the upstream's", msg)
	}
	wantSteps(t, g.recs.wait(t, 1), "az/azure refusal stop")

	// A 200 carrying a block reason and no content is a refusal, never a success.
	r = g.post(t, "r2", "")
	if r.Status/100 == 2 {
		t.Errorf("a blocked prompt reached the client as %d: %s", r.Status, r.Body)
	}
	if c := r.Header.Get("X-Detour-Class"); c != "refusal" {
		t.Errorf("X-Detour-Class %q, want refusal", c)
	}
	d := g.recs.wait(t, 2)
	wantSteps(t, d, "gem/gemini refusal stop")
	if d.Outcome != "error" || d.Attempts[0].Evidence == "" {
		t.Errorf("record: outcome %q, attempt %+v", d.Outcome, d.Attempts[0])
	}
	if fs["q"].Calls() != 0 {
		t.Error("a refusal was replayed at another vendor")
	}
}

func TestBadRequestStops(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"p1": script(corpus(t, "openai-tool-role-without-preceding-tool-calls")), "q": script(ok("model-b", "q"))})
	g := start(t, oneEach, fs)
	r := g.post(t, "r", "")
	r.wantStatus(t, 400)
	if msg := r.errMessage(t); !strings.Contains(msg, "must be a response to a preceeding message") {
		t.Errorf("message %q is not the upstream's", msg)
	}
	wantSteps(t, g.recs.wait(t, 1), "a/p1 bad_request stop")
}

func TestUnknownFailsOverAndCoolsNothing(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"p1": script(corpus(t, "openrouter-provider-returned-error-400-no-detail")), "q": script(ok("model-b", "q"))})
	g := start(t, oneEach, fs)
	g.post(t, "r", "").wantStatus(t, 200)
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "a/p1 unknown next_target", "b/q ok done")
	if d.Attempts[0].Counted || len(d.Transitions) != 0 {
		t.Errorf("unknown counted or cooled: %+v %+v", d.Attempts[0], d.Transitions)
	}
	g.post(t, "r", "").wantStatus(t, 200)
	wantSteps(t, g.recs.wait(t, 2), "a/p1 unknown next_target", "b/q ok done")
}

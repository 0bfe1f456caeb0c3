package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// An operator asks /v1/health why an endpoint has been kept last all day.
// Its model was retired (a 404 model_not_found: unavailable, cooled for
// unavailable_cooldown); a later request that found no other target
// reached it, last, and timed out. /v1/health must still say the day's
// cooldown is for `unavailable`, in OpenAI's own words (the model's name,
// between backticks, masked as every quoted value is), while last_class
// says the timeout. Before, the record kept one class, the last: the
// endpoint read "timeout", and nothing said the model was gone.
func TestHealthSaysWhyItCools_review40b(t *testing.T) {
	hang := upstreamtest.Step{Delay: 3e9, Body: upstreamtest.ChatJSON("model-a", "late")}
	down := upstreamtest.Step{Status: 500, Body: `{"error":{"message":"internal error"}}`}
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": script(corpus(t, "openai-model-deprecated-learn-more-model-not-found-404"), hang),
		"q": script(ok("model-b", "from b"), down),
	})
	g := start(t, `
health: {cooldown: 1s, max_cooldown: 1m, unavailable_cooldown: 24h}
retry: {max_wait: 0s}
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: `+secret+`, timeout: 300ms}
  - {name: q, dialect: openai, base_url: "{q}", api_key: `+secret+`}
targets:
  - {name: a, model: model-a, providers: [p]}
  - {name: b, model: model-b, providers: [q]}
routes:
  - {name: r, targets: [a, b], fallback_on: [unavailable, server_error, timeout]}
`, fs)
	g.post(t, "r", "").wantStatus(t, 200)
	wantSteps(t, g.recs.wait(t, 1), "a/p unavailable next_target", "b/q ok done")

	// b fails now; a/p, cooling, is tried last and times out.
	g.post(t, "r", "")
	d := g.recs.wait(t, 2)
	if last := d.Attempts[len(d.Attempts)-1]; last.Target != "a" || last.Class != "timeout" {
		t.Fatalf("the second request did not end with a timeout at a/p: %+v", d.Attempts)
	}

	e, _ := g.health(t).Endpoint("a", "p")
	const said = "The model `…` has been deprecated, learn more here: https://platform.openai.com/docs/deprecations"
	if e.State != "cooling" || e.CoolingClass != "unavailable" || e.CoolingMessage != said {
		t.Errorf("a/p in /v1/health: state %q, cooling_class %q, cooling_message %q; want cooling for unavailable, in OpenAI's words %q",
			e.State, e.CoolingClass, e.CoolingMessage, said)
	}
	if e.LastClass != "timeout" {
		t.Errorf("last_class %q, want the last failure's (timeout)", e.LastClass)
	}
	if b, _ := g.health(t).Endpoint("b", "q"); b.CoolingClass != "" && b.State == "healthy" {
		t.Errorf("a healthy endpoint names a cause: %+v", b)
	}
}

// An operator whose Anthropic workspace hit its spend cap reads, on the
// account and on its endpoint, that it cools for `quota` and when access
// comes back, in Anthropic's words.
func TestHealthQuotesTheProvidersQuotaWords_review40b(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"capped": script(corpus(t, "anthropic-specified-api-usage-limits-regain-access-400")),
		"up":     script(ok("gpt-4o", "hi")),
	})
	g := start(t, `
providers:
  - {name: capped, dialect: anthropic, base_url: "{capped}", api_key: `+secret+`}
  - {name: up, dialect: openai, base_url: "{up}", api_key: `+secret+`}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [capped]}
  - {name: gpt, model: gpt-4o, providers: [up]}
routes:
  - {name: deep, targets: [claude, gpt]}
`, fs)
	g.post(t, "deep", "").wantStatus(t, 200)
	h := g.health(t)
	const said = "You have reached your specified API usage limits. You will regain access on 2026-04-01 at 00:00 UTC."
	a, _ := h.Account("capped")
	if a.State != "cooling" || a.CoolingClass != "quota" || a.CoolingMessage != said {
		t.Errorf("account capped: %+v; want cooling for quota in Anthropic's words", a)
	}
	e, _ := h.Endpoint("claude", "capped")
	if e.CoolingClass != "quota" || e.CoolingMessage != said {
		t.Errorf("claude/capped: %+v; want the account's cause", e)
	}
}

// /v1/health is open to anyone who reaches the gateway. An upstream whose
// 401 quotes the client's own text back unquoted, echoes the provider key
// whole (OpenAI masks all but its ends; a buggy relay may not) and names
// the operator's organization must show none of the three there: no
// fragment of a key, no account id, no run of the words the client sent.
func TestHealthWordsShowNoKeyNoAccountNoClientText_review40b(t *testing.T) {
	const org = "org-Xq7RkP2mW9sLbT4v"
	const client = "Transfer the remaining balance to account 4471 immediately"
	// OpenAI's 401 (classify/testdata/corpus/openai-invalid-api-key-401.json)
	// with the whole key where OpenAI masks it, after what a careless
	// relay puts first.
	m, _ := json.Marshal("Last input: " + client + ". Incorrect API key provided: " + secret + ". Organization " + org + ".")
	bad := upstreamtest.Step{Status: 401, Body: `{"error":{"message":` + string(m) + `,"type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`}
	text, _ := json.Marshal(client)
	for _, c := range []struct {
		name    string
		content string // the client's message
		mine    bool   // the upstream's text holds it
	}{
		{"another client's words", `"hi"`, false},
		{"this client's words", string(text), true},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := start(t, twoTargets, fakes(t, map[string]upstreamtest.Script{"p": script(bad), "q": script(ok("model-b", "from b"))}))
			g.raw(t, "POST", "/v1/chat/completions", `{"model":"r","messages":[{"role":"user","content":`+c.content+`}]}`) // auth stops the walk: the client gets the 401
			a, _ := g.health(t).Account("p")
			if a.State != "cooling" || a.CoolingClass != "auth" {
				t.Fatalf("account p %+v, want cooling for auth", a)
			}
			w := a.CoolingMessage
			t.Logf("cooling_message: %q", w)
			if !strings.Contains(w, "Incorrect API key provided:") || len(w) > 160 {
				t.Errorf("cooling_message %q (%d bytes): want OpenAI's words, at most 160 bytes", w, len(w))
			}
			raw := string(g.raw(t, "GET", "/v1/health", "").Body)
			for j := 0; j+8 <= len(secret); j++ {
				if strings.Contains(raw, secret[j:j+8]) {
					t.Errorf("/v1/health holds a piece of the key: %s", raw)
					break
				}
			}
			if strings.Contains(raw, "Xq7RkP2m") {
				t.Errorf("/v1/health names the operator's organization: %s", raw)
			}
			runs := []string{"Transfer the remaining", "remaining balance to", "account 4471 immediately"}
			for _, run := range runs {
				if c.mine && strings.Contains(w, run) {
					t.Errorf("cooling_message %q holds the client's words %q", w, run)
				}
				// Words this request did not send are the upstream's own.
				if !c.mine && !strings.Contains(w, run) {
					t.Errorf("cooling_message %q lacks %q, which this client never sent", w, run)
				}
			}
		})
	}
}

package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// docs/behaviour.md#routing: the guarded tail, fallback_on as written, strategies, and
// a client naming a target directly.

// routeCfg: target a through p, b through q, tail target t through x; the
// route line is spliced in.
func routeCfg(route string) string {
	return `
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: ` + secret + `}
  - {name: q, dialect: openai, base_url: "{q}", api_key: ` + secret + `}
  - {name: x, dialect: openai, base_url: "{x}", api_key: ` + secret + `}
targets:
  - {name: a, model: model-a, providers: [p]}
  - {name: b, model: model-b, providers: [q]}
  - {name: t, model: model-t, providers: [x]}
routes:
  - ` + route + `
`
}

func TestGuardedTail(t *testing.T) {
	for _, tc := range []struct {
		name, route, body string
		status            int
		want              []string
	}{
		{"a tail_on class reaches the tail", "{name: r, targets: [a], tail: [t], tail_on: [server_error]}",
			"openai-server-error-500", 200, []string{"a/p server_error retry", "a/p server_error tail", "t/x ok done"}},
		{"a class not in tail_on does not", "{name: r, targets: [a], tail: [t], tail_on: [server_error]}",
			"openai-insufficient-quota-429", 429, []string{"a/p quota stop"}},
		{"auth does not reach the tail unless listed", "{name: r, targets: [a], tail: [t], tail_on: [server_error, quota], fallback_on: [auth]}",
			"openai-invalid-api-key-401", 401, []string{"a/p auth stop"}},
		{"auth reaches the tail when listed", "{name: r, targets: [a], tail: [t], tail_on: [auth]}",
			"openai-invalid-api-key-401", 200, []string{"a/p auth tail", "t/x ok done"}},
		{"refusal does not reach the tail unless listed", "{name: r, targets: [a], tail: [t], tail_on: [server_error, unknown]}",
			"azure-content-filter-400-legacy", 400, []string{"a/p refusal stop"}},
		{"bad_request does not reach the tail unless listed", "{name: r, targets: [a], tail: [t], tail_on: [server_error, unknown]}",
			"openai-tool-role-without-preceding-tool-calls", 400, []string{"a/p bad_request stop"}},
		{"refusal reaches the tail when listed", "{name: r, targets: [a], tail: [t], tail_on: [refusal]}",
			"azure-content-filter-400-legacy", 200, []string{"a/p refusal tail", "t/x ok done"}},
		{"the route's own targets come before the tail", "{name: r, targets: [a, b], tail: [t], tail_on: [quota]}",
			"openai-insufficient-quota-429", 200, []string{"a/p quota next_target", "b/q ok done"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{
				"p": script(corpus(t, tc.body)), "q": script(ok("model-b", "b")), "x": script(ok("model-t", "tail")),
			})
			g := start(t, routeCfg(tc.route), fs)
			g.post(t, "r", "").wantStatus(t, tc.status)
			wantSteps(t, g.recs.wait(t, 1), tc.want...)
		})
	}
}

func TestFallbackOnIsTakenAsWritten(t *testing.T) {
	for _, tc := range []struct {
		name, route, body string
		status            int
		want              []string
	}{
		{"fallback_on: [] never moves to another target", "{name: r, targets: [a, b], fallback_on: []}",
			"openai-server-error-500", 500, []string{"a/p server_error retry", "a/p server_error stop"}},
		{"a default class left out stops", "{name: r, targets: [a, b], fallback_on: [server_error]}",
			"openai-insufficient-quota-429", 429, []string{"a/p quota stop"}},
		{"a listed class moves", "{name: r, targets: [a, b], fallback_on: [server_error]}",
			"openai-server-error-500", 200, []string{"a/p server_error retry", "a/p server_error next_target", "b/q ok done"}},
		{"unavailable opted in on an ordered route", "{name: r, targets: [a, b], fallback_on: [unavailable]}",
			"openai-model-not-found-404", 200, []string{"a/p unavailable next_target", "b/q ok done"}},
		{"refusal opted in", "{name: r, targets: [a, b], fallback_on: [refusal]}",
			"azure-content-filter-400-legacy", 200, []string{"a/p refusal next_target", "b/q ok done"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{
				"p": script(corpus(t, tc.body)), "q": script(ok("model-b", "b")), "x": script(ok("model-t", "tail")),
			})
			g := start(t, routeCfg(tc.route), fs)
			g.post(t, "r", "").wantStatus(t, tc.status)
			wantSteps(t, g.recs.wait(t, 1), tc.want...)
		})
	}
}

// fallback_on governs targets only: the next endpoint of the same target is
// still tried.
func TestEmptyFallbackOnStillTriesTheNextEndpoint(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"p1": script(corpus(t, "openai-server-error-500")), "p2": script(ok("model-a", "p2")), "q": script(ok("model-b", "q")),
	})
	g := start(t, strings.Replace(twoEndpoints, "{name: r, targets: [a, b]}", "{name: r, targets: [a, b], fallback_on: []}", 1), fs)
	g.post(t, "r", "").wantStatus(t, 200)
	wantSteps(t, g.recs.wait(t, 1), "a/p1 server_error retry", "a/p1 server_error next_endpoint", "a/p2 ok done")
}

func TestClientNamesATargetDirectly(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(ok("model-a", "a")), "q": script(ok("model-b", "b")), "x": script(ok("model-t", "t"))})
	g := start(t, routeCfg("{name: r, targets: [a, b]}"), fs)
	r := g.post(t, "b", "")
	r.wantStatus(t, 200)
	if c, m := r.content(t); c != "b" || m != "model-b" {
		t.Errorf("answer %q from %q", c, m)
	}
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "b/q ok done")
	if d.Route != "b" || r.Header.Get("X-Detour-Route") != "b" || r.Header.Get("X-Detour-Target") != "b" {
		t.Errorf("route %q, headers %v", d.Route, r.Header)
	}
	if fs["p"].Calls() != 0 {
		t.Error("naming target b reached target a")
	}
}

// fastest: never-measured targets first, then the lowest measured latency.
// a answers 1s late: b's immediate answers stay faster on a loaded machine.
func TestFastestTriesUnmeasuredThenTheFastest(t *testing.T) {
	slow := ok("model-a", "slow")
	slow.Delay = time.Second
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(slow), "q": script(ok("model-b", "fast")), "x": script(ok("model-t", "t"))})
	g := start(t, routeCfg("{name: r, strategy: fastest, targets: [a, b]}"), fs)
	for i, want := range []string{"a/p ok done", "b/q ok done", "b/q ok done", "b/q ok done"} {
		g.post(t, "r", "").wantStatus(t, 200)
		wantSteps(t, g.recs.wait(t, i+1), want)
	}
}

// pool: members share the load.
func TestPoolSpreadsRequests(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(ok("model-a", "a")), "q": script(ok("model-b", "b")), "x": script(ok("model-t", "t"))})
	g := start(t, routeCfg("{name: r, strategy: pool, targets: [a, b]}"), fs)
	for i := 1; i <= 4; i++ {
		g.post(t, "r", "").wantStatus(t, 200)
		if d := g.recs.wait(t, i); len(d.Attempts) != 1 || d.Attempts[0].Action != "done" {
			t.Fatalf("request %d: %q", i, steps(d))
		}
	}
	if fs["p"].Calls() != 2 || fs["q"].Calls() != 2 {
		t.Errorf("pool split 4 requests %d/%d", fs["p"].Calls(), fs["q"].Calls())
	}
}

// A request one dialect cannot express (an OpenAI input_audio part has no
// Anthropic form) moves to a target that takes it as is: the translation
// failure is unknown, not the client's bad request, and nothing is sent to
// or cooled at the provider that could not take it.
func TestUntranslatableRequestMovesOn(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": script(ok("never", "never")),
		"openai":    script(ok("gpt-4o-audio-preview", "heard you")),
	})
	g := start(t, `
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: `+secret+`}
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: `+secret+`}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: gpt, model: gpt-4o-audio-preview, providers: [openai]}
routes:
  - {name: r, targets: [claude, gpt]}
`, fs)
	body := `{"model":"r","messages":[{"role":"user","content":[{"type":"text","text":"What is in this recording?"},` +
		`{"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}}]}]}`
	r := g.raw(t, http.MethodPost, "/v1/chat/completions", body)
	r.wantStatus(t, 200)
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "claude/anthropic unknown next_target", "gpt/openai ok done")
	if d.Attempts[0].Evidence != "translate" || d.Attempts[0].Counted {
		t.Errorf("translation attempt: %+v", d.Attempts[0])
	}
	// The record says what Detour could not do (review 64h: a status 400
	// with no message read as an answer Anthropic had given).
	if m := d.Attempts[0].Message; !strings.HasPrefix(m, "Detour could not translate the request for anthropic: ") {
		t.Errorf("translation attempt's message %q: want Detour's own reason", m)
	}
	if fs["anthropic"].Calls() != 0 {
		t.Errorf("the Anthropic provider was called %d times", fs["anthropic"].Calls())
	}
	for _, e := range g.health(t).Endpoints {
		if e.State != "healthy" || e.Failures != 0 {
			t.Errorf("endpoint %s/%s is %s with %d failures", e.Target, e.Provider, e.State, e.Failures)
		}
	}
}

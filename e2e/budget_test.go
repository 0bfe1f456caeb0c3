package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// docs/behaviour.md#budgets: max_attempts, max_billable_attempts, the route deadline,
// and the real answer when nothing answers.

// threeCfg: targets a, b, c through p, q, s; p has a short timeout (1s:
// far above a fake's immediate answer on a loaded machine, far below a
// silent fake's 10s).
func threeCfg(route string) string {
	return `
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: ` + secret + `, timeout: 1s}
  - {name: q, dialect: openai, base_url: "{q}", api_key: ` + secret + `}
  - {name: s, dialect: openai, base_url: "{s}", api_key: ` + secret + `}
targets:
  - {name: a, model: model-a, providers: [p]}
  - {name: b, model: model-b, providers: [q]}
  - {name: c, model: model-c, providers: [s]}
routes:
  - ` + route + `
`
}

func TestMaxAttempts(t *testing.T) {
	unknown := "openrouter-provider-returned-error-400-no-detail"
	for _, tc := range []struct {
		name, route string
		headers     []string
		want        []string
		skip        string
	}{
		{"route cap", "{name: r, targets: [a, b, c], max_attempts: 2}", nil,
			[]string{"a/p unknown next_target", "b/q unknown stop"}, "max_attempts 2"},
		{"header lowers it", "{name: r, targets: [a, b, c], max_attempts: 2}", []string{"X-Detour-Max-Attempts", "1"},
			[]string{"a/p unknown stop"}, "max_attempts 1"},
		{"header cannot raise it", "{name: r, targets: [a, b, c], max_attempts: 2}", []string{"X-Detour-Max-Attempts", "5"},
			[]string{"a/p unknown next_target", "b/q unknown stop"}, "max_attempts 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"p": script(corpus(t, unknown)), "q": script(corpus(t, unknown)), "s": script(ok("model-c", "c"))})
			g := start(t, threeCfg(tc.route), fs)
			r := g.post(t, "r", "", tc.headers...)
			r.wantStatus(t, 400)
			if msg := r.errMessage(t); msg != "Provider returned error" {
				t.Errorf("message %q, want the last attempt's", msg)
			}
			d := g.recs.wait(t, 1)
			wantSteps(t, d, tc.want...)
			wantSkip(t, d, "c/s", tc.skip)
			if fs["s"].Calls() != 0 {
				t.Error("an attempt beyond max_attempts was made")
			}
		})
	}
}

func TestMaxBillableAttempts(t *testing.T) {
	t.Parallel() // seconds of waiting (or CPU) each: overlap them
	// The request was sent, then the upstream went silent: it may have run
	// (and charged for) it. Under a cap of 1 the second vendor is never called.
	silent := upstreamtest.Step{Delay: 10 * time.Second, Body: upstreamtest.ChatJSON("model-a", "late")}
	for _, tc := range []struct {
		name, route string
		headers     []string
	}{
		{"route", "{name: r, targets: [a, b], max_billable_attempts: 1}", nil},
		{"header", "{name: r, targets: [a, b]}", []string{"X-Detour-Max-Billable-Attempts", "1"}},
		{"header lowers the route's", "{name: r, targets: [a, b], max_billable_attempts: 3}", []string{"X-Detour-Max-Billable-Attempts", "1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"p": script(silent), "q": script(ok("model-b", "b")), "s": script(ok("model-c", "c"))})
			g := start(t, threeCfg(tc.route), fs)
			r := g.post(t, "r", "", tc.headers...)
			r.wantStatus(t, 504)
			if c := r.Header.Get("X-Detour-Class"); c != "timeout" {
				t.Errorf("X-Detour-Class %q", c)
			}
			d := g.recs.wait(t, 1)
			wantSteps(t, d, "a/p timeout stop")
			if !d.Attempts[0].Billable {
				t.Errorf("a timeout after the request was sent is billable: %+v", d.Attempts[0])
			}
			wantSkip(t, d, "b/q", "max_billable_attempts 1")
			if fs["q"].Calls() != 0 {
				t.Error("the second vendor was called past the billable cap")
			}
		})
	}
	t.Run("non-billable failures do not spend it", func(t *testing.T) {
		fs := fakes(t, map[string]upstreamtest.Script{"p": script(corpus(t, "openai-insufficient-quota-429")), "q": script(ok("model-b", "b")), "s": script(ok("model-c", "c"))})
		g := start(t, threeCfg("{name: r, targets: [a, b], max_billable_attempts: 1}"), fs)
		g.post(t, "r", "").wantStatus(t, 200)
		wantSteps(t, g.recs.wait(t, 1), "a/p quota next_target", "b/q ok done")
	})
}

func TestRouteDeadline(t *testing.T) {
	t.Parallel() // seconds of waiting (or CPU) each: overlap them
	// p fails fast (twice), then q is silent: the route's deadline (2s, well
	// after p's answers on a loaded machine) ends the request while q is
	// tried, and nothing is tried after it.
	slow := upstreamtest.Step{Delay: 10 * time.Second, Body: upstreamtest.ChatJSON("model-b", "late")}
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(corpus(t, "openai-server-error-500")), "q": script(slow), "s": script(ok("model-c", "c"))})
	g := start(t, threeCfg("{name: r, targets: [a, b, c], deadline: 2s}"), fs)
	r := g.post(t, "r", "")
	r.wantStatus(t, 504)
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "a/p server_error retry", "a/p server_error next_target", "b/q timeout stop")
	if d.Attempts[2].Evidence != "timeout:deadline" || !d.Attempts[2].Billable {
		t.Errorf("deadline attempt: %+v", d.Attempts[2])
	}
	wantSkip(t, d, "c/s", "deadline")
	if fs["s"].Calls() != 0 {
		t.Error("an attempt was made after the deadline")
	}
}

// When nothing answers the client gets the last attempt's real status and
// message in the OpenAI envelope, never a made-up 503.
func TestLastAttemptsRealAnswer(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": script(corpus(t, "openai-server-error-500")),
		"q": script(corpus(t, "openai-insufficient-quota-429")),
		"s": script(corpus(t, "openrouter-insufficient-credits-never-purchased-402")),
	})
	g := start(t, threeCfg("{name: r, targets: [a, b, c]}"), fs)
	r := g.post(t, "r", "")
	r.wantStatus(t, 402)
	if c := r.Header.Get("X-Detour-Class"); c != "quota" {
		t.Errorf("X-Detour-Class %q", c)
	}
	if msg := r.errMessage(t); !strings.Contains(msg, "This account never purchased credits") {
		t.Errorf("message %q is not the last upstream's", msg)
	}
	e := r.json(t)["error"].(map[string]any)
	if e["type"] != "insufficient_quota" || e["code"] != "insufficient_quota" {
		t.Errorf("envelope %v", e)
	}
	if r.Header.Get("X-Detour-Attempts") != "4" || r.Header.Get("X-Detour-Target") != "c" {
		t.Errorf("headers %v", r.Header)
	}
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "a/p server_error retry", "a/p server_error next_target", "b/q quota next_target", "c/s quota stop")
	if d.Outcome != "error" || d.Status != 402 || d.Class != "quota" {
		t.Errorf("record outcome %q status %d class %q", d.Outcome, d.Status, d.Class)
	}
}

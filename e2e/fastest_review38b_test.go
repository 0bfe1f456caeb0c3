package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// An operator who picks `strategy: fastest` relies on the route following
// the endpoints' speed over time: a target measured slow once (a brownout, a
// cold start, one client's long answer) must be measured again once that
// sample is old, and win the route back when it is fast again. Before, a
// measured target that was not first was never tried while the first one
// served, so one slow answer demoted it for the life of the process.
func TestReview38bFastestRemeasuresADemotedTarget(t *testing.T) {
	slowOnce := ok("model-a", "a")
	slowOnce.Delay = 400 * time.Millisecond
	steady := ok("model-b", "b")
	steady.Delay = 100 * time.Millisecond
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": script(slowOnce, ok("model-a", "a")), "q": script(steady), "x": script(ok("model-t", "t")),
	})
	cfg := strings.Replace(routeCfg("{name: r, strategy: fastest, targets: [a, b]}"),
		"targets:", "health: {remeasure_after: 700ms}\ntargets:", 1)
	g := start(t, cfg, fs)
	n := 0
	send := func() string {
		t.Helper()
		g.post(t, "r", "").wantStatus(t, 200)
		n++
		d := g.recs.wait(t, n)
		return d.Attempts[0].Target
	}
	// a (never measured, listed first) answers slowly once; b is measured
	// next and is faster: b serves.
	for i, want := range []string{"a", "b", "b", "b"} {
		if got := send(); got != want {
			t.Fatalf("request %d went to %s first, want %s", i+1, got, want)
		}
	}
	// a has been fast since its one slow answer. Once its sample is older
	// than remeasure_after, one request measures it again, and the route
	// follows the new measurement.
	time.Sleep(900 * time.Millisecond)
	var got []string
	for range 6 {
		got = append(got, send())
	}
	if fs["p"].Calls() < 2 {
		t.Fatalf("a was never measured again: first targets %v", got)
	}
	if tail := got[len(got)-3:]; strings.Join(tail, ",") != "a,a,a" {
		t.Errorf("after a was measured fast again the route still goes elsewhere: first targets %v", got)
	}
}

// An operator relies on a fastest route not keeping a target first whose
// endpoint fails fast every time it is asked: a failure is not a fast
// answer. Classes that are about the endpoint or the account (a model gone,
// a rejected key, an empty balance, an error inside a 200) cool it, so the
// next request goes elsewhere; the request-scoped classes (a refusal) are
// the client's and keep the order.
func TestReview38bFastestDoesNotKeepAFastFailureFirst(t *testing.T) {
	for _, tc := range []struct {
		name, corpus, dialect, class string
		threshold                    bool // cools only at failure_threshold
	}{
		{"404 no endpoints found", "openrouter-no-endpoints-found-free", "openai", "unavailable", false},
		{"401 invalid key", "openai-invalid-api-key-401", "openai", "auth", false},
		{"400 credit balance too low", "anthropic-credit-balance-too-low", "anthropic", "quota", false},
		{"200 with an error inside", "openrouter-in-band-error-200-high-demand", "openai", "server_error", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fast := corpus(t, tc.corpus)
			steady := ok("model-b", "b")
			steady.Delay = 50 * time.Millisecond
			fs := fakes(t, map[string]upstreamtest.Script{"p": script(fast), "q": script(steady), "x": script(ok("model-t", "t"))})
			cfg := routeCfg("{name: r, strategy: fastest, targets: [a, b], fallback_on: [" + tc.class + "]}")
			cfg = strings.Replace(cfg, "{name: p, dialect: openai", "{name: p, dialect: "+tc.dialect, 1)
			g := start(t, cfg, fs)
			for i := 1; i <= 5; i++ {
				g.post(t, "r", "").wantStatus(t, 200)
				d := g.recs.wait(t, i)
				if i == 1 && (d.Attempts[0].Target != "a" || d.Attempts[0].Class != tc.class) {
					t.Fatalf("first request: %q (want a %s first)", steps(d), tc.class)
				}
				first := d.Attempts[0].Target
				settled := i > 1
				if tc.threshold {
					settled = i > 3 // failure_threshold 3, the same-endpoint retry counting too
				}
				if settled && first == "a" {
					t.Errorf("request %d still tried a first: %q", i, steps(d))
				}
			}
		})
	}
}

// An operator relies on one client not moving a fastest route with
// requests that fail by its own fault or that it abandons: a bad request
// and a client that leaves mid-answer neither cool the target nor feed its
// latency, so the route's order stays what the endpoints' speed says.
func TestReview38bClientFaultsDoNotSkewFastest(t *testing.T) {
	bad := corpus(t, "openai-tool-role-without-preceding-tool-calls")
	fastOK := ok("model-a", "a")
	slowStall := upstreamtest.Step{Delay: 2 * time.Second, Body: upstreamtest.ChatJSON("model-a", "late")}
	steady := ok("model-b", "b")
	steady.Delay = 150 * time.Millisecond
	fs := fakes(t, map[string]upstreamtest.Script{"q": script(steady), "x": script(ok("model-t", "t")),
		"p": func(n int, r upstreamtest.Request) upstreamtest.Step {
			switch {
			case strings.Contains(string(r.Body), `"max_tokens":0`):
				return bad
			case strings.Contains(string(r.Body), `"leave"`):
				return slowStall
			}
			return fastOK
		}})
	g := start(t, routeCfg("{name: r, strategy: fastest, targets: [a, b]}"), fs)
	n := 0
	first := func() string { n++; return g.recs.wait(t, n).Attempts[0].Target }
	g.post(t, "r", "").wantStatus(t, 200) // a measured fast
	first()
	g.post(t, "r", "").wantStatus(t, 200) // b measured slower
	first()
	for range 5 {
		g.post(t, "r", `,"max_tokens":0`)
		if f := first(); f != "a" {
			t.Fatalf("a bad request went to %s first", f)
		}
	}
	for range 3 { // the client leaves while a is still working
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, g.URL+"/v1/chat/completions",
			strings.NewReader(`{"model":"r","messages":[{"role":"user","content":"leave"}]}`))
		req.Header.Set("Content-Type", "application/json")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
		cancel()
		first()
	}
	g.post(t, "r", "").wantStatus(t, 200)
	if f := first(); f != "a" {
		t.Errorf("after the client's own failures the route went to %s first", f)
	}
	for _, e := range g.health(t).Endpoints {
		if e.Target == "a" && (e.State != "healthy" || e.Failures != 0) {
			t.Errorf("a is %s with %d failures", e.State, e.Failures)
		}
	}
}

// An operator relies on a rejected key paging at once even when failover
// hides it from every client (the target's next endpoint answers), once per
// provider and class however many requests meet it, and on nothing a
// client sends (its bad requests, refusals of its prompt) paging at all.
func TestReview38bBrokenKeyPagesOnceBehindFailover(t *testing.T) {
	hook := startHook(t)
	fs := fakes(t, map[string]upstreamtest.Script{
		"p1": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			if strings.Contains(string(r.Body), "jailbreak") {
				return corpus(t, "azure-content-filter-400-legacy")
			}
			if strings.Contains(string(r.Body), `"max_tokens":0`) {
				return corpus(t, "openai-tool-role-without-preceding-tool-calls")
			}
			return corpus(t, "openai-invalid-api-key-401")
		},
		"p2": script(ok("model-a", "p2")), "q": script(ok("model-b", "q")),
	})
	cfg := strings.Replace(twoEndpoints, "providers:", "alerts: {webhook: \""+hook.URL+"\", min_interval: 1h}\nproviders:", 1)
	g := start(t, cfg, fs)
	// The client's own faults first, while p1's account is healthy: they
	// reach p1 and page nobody.
	g.post(t, "r", `,"max_tokens":0`).wantStatus(t, 400)
	g.post(t, "r", `,"user":"jailbreak"`).wantStatus(t, 400)
	time.Sleep(200 * time.Millisecond)
	if n := len(hook.all()); n != 0 {
		t.Fatalf("a client's own bad request and refused prompt paged the operator: %v", hook.all())
	}
	for i := 3; i <= 6; i++ {
		g.post(t, "r", "").wantStatus(t, 200)
	}
	d := g.recs.wait(t, 3)
	wantSteps(t, d, "a/p1 auth next_endpoint", "a/p2 ok done")
	deadline := time.Now().Add(5 * time.Second)
	for len(hook.all()) == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	alerts := hook.all()
	if len(alerts) != 1 || !strings.Contains(alerts[0], `"provider":"p1"`) || !strings.Contains(alerts[0], `"class":"auth"`) {
		t.Fatalf("alerts %v, want one auth alert for p1", alerts)
	}
	if strings.Contains(alerts[0], secret) || strings.Contains(alerts[0], "jailbreak") {
		t.Errorf("the alert carries a key or the client's text: %s", alerts[0])
	}
	var acct string
	for _, a := range g.health(t).Accounts {
		if a.Name == "p1" {
			acct = a.State + "/" + a.LastClass
		}
	}
	if acct != "cooling/auth" {
		t.Errorf("p1's account in /v1/health: %s", acct)
	}
}

package e2e

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 61h (1), end to end: review 61c's hole reopened by 2f1e48d4's
// decode. OpenRouter reads "provider" exactly; Detour's routingPrefs is
// decoded by encoding/json, case-insensitively, the last of the names
// winning. "Provider" is not a member the front reads, so the strict pass
// lets it beside "provider". Mallory's one request cools gpt/openrouter for
// unavailable_cooldown (24h) and alice's plain request goes to the spare.
func TestReview61hRoutingCaseVariantCoolsForEveryone(t *testing.T) {
	for _, tc := range []struct{ name, extra, answer string }{
		{"Provider null", `,"provider":{"only":["no-such-provider"],"allow_fallbacks":false},"Provider":null`,
			`{"error":{"message":"No allowed providers are available for the selected model.","code":404,"metadata":{"available_providers":["openai","azure"],"requested_providers":["no-such-provider"]}}}`},
		{"Only [] inside", `,"provider":{"only":["no-such-provider"],"Only":[]}`,
			`{"error":{"message":"No allowed providers are available for the selected model.","code":404}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{
				"openrouter": orFake(tc.answer),
				"backup":     script(upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o", "spare")}),
			})
			g := start(t, orCfg, fs)
			r := g.post(t, "deep", tc.extra, "Authorization", "Bearer key-mallory")
			t.Logf("mallory: %d class %q target %q", r.Status, r.Header.Get("X-Detour-Class"), r.Header.Get("X-Detour-Target"))
			if r.Header.Get("X-Detour-Class") != "bad_request" {
				t.Errorf("mallory's own provider.only read %q, want bad_request", r.Header.Get("X-Detour-Class"))
			}
			e, _ := g.health(t).Endpoint("gpt", "openrouter")
			if e.State != "healthy" {
				t.Errorf("one request carrying the client's own provider.only (and a case-variant Go reads last) left gpt/openrouter %s (class %s, until %v): cooled for everyone",
					e.State, e.CoolingClass, e.CooldownUntil)
			}
			r = g.post(t, "deep", "", "Authorization", "Bearer key-alice")
			if got := r.Header.Get("X-Detour-Target"); got != "gpt" {
				t.Errorf("alice's plain request went to %q, want gpt (OpenRouter serves it)", got)
			}
		})
	}
}

// Review 61h (7): skipUnmoved inside the tail. Within the tail the walk
// moves by tail_on (nextTarget: allowed = row.Tail == TailYes), but
// skipUnmoved names fallback_on for the tail's remaining targets. Here a
// tail target's forbidden stops the walk: the record says "forbidden does
// not move to the next target on this route (fallback_on)" — an operator
// who adds forbidden to fallback_on changes nothing; tail_on is the knob.
func TestReview61hTailStopNamesWrongSetting(t *testing.T) {
	g, _ := tailStopGateway(t, `{name: deep, strategy: ordered, targets: [main], tail: [one, two], tail_on: [server_error, timeout]}`)
	r := g.post(t, "deep", "")
	d := g.recs.wait(t, 1)
	t.Logf("status %d; attempts %q; skipped %q", r.Status, steps(d), skipped(d))
	for _, s := range d.Skipped {
		if s.Target == "two" && strings.Contains(s.Reason, "fallback_on") {
			t.Errorf("tail target two recorded %q: within the tail the walk moves by tail_on, not fallback_on", s.Reason)
		}
	}
}

// Review 61h (7b): the converse: a class in fallback_on but not tail_on
// stops the walk inside the tail with no reason recorded for the tail's
// other targets (the gap review 61f closed for the main list).
func TestReview61hTailStopNoReasonWhenInFallbackOn(t *testing.T) {
	g, fs := tailStopGateway(t, `{name: deep, strategy: ordered, targets: [main], fallback_on: [server_error, forbidden, timeout], tail: [one, two], tail_on: [server_error, timeout]}`)
	r := g.post(t, "deep", "")
	d := g.recs.wait(t, 1)
	t.Logf("status %d; attempts %q; skipped %q", r.Status, steps(d), skipped(d))
	if fs["t2"].Calls() == 0 {
		found := false
		for _, s := range d.Skipped {
			if s.Target == "two" {
				found = true
			}
		}
		if !found {
			t.Errorf("tail target two was not moved to and the record gives no reason")
		}
	}
}

// tailStopGateway serves route (one YAML mapping) over a main target that
// answers 500 and a tail of one target that answers 403 and one that
// serves.
func tailStopGateway(t *testing.T, route string) (*gateway, map[string]*upstreamtest.Server) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"a":  script(upstreamtest.Step{Status: 500, Body: `{"error":{"message":"internal error"}}`}),
		"t1": script(upstreamtest.Step{Status: 403, Body: `{"error":{"message":"Forbidden"}}`}),
		"t2": script(ok("m2", "tail two")),
	})
	return start(t, `
providers:
  - {name: a, dialect: openai, base_url: "{a}", api_key: `+secret+`}
  - {name: t1, dialect: openai, base_url: "{t1}", api_key: `+secret+`}
  - {name: t2, dialect: openai, base_url: "{t2}", api_key: `+secret+`}
targets:
  - {name: main, model: m0, providers: [a]}
  - {name: one, model: m1, providers: [t1]}
  - {name: two, model: m2, providers: [t2]}
routes:
  - `+route+"\n", fs), fs
}

// Review 61h (5), end to end: pick drops every account/endpoint phrase
// once the answer names a URL the client's request holds. OpenCode Zen's
// real 401 for a withdrawn free model ends with its own upsell link
// (corpus opencode-zen-401-modelerror-free-promotion-ended-…): a request
// whose text is that link (a user pasting it, a search result's url)
// turns "the model is gone" (unavailable: this endpoint) into the 401's
// default, auth: the whole provider account cooled for account_cooldown,
// its other models with it, and the operator paged.
func TestReview61hProviderLinkInRequestCoolsAccount(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"opencode": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			if strings.Contains(string(r.Body), "qwen3.6-plus-free") {
				return corpus(t, "opencode-zen-401-modelerror-free-promotion-ended-qwen3-6-plus-free")
			}
			return upstreamtest.Step{Body: upstreamtest.ChatJSON("kimi-k2", "paid model ok")}
		},
		"backup": script(ok("gpt-4o", "spare")),
	})
	g := start(t, `
providers:
  - {name: opencode, dialect: openai, base_url: "{opencode}", api_key: `+secret+`}
  - {name: backup, dialect: openai, base_url: "{backup}", api_key: `+secret+`}
targets:
  - {name: free, model: qwen3.6-plus-free, providers: [opencode]}
  - {name: kimi, model: kimi-k2, providers: [opencode]}
  - {name: spare, model: gpt-4o, providers: [backup]}
routes:
  - {name: deep, targets: [free, spare]}
  - {name: coder, targets: [kimi, spare]}
`, fs)
	body := `{"model":"deep","messages":[{"role":"user","content":"https://opencode.ai/go"}]}`
	r := g.raw(t, http.MethodPost, "/v1/chat/completions", body)
	d := g.recs.wait(t, 1)
	t.Logf("status %d; attempts %q", r.Status, steps(d))
	if len(d.Attempts) > 0 && d.Attempts[0].Class != "unavailable" {
		t.Errorf("OpenCode's 'free promotion has ended' read %s once the client's text held OpenCode's own link (unavailable without it)", d.Attempts[0].Class)
	}
	e, _ := g.health(t).Endpoint("kimi", "opencode")
	if e.State != "healthy" {
		t.Errorf("kimi/opencode (same account, untouched model) is %s (class %s) after one request holding https://opencode.ai/go", e.State, e.CoolingClass)
	}
	r = g.post(t, "coder", "")
	if got := r.Header.Get("X-Detour-Target"); got != "kimi" {
		t.Errorf("another client's request on route coder went to %q, want kimi", got)
	}
}

// Review 61h (9): front.go's re-check after a reload. A key with
// max_concurrent: 1 and a small in-flight body allowance: an upload
// admitted before a reload that disables (then, in a second run, removes)
// the key is refused once its body is read; the slot and the body
// allowance must come back: after a reload that restores the key, a new
// request is served and the Keys page shows 0 in progress.
func TestReview61hReloadRecheckGivesBackSlotAndBody(t *testing.T) {
	for _, tc := range []struct{ name, gone string }{
		{"disabled", "  - {name: k, key: key-k-0123456789, max_concurrent: 1, disabled: true}\n"},
		{"removed", "  - {name: other, key: key-other-0123456789}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"openai": script(ok("gpt-4o", "served"))})
			cfg := func(keys string) string {
				return strings.ReplaceAll(`
client_keys:
`+keys+`providers:
  - {name: p, dialect: openai, base_url: "{openai}", api_key: `+secret+`}
targets:
  - {name: gpt, model: gpt-4o, providers: [p]}
routes:
  - {name: deep, targets: [gpt]}
`, "{openai}", fs["openai"].URL)
			}
			live := "  - {name: k, key: key-k-0123456789, max_concurrent: 1}\n"
			url, a := gatewaytest.Start(t, gatewaytest.Config(t, cfg(live)),
				app.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Decisions: gatewaytest.NewRecords()})
			body := `{"model":"deep","messages":[{"role":"user","content":"hi"}]}`
			pr, pw := io.Pipe()
			req, _ := http.NewRequest(http.MethodPost, url+"/v1/chat/completions", pr)
			req.Header.Set("Authorization", "Bearer key-k-0123456789")
			req.Header.Set("Content-Type", "application/json")
			req.ContentLength = int64(len(body))
			done := make(chan int, 1)
			go func() {
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					done <- 0
					return
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				done <- resp.StatusCode
			}()
			io.WriteString(pw, body[:10])
			time.Sleep(200 * time.Millisecond)
			if err := a.Reload(gatewaytest.Config(t, cfg(tc.gone))); err != nil {
				t.Fatal(err)
			}
			io.WriteString(pw, body[10:])
			pw.Close()
			st := <-done
			t.Logf("upload after the reload: %d", st)
			if st == http.StatusOK {
				t.Errorf("served after its key was %s", tc.name)
			}
			if err := a.Reload(gatewaytest.Config(t, cfg(live))); err != nil {
				t.Fatal(err)
			}
			req2, _ := http.NewRequest(http.MethodPost, url+"/v1/chat/completions", strings.NewReader(body))
			req2.Header.Set("Authorization", "Bearer key-k-0123456789")
			req2.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req2)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Errorf("after the key came back: %d %s (a slot leaked?)", resp.StatusCode, b)
			}
			keys := string((&gateway{URL: url}).raw(t, http.MethodGet, "/ui/api/keys", "").Body)
			if !strings.Contains(keys, `"in_progress":0`) {
				t.Errorf("Keys page after everything ended: %s", keys)
			}
		})
	}
}

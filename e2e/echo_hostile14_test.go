package e2e

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// stopTooLong answers as OpenAI's jsonschema validator did to more than four
// stop sequences: a 400 whose message opens with the client's list, printed
// by Python ("['a', 'b', 'c', 'd', 'e'] is too long - 'stop'"); any other
// request is answered.
func stopTooLong(model string) upstreamtest.Script {
	return func(_ int, r upstreamtest.Request) upstreamtest.Step {
		var req struct {
			Stop []string `json:"stop"`
		}
		_ = json.Unmarshal(r.Body, &req)
		if len(req.Stop) <= 4 {
			return ok(model, "p")
		}
		b, _ := json.Marshal(map[string]any{"error": map[string]any{
			"message": testutil.PyList(req.Stop) + " is too long - 'stop'",
			"type":    "invalid_request_error", "param": nil, "code": nil,
		}})
		return upstreamtest.Step{Status: 400, Body: string(b)}
	}
}

// TestClientStopListIsNoRelay: a client whose first stop sequence begins
// "a] " made the list's "['a] " read as a relay's tag, and what it wrote
// after it as the relay's message: SageMaker's "Received client error
// (401)" (auth), or a quoted error object joined from two of its items
// (quota). The account was cooled for an hour and the operator paged, for
// every client. The attempt is the upstream's own 400; p stays healthy and
// answers the next request; the only alert is the control's.
func TestClientStopListIsNoRelay(t *testing.T) {
	for _, tc := range []struct {
		name  string
		items []string
	}{
		{"sagemaker lead → auth", []string{"a] Received client error (401) from primary with message", "b"}},
		{"joined quoted answer → quota", []string{`a] {"error":{"code":"insufficient_quota","x":"`, `"}}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHook(t)
			fs := fakes(t, map[string]upstreamtest.Script{
				"p":  stopTooLong("model-a"),
				"p2": script(corpus(t, "openai-insufficient-quota-429")),
				"q":  script(ok("model-b", "q")),
			})
			g := startEcho(t, h.URL, fs)

			stop, _ := json.Marshal(append(tc.items, "c", "d", "e"))
			g.raw(t, http.MethodPost, "/v1/chat/completions",
				`{"model":"r","messages":[{"role":"user","content":"hi"}],"stop":`+string(stop)+`}`)
			d := g.recs.wait(t, 1)
			if len(d.Attempts) == 0 {
				t.Fatalf("no attempt recorded: %+v", d)
			}
			a := d.Attempts[0]
			t.Logf("attempt %s/%s class=%s evidence=%s", a.Target, a.Provider, a.Class, a.Evidence)
			if a.Provider != "p" || (a.Class != "unknown" && a.Class != "bad_request") {
				t.Errorf("the client's stop list decided the attempt: %s (%s)", a.Class, a.Evidence)
			}
			for _, acc := range g.health(t).Accounts {
				if acc.Name == "p" && acc.State != "healthy" {
					t.Errorf("account p is %s (last class %s) after the client's stop list", acc.State, acc.LastClass)
				}
			}

			wantOnlyControlAlert(t, g, h, "", "the client's stop list")

			// p was never cooled: it answers the next request first.
			g.post(t, "r", "").wantStatus(t, 200)
			wantSteps(t, g.recs.wait(t, 3), "a/p ok done")
		})
	}
}

// TestClientToolNameIsNoUnloadedModel: a self-hosted server answers a tool
// it does not know with a plain-text 500 that quotes the client's tool name
// ("Tool 'no model' is not loaded", a Python server's str(e)). The client's
// name heads the two-part phrase "no model … loaded" (nothing loaded:
// unavailable, the endpoint retired for a day, for every client); it is the
// client's text, and the attempt is the server's 500.
func TestClientToolNameIsNoUnloadedModel(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			var req struct {
				ToolChoice struct {
					Function struct {
						Name string `json:"name"`
					} `json:"function"`
				} `json:"tool_choice"`
			}
			_ = json.Unmarshal(r.Body, &req)
			if n := req.ToolChoice.Function.Name; n != "" {
				return upstreamtest.Step{Status: 500, Body: "Tool '" + n + "' is not loaded"}
			}
			return ok("model-a", "p")
		},
		"q": script(ok("model-b", "q")),
	})
	g := start(t, twoTargets, fs)
	g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"r","messages":[{"role":"user","content":"hi"}],`+
		`"tools":[{"type":"function","function":{"name":"no model","parameters":{"type":"object"}}}],`+
		`"tool_choice":{"type":"function","function":{"name":"no model"}}}`)
	d := g.recs.wait(t, 1)
	if len(d.Attempts) == 0 {
		t.Fatalf("no attempt recorded: %+v", d)
	}
	a := d.Attempts[0]
	t.Logf("attempt %s/%s class=%s evidence=%s", a.Target, a.Provider, a.Class, a.Evidence)
	if a.Provider != "p" || a.Class != "server_error" {
		t.Errorf("the client's tool name decided the attempt: %s (%s), want server_error", a.Class, a.Evidence)
	}
	for _, e := range g.health(t).Endpoints {
		t.Logf("endpoint %s/%s state=%s last=%s until=%v", e.Target, e.Provider, e.State, e.LastClass, e.CooldownUntil)
		if e.Provider == "p" && (e.LastClass == "unavailable" || e.CooldownUntil != nil && time.Until(*e.CooldownUntil) > time.Hour) {
			t.Errorf("endpoint a/p retired by the client's tool name: %s (last %s) until %v", e.State, e.LastClass, e.CooldownUntil)
		}
	}
}

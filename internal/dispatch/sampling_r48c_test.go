package dispatch

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/health"
)

// refusedTemperature is OpenAI's refusal of a sampling member by name
// (johny-b/llmcomp#69, as e2e/sampling_refused_test.go quotes it).
const refusedTemperature = "Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported."

// doorCall is a Messages door's call whose translation sets temperature.
func doorCall(model string) *Call {
	body := `{"model":"` + model + `","temperature":0.2,"messages":[{"role":"user","content":"hi"}]}`
	return &Call{Model: model, Body: []byte(body), ID: "test",
		Native: &Native{API: APIMessages, Body: []byte(`{"model":"` + model + `","max_tokens":10,"temperature":0.2,"messages":[]}`)}}
}

// r48cCaller answers each call with step(n, key, body sent).
func r48cCaller(step func(n int, k health.Key, body string) (int, string)) caller {
	n := 0
	return func(_ context.Context, w *walk, e *endpointRT) *outcome {
		n++
		st, msg := step(n, e.key, string(w.requestFor(e).Body))
		o := &outcome{status: st}
		if st == http.StatusOK {
			o.ok, o.body = true, []byte(`{"object":"chat.completion"}`)
			return o
		}
		o.failWith(classify.Verdict{Class: classify.BadRequest, Evidence: "status:400"}, msg)
		if st >= 500 {
			o.failWith(classify.Verdict{Class: classify.ServerError, Evidence: "status:500"}, msg)
		}
		return o
	}
}

// The refused member is left out at that endpoint only: another target
// still gets the client's setting (a sanity check of the change; passes).
func TestRefusedSamplingDroppedAtItsEndpointOnly_r48c(t *testing.T) {
	h := newHarness(t, "  - {name: r, targets: [one, b]}\n", nil)
	var sent []string
	h.d.call = r48cCaller(func(n int, k health.Key, body string) (int, string) {
		sent = append(sent, k.String()+" "+body)
		if n == 1 {
			return 400, refusedTemperature
		}
		if k.Provider == "p1" {
			return 500, "boom"
		}
		return 200, ""
	})
	res := h.d.Do(t.Context(), doorCall("r"))
	t.Logf("steps: %v", steps(res.Decision))
	for i, s := range sent {
		has := strings.Contains(s, `"temperature"`)
		if want := i == 0 || strings.HasPrefix(s, "b/q "); has != want {
			t.Errorf("call %d: %s (temperature sent: %v, want %v)", i+1, s, has, want)
		}
	}
}

// The resend without the refused member is not the endpoint's one
// same-endpoint retry (server_error: retry once, docs/behaviour.md): it
// is the first time the endpoint is asked the request it can serve. Yet
// the endpoint loop's "retried" is set by the resend (target.go, endpoint:
// the for statement's post sets it on the continue), so a 500 that follows
// is not retried, and a one-target route fails a request it serves for a
// Messages client that set temperature, where one that did not gets its
// answer.
func TestRefusedSamplingKeepsTheClassRetry_r48c(t *testing.T) {
	h := newHarness(t, "  - {name: r, targets: [one]}\n", nil)
	h.d.call = r48cCaller(func(n int, _ health.Key, _ string) (int, string) {
		switch n {
		case 1:
			return 400, refusedTemperature
		case 2:
			return 500, "boom"
		}
		return 200, ""
	})
	res := h.d.Do(t.Context(), doorCall("r"))
	wantSteps(t, res.Decision, "one/p1 bad_request retry", "one/p1 server_error retry", "one/p1 ok done")
	if res.Failure != nil {
		t.Errorf("failure %+v, want the answer", res.Failure)
	}
}

// A probe whose answer is a refused sampling member gives its slot back
// (finish: the request's own fault, Release), yet the walk asks the same
// endpoint again at once, still marked as the probe: while that retry
// runs, another request (or replica) may take the probe too, and two
// requests are sent to an endpoint that was to get one (target.go, "a
// failed probe is not retried ... it takes one probe request, not two").
func TestRefusedSamplingRetryKeepsTheProbe_r48c(t *testing.T) {
	key := health.Key{Target: "one", Provider: "p1"}
	h := newHarness(t, "  - {name: r, targets: [one, b]}\n", nil)
	h.h.Report(t.Context(), key, health.Report{Class: "unavailable", Cool: health.ScopeEndpoint, CoolFor: time.Minute})
	h.now = h.now.Add(2 * time.Minute) // cooling over: probing
	if st := h.h.View(t.Context(), []health.Key{key})[0]; st.Phase != health.Probing {
		t.Fatalf("one/p1: %+v, want probing", st)
	}
	var other bool
	h.d.call = r48cCaller(func(n int, k health.Key, _ string) (int, string) {
		switch n {
		case 1:
			return 400, refusedTemperature
		case 2:
			// Another request arrives while the walk's retry at one/p1 runs.
			other, _, _ = h.h.TryProbeLease(context.Background(), key)
			return 500, "boom"
		}
		return 200, ""
	})
	res := h.d.Do(t.Context(), doorCall("r"))
	t.Logf("steps: %v", steps(res.Decision))
	if other {
		t.Errorf("while the walk's retry of its probe ran at one/p1, another request took the probe as well")
	}
}

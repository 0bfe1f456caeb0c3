package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Text the client supplied is no evidence (docs/design.md, "Echoed text"):
// an upstream that quotes the client's input back in its error must not let
// a client page the operator or cool a provider account.

// echoRole answers like OpenAI when a message role is not one it knows: it
// quotes the client's value back. Wording and envelope as OpenAI sends them
// (openai/codex#7085: `Invalid value: 'other'. Supported values are: …`,
// type invalid_request_error, param naming the field, code invalid_value;
// the role list as in anomalyco/opencode#10803). A known role gets an answer.
// With stream set, the error comes as an in-band error event of a 200
// stream, as OpenAI-compatible relays send it. With legacy set it answers in
// OpenAI's older wording, which names no param and no code
// (lss233/kirara-ai#1028 quotes an empty role back as "<role in quotes> is
// not one of ['system', 'assistant', 'user', 'function'] -
// 'messages.21.role'", param null, code null).
func echoRole(model string, stream, legacy bool) upstreamtest.Script {
	return roleEcho(model, stream, legacy, func(s string) string { return s })
}

// roleEcho is echoRole with the role passed through transform before it is
// quoted (legacyRoleEcho).
func roleEcho(model string, stream, legacy bool, transform func(string) string) upstreamtest.Script {
	return func(_ int, r upstreamtest.Request) upstreamtest.Step {
		var req struct {
			Messages []struct {
				Role string `json:"role"`
			} `json:"messages"`
		}
		_ = json.Unmarshal(r.Body, &req)
		for i, m := range req.Messages {
			switch m.Role {
			case "system", "assistant", "user", "function", "tool", "developer":
				continue
			}
			e := map[string]any{
				"message": "Invalid value: '" + transform(m.Role) + "'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.",
				"type":    "invalid_request_error",
				"param":   "messages[" + itoa(i) + "].role",
				"code":    "invalid_value",
			}
			if legacy {
				e = map[string]any{
					"message": "'" + transform(m.Role) + "' is not one of ['system', 'assistant', 'user', 'function'] - 'messages." + itoa(i) + ".role'",
					"type":    "invalid_request_error", "param": nil, "code": nil,
				}
			}
			b, _ := json.Marshal(map[string]any{"error": e})
			if stream {
				return upstreamtest.Step{Events: []string{string(b)}}
			}
			return upstreamtest.Step{Status: 400, Body: string(b)}
		}
		if stream {
			return okStream(model, "hi")
		}
		return ok(model, "hi")
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

// hook is an alert webhook on loopback that keeps every payload.
type hook struct {
	*httptest.Server
	mu  sync.Mutex
	got []map[string]any
}

func newHook(t *testing.T) *hook {
	h := &hook{}
	h.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var p map[string]any
		_ = json.Unmarshal(b, &p)
		h.mu.Lock()
		h.got = append(h.got, p)
		h.mu.Unlock()
	}))
	t.Cleanup(h.Close)
	return h
}

func (h *hook) alerts() []map[string]any {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]map[string]any(nil), h.got...)
}

func TestEchoedClientTextIsNoEvidence(t *testing.T) {
	// Real quota wording (openai-insufficient-quota-429's message) sent as a
	// message role: the upstream quotes it back in a 400.
	const role = "You exceeded your current quota, please check your plan and billing details."
	for _, tc := range []struct {
		name           string
		stream, legacy bool
		want           string // the attempt's class
	}{
		// The upstream names the bad field: bad input, proven.
		{"plain", false, false, "bad_request"},
		{"stream error event", true, false, "bad_request"},
		// No param, no code: only the echo check stands between the
		// client's text and a quota verdict; nothing proves bad input.
		{"legacy wording", false, true, "unknown"},
	} {
		stream := tc.stream
		t.Run(tc.name, func(t *testing.T) {
			h := newHook(t)
			fs := fakes(t, map[string]upstreamtest.Script{
				"p":  echoRole("model-a", stream, tc.legacy),
				"p2": script(corpus(t, "openai-insufficient-quota-429")),
				"q":  script(ok("model-b", "q")),
			})
			g := startEcho(t, h.URL, fs)

			extra := ``
			if stream {
				extra = `,"stream":true`
			}
			body, _ := json.Marshal(role)
			g.raw(t, http.MethodPost, "/v1/chat/completions",
				`{"model":"r","messages":[{"role":`+string(body)+`,"content":"hi"}]`+extra+`}`)
			d := g.recs.wait(t, 1)
			if len(d.Attempts) == 0 {
				t.Fatalf("no attempt recorded: %+v", d)
			}
			a := d.Attempts[0]
			if a.Provider != "p" || a.Class == "quota" || a.Class == "auth" || a.Class == "" {
				t.Errorf("echoed quota wording decided the attempt: %+v", a)
			} else if a.Class != tc.want {
				t.Errorf("class %s (%s), want %s", a.Class, a.Evidence, tc.want)
			}
			// A failed attempt records the upstream's message (for the
			// operator, and an unknown's for `detour classify --suggest`),
			// but not the client's text.
			if a.Message == "" || strings.Contains(a.Message, "quota") {
				t.Errorf("%s attempt's message %q: want the upstream's words, the client's masked", a.Class, a.Message)
			}
			for _, tr := range d.Transitions {
				if tr.Name == "p" || strings.HasSuffix(tr.Name, "/p") {
					t.Errorf("the echo changed health: %+v", tr)
				}
			}
			for _, acc := range g.health(t).Accounts {
				if acc.Name == "p" && acc.State != "healthy" {
					t.Errorf("account p is %s (last class %s) after an echo", acc.State, acc.LastClass)
				}
			}

			wantOnlyControlAlert(t, g, h, extra, "an echo")

			// The account of p was never cooled: it answers the next request first.
			g.post(t, "r", extra).wantStatus(t, 200)
			wantSteps(t, g.recs.wait(t, 3), "a/p ok done")
		})
	}
}

// The client's anthropic-beta header goes to an Anthropic target as sent,
// and Anthropic quotes an unknown value back in its 400 ("Unexpected
// value(s) `X` for the `anthropic-beta` header", zed-industries/zed#42715):
// a value that is quota or key wording must not decide the attempt, cool
// the account or page (docs/behaviour.md, "Echo rule").
func TestEchoedBetaHeaderIsNoEvidence(t *testing.T) {
	const beta = "insufficient_quota"
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			v := r.Header.Get("Anthropic-Beta")
			return upstreamtest.Step{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"Unexpected value(s) ` +
				"`" + v + "`" + ` for the ` + "`anthropic-beta`" + ` header. Please consult our documentation at docs.anthropic.com or try again without the header."}}`}
		},
	})
	g := start(t, `
providers:
  - {name: p, dialect: anthropic, base_url: "{p}", api_key: `+secret+`}
targets:
  - {name: a, model: claude-x, providers: [p]}
`, fs)
	resp := g.raw(t, http.MethodPost, "/v1/messages", `{"model":"a","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}`,
		"anthropic-version", "2023-06-01", "anthropic-beta", beta)
	if resp.Status != 400 {
		t.Fatalf("status %d: %s, want the upstream's 400", resp.Status, resp.Body)
	}
	a := g.recs.wait(t, 1).Attempts[0]
	if a.Class == "quota" || a.Class == "auth" || a.Class == "unavailable" {
		t.Errorf("the client's header value decided the attempt: %s (%s)", a.Class, a.Evidence)
	}
	for _, acc := range g.health(t).Accounts {
		if acc.Name == "p" && acc.State != "healthy" {
			t.Errorf("account p is %s (last class %s) after an echoed header", acc.State, acc.LastClass)
		}
	}
}

// startEcho serves route r (target a through p, then b through q) and r2
// (c through p2, a real quota, then b), with alerts to hook: what an echo
// test needs to see a provider cooled or the operator paged.
func startEcho(t *testing.T, hook string, fs map[string]*upstreamtest.Server) *gateway {
	t.Helper()
	return start(t, strings.ReplaceAll(`
alerts: {webhook: "{hook}", min_interval: 1h}
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: `+secret+`}
  - {name: p2, dialect: openai, base_url: "{p2}", api_key: `+secret+`}
  - {name: q, dialect: openai, base_url: "{q}", api_key: `+secret+`}
targets:
  - {name: a, model: model-a, providers: [p]}
  - {name: c, model: model-c, providers: [p2]}
  - {name: b, model: model-b, providers: [q]}
routes:
  - {name: r, targets: [a, b]}
  - {name: r2, targets: [c, b]}
`, "{hook}", hook), fs)
}

// wantOnlyControlAlert sends route r2 a real quota answer (account p2) and
// requires that it is the only alert the webhook got: the webhook works,
// and alerts are delivered in order, so one for p, caused by what the
// test sent before (what), would have arrived first.
func wantOnlyControlAlert(t *testing.T, g *gateway, h *hook, extra, what string) {
	t.Helper()
	g.post(t, "r2", extra).wantStatus(t, 200)
	deadline := time.Now().Add(30 * time.Second) // a failure guard
	for len(h.alerts()) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	got := h.alerts()
	if len(got) == 0 {
		t.Fatal("the control quota answer never reached the webhook")
	}
	for _, p := range got {
		if p["provider"] != "p2" {
			t.Errorf("alert for %s: %v", what, p)
		}
	}
}

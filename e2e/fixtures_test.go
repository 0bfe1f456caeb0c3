package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Fixtures (real upstream bodies, scripted answers) and readers of what the
// gateway answered.

// secret is the api_key every test provider uses; it must never leak.
const secret = "sk-test-secret-123"

// corpusCase is one file of classify/testdata/corpus: a real upstream answer.
type corpusCase struct {
	Dialect string            `json:"dialect"`
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers"`
	Stream  bool              `json:"stream"`
	Body    string            `json:"body"`
	Class   string            `json:"class"`
}

// corpus reads classify/testdata/corpus/<name>.json as a scripted answer:
// its status, body (SSE events when the case is a stream) and headers.
// extra are header name/value pairs added to the answer.
func corpus(t *testing.T, name string, extra ...string) upstreamtest.Step {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "classify", "testdata", "corpus", name+".json"))
	if err != nil {
		t.Fatalf("corpus: %v", err)
	}
	var c corpusCase
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("corpus %s: %v", name, err)
	}
	st := upstreamtest.Step{Status: c.Status, Header: map[string]string{}}
	for k, v := range c.Headers {
		if !strings.EqualFold(k, "content-length") {
			st.Header[k] = v
		}
	}
	for i := 0; i+1 < len(extra); i += 2 {
		st.Header[extra[i]] = extra[i+1]
	}
	if c.Stream {
		st.Events = sseBlocks(c.Body)
	} else {
		st.Body = c.Body
	}
	return st
}

// corpusBody is the raw body of a corpus case.
func corpusBody(t *testing.T, name string) string {
	t.Helper()
	return corpus(t, name).Body
}

// sseBlocks splits SSE text into events for upstreamtest.Step.Events,
// dropping comment-only blocks.
func sseBlocks(text string) []string {
	var out []string
	for _, blk := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		var lines []string
		for _, l := range strings.Split(blk, "\n") {
			if l != "" && !strings.HasPrefix(l, ":") {
				lines = append(lines, l)
			}
		}
		if len(lines) > 0 {
			out = append(out, strings.Join(lines, "\n"))
		}
	}
	return out
}

// testdata reads a file of an adapter's testdata, e.g. ("anthropic", "stream/basic.sse").
func testdata(t *testing.T, dialect, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "internal", "provider", dialect, "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// upstreamOf returns the "upstream" member of an adapter's response golden file.
func upstreamOf(t *testing.T, dialect, name string) string {
	t.Helper()
	var g struct {
		Upstream json.RawMessage `json:"upstream"`
	}
	if err := json.Unmarshal(testdata(t, dialect, name), &g); err != nil {
		t.Fatal(err)
	}
	return string(g.Upstream)
}

func ok(model, text string) upstreamtest.Step {
	return upstreamtest.Step{Body: upstreamtest.ChatJSON(model, text)}
}

func okStream(model string, parts ...string) upstreamtest.Step {
	return upstreamtest.Step{Events: upstreamtest.ChatStream(model, parts...)}
}

func script(steps ...upstreamtest.Step) upstreamtest.Script { return upstreamtest.Steps(steps...) }

// sseEvent is one event the gateway streamed to the client.
type sseEvent struct {
	Name, Data string
}

// events parses the body of a streamed reply.
func (r reply) events() []sseEvent {
	var out []sseEvent
	for _, blk := range strings.Split(string(r.Body), "\n\n") {
		var ev sseEvent
		has := false
		for _, l := range strings.Split(blk, "\n") {
			switch {
			case strings.HasPrefix(l, "event:"):
				ev.Name, has = strings.TrimSpace(l[6:]), true
			case strings.HasPrefix(l, "data:"):
				if ev.Data != "" {
					ev.Data += "\n"
				}
				ev.Data, has = ev.Data+strings.TrimPrefix(l[5:], " "), true
			}
		}
		if has {
			out = append(out, ev)
		}
	}
	return out
}

// content joins the delta content of a streamed reply and reports whether it
// ended with [DONE] and whether it carried an error event.
func (r reply) streamed(t *testing.T) (content string, done, errEvent bool) {
	t.Helper()
	for _, ev := range r.events() {
		switch {
		case ev.Name == "error":
			errEvent = true
		case ev.Data == "[DONE]":
			done = true
		default:
			var c struct {
				Choices []struct {
					Delta struct {
						Content string `json:"content"`
					} `json:"delta"`
				} `json:"choices"`
			}
			if err := json.Unmarshal([]byte(ev.Data), &c); err != nil {
				t.Fatalf("client got a malformed chunk %q: %v", ev.Data, err)
			}
			for _, ch := range c.Choices {
				content += ch.Delta.Content
			}
		}
	}
	return content, done, errEvent
}

// content returns choices[0].message.content and model of a chat completion.
func (r reply) content(t *testing.T) (content, model string) {
	t.Helper()
	var c struct {
		Model   string `json:"model"`
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(r.Body, &c); err != nil || len(c.Choices) == 0 {
		t.Fatalf("not a chat completion (%v): %s", err, r.Body)
	}
	return c.Choices[0].Message.Content, c.Model
}

// wantStatus fails unless r has status.
func (r reply) wantStatus(t *testing.T, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
}

// get fetches path and decodes its JSON.
func (g *gateway) getJSON(t *testing.T, path string, v any, headers ...string) {
	t.Helper()
	r := g.raw(t, http.MethodGet, path, "", headers...)
	r.wantStatus(t, 200)
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("%s: %v: %s", path, err, r.Body)
	}
}

// health is GET /v1/health.
func (g *gateway) health(t *testing.T) testutil.Health {
	t.Helper()
	var h testutil.Health
	g.getJSON(t, "/v1/health", &h)
	return h
}

// skipped returns "target/provider: reason" for every skip of d.
func skipped(d *decision.Decision) []string {
	var out []string
	for _, s := range d.Skipped {
		out = append(out, s.Target+"/"+s.Provider+": "+s.Reason)
	}
	return out
}

// wantSkip fails unless d skipped target/provider with a reason containing reason.
func wantSkip(t *testing.T, d *decision.Decision, ep, reason string) {
	t.Helper()
	for _, s := range d.Skipped {
		if s.Target+"/"+s.Provider == ep && strings.Contains(s.Reason, reason) {
			return
		}
	}
	t.Errorf("no skip of %s for %q; skipped: %q", ep, reason, skipped(d))
}

// waitCalls waits (up to 30s, a failure guard) until fake has received n
// requests.
func waitCalls(t *testing.T, fake *upstreamtest.Server, n int) {
	t.Helper()
	for start := time.Now(); fake.Calls() < n; time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > 30*time.Second {
			t.Fatalf("the fake got %d calls, want %d", fake.Calls(), n)
		}
	}
}

// waitState waits (up to 30s, a failure guard) until /v1/health shows
// endpoint target/provider in state, e.g. "probing" once its cooldown has
// passed.
func waitState(t *testing.T, g *gateway, target, provider, state string) {
	t.Helper()
	waitEndpoint(t, g, target, provider, "in state "+state, func(state0 string, _ int) bool { return state0 == state })
}

// waitFailures waits (up to 30s) until /v1/health counts n failures of
// target/provider: the attempt that failed is over and recorded.
func waitFailures(t *testing.T, g *gateway, target, provider string, n int) {
	t.Helper()
	waitEndpoint(t, g, target, provider, fmt.Sprintf("with %d failures", n), func(_ string, f int) bool { return f == n })
}

func waitEndpoint(t *testing.T, g *gateway, target, provider, what string, cond func(state string, failures int) bool) {
	t.Helper()
	for start := time.Now(); ; time.Sleep(20 * time.Millisecond) {
		h := g.health(t)
		for _, e := range h.Endpoints {
			if e.Target == target && e.Provider == provider && cond(e.State, e.Failures) {
				return
			}
		}
		if time.Since(start) > 30*time.Second {
			t.Fatalf("endpoint %s/%s never showed %s: %+v", target, provider, what, h.Endpoints)
		}
	}
}

// twoTargets is route r over target a (provider p) then target b (provider q).
// oneTarget is route r over target a through provider p alone.
const oneTarget = `
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: ` + secret + `}
targets:
  - {name: a, model: model-a, providers: [p]}
routes:
  - {name: r, targets: [a]}
`

const twoTargets = `
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: ` + secret + `}
  - {name: q, dialect: openai, base_url: "{q}", api_key: ` + secret + `}
targets:
  - {name: a, model: model-a, providers: [p]}
  - {name: b, model: model-b, providers: [q]}
routes:
  - {name: r, targets: [a, b]}
`

// startQuotaThenOK serves route deep: claude on an Anthropic workspace out of
// its usage limit (a quota answer, from the corpus), then gpt, which answers.
// extra is YAML put before the providers.
func startQuotaThenOK(t *testing.T, extra string) *gateway {
	t.Helper()
	fs := fakes(t, map[string]upstreamtest.Script{
		"capped": script(corpus(t, "anthropic-workspace-usage-limits")),
		"up":     script(ok("gpt-4o", "hi")),
	})
	return start(t, extra+`
providers:
  - {name: capped, dialect: anthropic, base_url: "{capped}", api_key: `+secret+`}
  - {name: up, dialect: openai, base_url: "{up}", api_key: `+secret+`}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [capped]}
  - {name: gpt, model: gpt-4o, providers: [up]}
routes:
  - {name: deep, targets: [claude, gpt]}
`, fs)
}

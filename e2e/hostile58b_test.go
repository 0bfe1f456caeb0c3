package e2e

import (
	"bytes"
	"log/slog"
	"net"
	"net/http"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"sync/atomic"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/clienttest"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

type h58bLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *h58bLog) Write(p []byte) (int, error) { l.mu.Lock(); defer l.mu.Unlock(); return l.b.Write(p) }
func (l *h58bLog) String() string              { l.mu.Lock(); defer l.mu.Unlock(); return l.b.String() }

// TestHostile58bRefusalNoteAfterReloadRaisedTheCap: operator review 58's
// info line ("client key refused by its limit: the first refusal of this
// window") answers "when were we refused, and at what standing". The
// notes remember (key, limit) until the window turns, whatever the cap:
// an operator who raises team-b's daily budget by a reload after its
// first refusal, and sees team-b refused again at the new cap the same
// day, finds no line for the second refusal — the log says team-b was
// refused once, at the old cap, and the question the line exists for
// ("we were refused but had budget left?") has the wrong answer.
func TestHostile58bRefusalNoteAfterReloadRaisedTheCap(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"openai": script(ok("gpt-4o", "a"), ok("gpt-4o", "b"), ok("gpt-4o", "c"), ok("gpt-4o", "d"))})
	cfg := func(cap string) string {
		return strings.ReplaceAll(`
client_keys:
  - {name: team-b, key: key-team-b-0123456789, budget: {usd_per_day: `+cap+`}}
providers:
  - {name: p, dialect: openai, base_url: "{openai}", api_key: `+secret+`}
targets:
  - {name: gpt, model: gpt-4o, providers: [p], price: {input: 2.50, output: 10.00}}
routes:
  - {name: deep, targets: [gpt]}
`, "{openai}", fs["openai"].URL)
	}
	var logs h58bLog
	url, a := gatewaytest.Start(t, gatewaytest.Config(t, cfg("0.00003")), app.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	g := &gateway{URL: url, app: a}
	auth := []string{"Authorization", "Bearer key-team-b-0123456789"}
	// Each answer costs 5 × $2.50/M + 2 × $10/M = $0.0000325.
	if r := g.post(t, "deep", "", auth...); r.Status != http.StatusOK {
		t.Fatalf("first request: %d %s", r.Status, r.Body)
	}
	if r := g.post(t, "deep", "", auth...); r.Status != http.StatusTooManyRequests {
		t.Fatalf("second request: %d, want 429 past $0.00003", r.Status)
	}
	if err := a.Reload(gatewaytest.Config(t, cfg("0.00006"))); err != nil {
		t.Fatal(err)
	}
	if r := g.post(t, "deep", "", auth...); r.Status != http.StatusOK {
		t.Fatalf("after the cap was raised to $0.00006: %d %s", r.Status, r.Body)
	}
	if r := g.post(t, "deep", "", auth...); r.Status != http.StatusTooManyRequests {
		t.Fatalf("fourth request: %d, want 429 past $0.00006", r.Status)
	}
	var notes []string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "client key refused by its limit") {
			notes = append(notes, l)
		}
	}
	t.Logf("%d notes:\n%s", len(notes), strings.Join(notes, "\n"))
	if len(notes) != 2 {
		t.Errorf("team-b was refused at $0.00003 and, after a reload raised the cap, again at $0.00006: %d info line(s), want 2 (the log shows no refusal at the new cap)", len(notes))
	}
}

// TestHostile58bLangChainAnthropicLosesContextOverflowOnSplit: the vLLM
// and OpenAI answers that give a split (corpus vllm-maximum-context-
// length-6048, ogx-ai/ogx#4534; openai-context-length-completion-legacy,
// yakGPT/yakGPT#13) are now told at the Messages door as "input length
// and `max_tokens` exceed context limit: …" with no "prompt is too long"
// in them. @langchain/anthropic 1.5.11 (dist/utils/errors.js
// wrapAnthropicClientError) raises ContextOverflowError only on a 400
// whose message includes "prompt is too long" — the error LangChain's
// agents summarise on. Before round 58 these reached it as "prompt is
// too long: …" and it raised ContextOverflowError; now a plain error.
func TestHostile58bLangChainAnthropicLosesContextOverflowOnSplit(t *testing.T) {
	for _, name := range []string{"vllm-maximum-context-length-6048", "openai-context-length-completion-legacy"} {
		t.Run(name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{
				"gpt": script(corpus(t, name)), "claude": script(corpus(t, name)), "gem": script(corpus(t, name)),
			})
			g := start(t, c50eCfg, fs)
			status, typ, msg := p58Messages(t, g, "via-gpt")
			t.Logf("Messages door: %d %s %q", status, typ, msg)
			res := c50eRunNode(t, g.URL, "via-gpt", "lc_anthropic")
			lc := res["lc_anthropic"]
			if lc.Error == nil || !lc.Error.Overflow {
				t.Errorf("@langchain/anthropic: %+v after %d requests, want ContextOverflowError (it was before round 58)", lc.Error, lc.Attempts)
			}
		})
	}
}

// TestHostile58bCheckBothWordingsServeBothClients is not a finding: it
// checks the fix F10 suggests, with the real clients. A native Anthropic
// target answers Anthropic's own "exceed context limit" body (corpus
// anthropic-input-length-and-max-tokens-exceed-context-limit) with
// "prompt is too long" added to its tail (the door passes Anthropic's own
// words unchanged, so this is what a door wording holding both would look
// like to the clients). Claude Code must still send the turn again with a
// lower max_tokens, and @langchain/anthropic must raise
// ContextOverflowError.
func TestHostile58bCheckBothWordingsServeBothClients(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the Claude Code CLI")
	}
	both := corpus(t, "anthropic-input-length-and-max-tokens-exceed-context-limit")
	both.Body = strings.Replace(both.Body, ", decrease input length", " (prompt is too long for the max_tokens asked), decrease input length", 1)
	var calls atomic.Int32
	claude := func(n int, r upstreamtest.Request) upstreamtest.Step {
		if calls.Add(1) == 1 {
			return both
		}
		return upstreamtest.Step{Events: anthropicStream([]string{"hello ", "from claude"})}
	}
	fs := fakes(t, map[string]upstreamtest.Script{"gpt": script(both), "claude": claude, "gem": script(both)})
	g := start(t, c50eCfg, fs)
	res := clienttest.RunClaude(t, g.URL, "say hi", clienttest.Options{Args: []string{"--model", "via-claude"}})
	t.Logf("Claude Code: upstream calls %d; stdout %.300s", calls.Load(), res.Stdout)
	if calls.Load() < 2 {
		t.Errorf("Claude Code did not send the turn again on the combined wording")
	}
	fs2 := fakes(t, map[string]upstreamtest.Script{"gpt": script(both), "claude": script(both), "gem": script(both)})
	g2 := start(t, c50eCfg, fs2)
	lc := c50eRunNode(t, g2.URL, "via-claude", "lc_anthropic")["lc_anthropic"]
	if lc.Error == nil || !lc.Error.Overflow {
		t.Errorf("@langchain/anthropic on the combined wording: %+v, want ContextOverflowError", lc.Error)
	}
}

// TestHostile58bA501EverywhereNeverCools: a careless operator's
// base_url points at a port where a plain web server listens — here
// CPython's own http.server (python3 -m http.server), which answers every
// POST with 501 "Unsupported method ('POST')" (BaseHTTPRequestHandler:
// no do_POST). Before round 58 a 501 was server_error: counted, the
// endpoint cooled after failure_threshold (3) and the requests went
// straight to the working endpoint. rules58 made 501 unknown ("an API
// this endpoint does not implement … no longer cools the endpoint"):
// unknown is not counted and cools nothing, so every request, for ever,
// goes to the dead endpoint first, and nothing tells the operator
// (no cooldown, no page).
func TestHostile58bA501EverywhereNeverCools(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	py := exec.Command("python3", "-m", "http.server", "--bind", "127.0.0.1", port, "--directory", t.TempDir())
	var pyLog h58bLog
	py.Stderr = &pyLog
	if err := py.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { py.Process.Kill(); py.Wait() }()
	for i := 0; i < 50; i++ {
		if c, err := net.Dial("tcp", "127.0.0.1:"+port); err == nil {
			c.Close()
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	fs := fakes(t, map[string]upstreamtest.Script{"openai": func(n int, r upstreamtest.Request) upstreamtest.Step { return ok("gpt-4o", "fine") }})
	g := start(t, `
client_keys: [test]
providers:
  - {name: typo, dialect: openai, base_url: "http://127.0.0.1:`+port+`/v1", api_key: `+secret+`}
  - {name: good, dialect: openai, base_url: "{openai}", api_key: `+secret+`}
targets:
  - {name: gpt, model: gpt-4o, providers: [typo, good]}
routes:
  - {name: deep, targets: [gpt]}
`, fs)
	const n = 8
	for i := 0; i < n; i++ {
		if r := g.post(t, "deep", "", "Authorization", "Bearer test"); r.Status != http.StatusOK {
			t.Fatalf("request %d: %d %s", i, r.Status, r.Body)
		}
	}
	toTypo := 0
	for i := 1; i <= n; i++ {
		d := g.recs.wait(t, i)
		for _, a := range d.Attempts {
			if a.Provider == "typo" {
				toTypo++
				if i == 1 {
					t.Logf("attempt at typo: status %d class %s evidence %q counted %v", a.Status, a.Class, a.Evidence, a.Counted)
				}
			}
		}
	}
	t.Logf("python http.server saw: %.300s", pyLog.String())
	if toTypo > 3 {
		t.Errorf("%d of %d requests went to the endpoint that answers every POST with 501 first; a dead endpoint should cool after failure_threshold (3), as it did when 501 was server_error", toTypo, n)
	}
}

// TestHostile58bA415IsNotTheClients: Detour writes the upstream request's
// Content-Type itself (application/json for the JSON dialects); the
// client's is not forwarded. So an upstream 415 says the endpoint does
// not take what Detour sends it (a base_url at the wrong service, a
// proxy that wants another media type) — never something the client can
// change. rules58 reads a 415 as bad_request: the walk stops at that
// endpoint and the client is told 415, where the next endpoint of the
// same target would have served it.
func TestHostile58bA415IsNotTheClients(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"strict": func(n int, r upstreamtest.Request) upstreamtest.Step {
			return upstreamtest.Step{Status: http.StatusUnsupportedMediaType}
		},
		"openai": func(n int, r upstreamtest.Request) upstreamtest.Step { return ok("gpt-4o", "fine") },
	})
	g := start(t, `
client_keys: [test]
providers:
  - {name: strict, dialect: openai, base_url: "{strict}", api_key: `+secret+`}
  - {name: good, dialect: openai, base_url: "{openai}", api_key: `+secret+`}
targets:
  - {name: gpt, model: gpt-4o, providers: [strict, good]}
routes:
  - {name: deep, targets: [gpt]}
`, fs)
	r := g.post(t, "deep", "", "Authorization", "Bearer test")
	d := g.recs.wait(t, 1)
	for _, a := range d.Attempts {
		t.Logf("attempt %s: %d %s %q", a.Provider, a.Status, a.Class, a.Evidence)
	}
	if r.Status != http.StatusOK {
		t.Errorf("a bare 415 from the first endpoint (to Detour's own application/json): client told %d %s; the next endpoint would have served it", r.Status, r.Body)
	}
}

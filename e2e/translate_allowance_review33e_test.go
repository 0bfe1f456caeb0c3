package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 33e. The Messages and Responses doors translate a body into chat
// by decoding it whole. For a body of many small blocks that costs dozens
// of times the body (measured: up to 49× in total allocation for 1 MiB of
// one-letter input items), none of it counted in max_inflight_body_bytes:
// a handful of such requests, each well inside the allowance, took hundreds
// of MiB. The translation now reserves its measured cost from the allowance
// (docs/config.md, "max_inflight_body_bytes").
//
// Review 35a. As first built, a translation past the allowance ran only when
// its request was the only one holding any: one small request in flight
// refused every Messages body above a tenth of the allowance, for as long
// as traffic lasted, even one that went to Anthropic as sent. One request
// at a time may now overdraw the allowance by its translation; the refusal
// while another does is tested in internal/server (allowance_test.go).

const allowanceCfg = "max_body_bytes: 1048576\nmax_inflight_body_bytes: 4194304\n" + `
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: ` + secret + `}
targets:
  - {name: a, model: model-a, providers: [p]}
`

// holder keeps one request of 900 KiB in flight, its body held in the
// allowance, until finish: its upstream's first call waits.
type holder struct {
	model   string
	release chan struct{}
	first   chan reply
}

func newHolder(model string) *holder {
	return &holder{model: model, release: make(chan struct{}), first: make(chan reply, 1)}
}

// script is the holding upstream's.
func (h *holder) script(n int, _ upstreamtest.Request) upstreamtest.Step {
	if n == 1 {
		<-h.release
	}
	return ok(h.model, "held")
}

// hold sends the request for route to g and waits until up has it.
func (h *holder) hold(t *testing.T, g *gateway, up *upstreamtest.Server, route string) {
	big := `{"model":"` + route + `","messages":[{"role":"user","content":"` + strings.Repeat("x", 900<<10) + `"}]}`
	go func() {
		h.first <- g.send(t, http.MethodPost, "/v1/chat/completions", big, "Content-Type", "application/json")
	}()
	waitCalls(t, up, 1)
}

// finish lets the held request end, and checks it was served.
func (h *holder) finish(t *testing.T) {
	t.Helper()
	close(h.release)
	if f := <-h.first; f.Status != http.StatusOK {
		t.Fatalf("the held request: %d %.200s", f.Status, f.Body)
	}
}

// tinyBlocks is a door request of about n bytes made of one-letter blocks.
func tinyBlocks(door string, n int) string {
	if door == "/v1/messages" {
		unit := `{"type":"text","text":"a"},`
		return `{"model":"a","max_tokens":16,"messages":[{"role":"user","content":[` +
			strings.TrimSuffix(strings.Repeat(unit, n/len(unit)), ",") + `]}]}`
	}
	unit := `{"role":"user","content":"a"},`
	return `{"model":"a","input":[` + strings.TrimSuffix(strings.Repeat(unit, n/len(unit)), ",") + `]}`
}

func TestDoorTranslationPastTheAllowanceIsServedBesideOthers(t *testing.T) {
	for _, door := range []string{"/v1/messages", "/v1/responses"} {
		t.Run(strings.TrimPrefix(door, "/v1/"), func(t *testing.T) {
			h := newHolder("model-a")
			fs := fakes(t, map[string]upstreamtest.Script{"p": h.script})
			g := start(t, allowanceCfg, fs)
			h.hold(t, g, fs["p"], "a")

			// 300 KiB of one-letter blocks: its body fits beside the first
			// request's 900 KiB, its translation (~20 MiB) does not.
			r := g.send(t, http.MethodPost, door, tinyBlocks(door, 300<<10), "Content-Type", "application/json", "X-Api-Key", "k")
			if r.Status != http.StatusOK {
				t.Errorf("a translation past the allowance beside another request: status %d, want 200: %.300s", r.Status, r.Body)
			}
			// And the overdraft refused no one: a small request beside it
			// is served as before.
			small := tinyBlocks(door, 100)
			if r := g.send(t, http.MethodPost, door, small, "Content-Type", "application/json", "X-Api-Key", "k"); r.Status != http.StatusOK {
				t.Errorf("a small request after it: %d: %.300s", r.Status, r.Body)
			}
			h.finish(t)
		})
	}
}

// The same holds for the translation into a provider's dialect, made at
// each attempt: a chat body of one-letter turns cost 54× its size on its
// way to an Anthropic target, none of it counted. Beside a held request, a
// translation past the allowance is made (as the overdraft), and a large
// Messages body of plain text goes to Anthropic as sent (review 35a).
func TestDialectTranslationPastTheAllowanceIsServedBesideOthers(t *testing.T) {
	h := newHolder("model-h")
	fs := fakes(t, map[string]upstreamtest.Script{
		"hold":      h.script,
		"anthropic": func(int, upstreamtest.Request) upstreamtest.Step { return claudeAnswer() },
		"q":         func(int, upstreamtest.Request) upstreamtest.Step { return ok("model-b", "b") },
	})
	cfg := "max_body_bytes: 1048576\nmax_inflight_body_bytes: 4194304\n" + `
providers:
  - {name: hold, dialect: openai, base_url: "{hold}", api_key: ` + secret + `}
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
  - {name: q, dialect: openai, base_url: "{q}", api_key: ` + secret + `}
targets:
  - {name: h, model: model-h, providers: [hold]}
  - {name: claude, model: claude-x, providers: [anthropic]}
  - {name: b, model: model-b, providers: [q]}
routes:
  - {name: r, targets: [claude, b]}
`
	g := start(t, cfg, fs)
	h.hold(t, g, fs["hold"], "h")

	unit := `{"role":"user","content":"a"},`
	turns := `{"model":"r","messages":[` + strings.TrimSuffix(strings.Repeat(unit, (300<<10)/len(unit)), ",") + `]}`
	r := g.send(t, http.MethodPost, "/v1/chat/completions", turns, "Content-Type", "application/json")
	if r.Status != http.StatusOK || r.Header.Get("X-Detour-Target") != "claude" {
		t.Errorf("route [claude, b] beside a held request: status %d, target %q, want 200 from claude: %.200s", r.Status, r.Header.Get("X-Detour-Target"), r.Body)
	}
	text := strings.Repeat("x", 500<<10)
	r = g.send(t, http.MethodPost, "/v1/messages", `{"model":"claude","max_tokens":16,"messages":[{"role":"user","content":"`+text+`"}]}`,
		"Content-Type", "application/json", "X-Api-Key", "k")
	if r.Status != http.StatusOK {
		t.Errorf("500 KiB of text to Anthropic (as sent) beside a held request: status %d, want 200: %.200s", r.Status, r.Body)
	}
	r = g.send(t, http.MethodPost, "/v1/chat/completions", `{"model":"claude","messages":[{"role":"user","content":"`+text+`"}]}`, "Content-Type", "application/json")
	if r.Status != http.StatusOK {
		t.Errorf("500 KiB of chat text to an Anthropic target beside a held request: status %d, want 200: %.200s", r.Status, r.Body)
	}
	h.finish(t)
}

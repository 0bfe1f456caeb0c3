package e2e

import (
	"net/http"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A request its last failure's class stops — not a budget, not the
// deadline — names the targets it did not go on to, and why: here a gone
// model on an ordered route (unavailable does not move to the next target
// there by default) names the healthy backup and the tail. Before, the
// record held the one attempt and nothing else, so "why did it not fail
// over?" had no answer in the log (operator review 61f).
func TestStoppedByClassNamesTheTargetsNotMovedTo(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": script(corpus(t, "openrouter-no-endpoints-found-free")),
		"openai":    script(ok("gpt-4o", "spare")),
		"gemini":    script(ok("gemini-2.5-flash", "tail")),
	})
	g := start(t, `
providers:
  - {name: anthropic, dialect: openai, base_url: "{anthropic}", api_key: `+secret+`}
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: `+secret+`}
  - {name: gemini, dialect: openai, base_url: "{gemini}", api_key: `+secret+`}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: gpt, model: gpt-4o, providers: [openai]}
  - {name: flash, model: gemini-2.5-flash, providers: [gemini]}
routes:
  - {name: deep, strategy: ordered, targets: [claude, gpt], tail: [flash], tail_on: [quota, server_error, timeout]}
`, fs)
	r := g.post(t, "deep", "")
	r.wantStatus(t, http.StatusNotFound)
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "claude/anthropic unavailable stop")
	// The route writes no fallback_on: the reason says whose default it
	// is and what moves it on (review 64h: "(fallback_on)" sent a
	// newcomer looking for a setting they had never written).
	wantSkip(t, d, "gpt/openai", "not moved to: unavailable does not move to the next target by default on this route (strategy ordered; list it in the route's fallback_on to move on)")
	wantSkip(t, d, "flash/gemini", "not moved to: unavailable is not in the route's tail_on")
}

// A route that writes fallback_on is told its own list.
func TestStoppedByClassNamesTheRoutesFallbackOn(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": script(corpus(t, "openrouter-no-endpoints-found-free")),
		"openai":    script(ok("gpt-4o", "spare")),
	})
	g := start(t, `
providers:
  - {name: anthropic, dialect: openai, base_url: "{anthropic}", api_key: `+secret+`}
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: `+secret+`}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: gpt, model: gpt-4o, providers: [openai]}
routes:
  - {name: deep, strategy: fastest, targets: [claude, gpt], fallback_on: [timeout, server_error]}
`, fs)
	g.post(t, "deep", "").wantStatus(t, http.StatusNotFound)
	d := g.recs.wait(t, 1)
	wantSkip(t, d, "gpt/openai", "not moved to: unavailable is not in the route's fallback_on")
}

package e2e

import (
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Real body: classify/testdata/corpus/anthropic-workspace-usage-limits.json
// (https://github.com/anthropics/claude-code/issues/1047).
const spendCap = `{"type":"error","error":{"type":"invalid_request_error","message":"You have reached your specified workspace API usage limits. You will regain access on 2025-06-01 at 00:00 UTC."}}`

func TestSpendCapAs400FailsOverToNextTarget(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"capped": upstreamtest.Steps(upstreamtest.Step{Status: 400, Body: spendCap}),
		"backup": upstreamtest.Steps(upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o-mini", "hello")}),
	})
	g := start(t, `
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{capped}", api_key: sk-ant-secret}
  - {name: openai, dialect: openai, base_url: "{backup}", api_key: sk-openai-secret}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
routes:
  - {name: deep, targets: [claude, gpt]}
`, fs)
	r := g.post(t, "deep", "")
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	if r.Header.Get("X-Detour-Provider") != "openai" || r.Header.Get("X-Detour-Attempts") != "2" {
		t.Errorf("headers: %v", r.Header)
	}
	r.wantDate(t)
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "claude/anthropic quota next_target", "gpt/openai ok done")
	if d.Attempts[0].Evidence == "" || !d.Attempts[0].Counted || d.Attempts[0].Billable {
		t.Errorf("quota attempt: %+v", d.Attempts[0])
	}
	// The account cooled: the next request goes straight to the backup.
	g.post(t, "deep", "")
	d = g.recs.wait(t, 2)
	wantSteps(t, d, "gpt/openai ok done")
	if fs["capped"].Calls() != 1 {
		t.Errorf("capped provider called %d times, want 1", fs["capped"].Calls())
	}
}

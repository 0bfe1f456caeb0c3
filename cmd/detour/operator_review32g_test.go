package main

import (
	"bytes"
	"strings"
	"testing"
)

// Review 32g. A request the shutdown grace period ended is recorded with
// outcome "shutdown" (docs/behaviour.md, decision record): the operator
// looking for the requests a deploy cut must be able to select them.
func TestReview32gDecisionsSelectShutdownOutcome(t *testing.T) {
	log := `{"id":"5f0c0000000000aa","time":"2026-11-30T09:12:03Z","route":"deep","strategy":"ordered","stream":true,"outcome":"shutdown","status":503,"ms":30000,"attempts":[{"target":"gpt","provider":"openai","model":"gpt-4o","status":200,"action":"stop","counted":false,"billable":true,"ms":29999}],"transitions":[]}
{"id":"5f0c0000000000bb","time":"2026-11-30T09:12:04Z","route":"deep","strategy":"ordered","stream":false,"outcome":"ok","status":200,"ms":5,"attempts":[{"target":"gpt","provider":"openai","model":"gpt-4o","status":200,"action":"done","counted":false,"billable":true,"ms":4}],"transitions":[]}
`
	code, out, errOut := runD(t, log, "-f", "-", "--outcome", "shutdown")
	if code != 0 || !strings.Contains(out, "5f0c0000000000aa") || strings.Contains(out, "5f0c0000000000bb") {
		t.Errorf("detour decisions --outcome shutdown: exit %d\nstdout: %s\nstderr: %s", code, out, errOut)
	}
}

// A stream cut after its commit point is recorded with usage marked
// incomplete (a lower bound: here Anthropic's message_start count, 1 output
// token, after the client got hundreds of words). `detour usage` must not
// print that lower bound as the bill, indistinguishable from an exact one.
func TestReview32gUsageMarksIncompleteCounts(t *testing.T) {
	rec := func(incomplete string) string {
		return `{"id":"5f0c0000000000cc","time":"2026-11-30T09:12:03Z","route":"r","strategy":"ordered","api":"chat","stream":true,"outcome":"error","status":200,"class":"server_error","ms":3.5,"attempts":[{"target":"claude","provider":"anth","model":"claude-x","status":200,"class":"server_error","evidence":"stream:cut","action":"stop","counted":true,"billable":true,"ms":3.3,"usage":{"prompt_tokens":1000,"completion_tokens":1,"total_tokens":1001` + incomplete + `},"cost_usd":0.003015}],"transitions":[],"client":"team","usage":{"prompt_tokens":1000,"completion_tokens":1,"total_tokens":1001` + incomplete + `},"cost_usd":0.003015}` + "\n"
	}
	run := func(log string) string {
		var out, errb bytes.Buffer
		if code := runUsage([]string{"-f", "-"}, strings.NewReader(log), &out, &errb); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		return out.String()
	}
	exact, cut := run(rec("")), run(rec(`,"incomplete":true`))
	if exact == cut {
		t.Errorf("a cut stream's lower-bound count is billed as if exact:\n%s", cut)
	}
}

package e2e

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// With state memory a client's budget counters live in the process: a
// restart gave every key a fresh day and month, however much the decision
// log said it had spent (operator review 50: a key refused at $0.204 of
// $0.20 was served again after a restart). The spend is read back from the
// log at start.
func TestBudgetSurvivesARestart(t *testing.T) {
	log := filepath.Join(t.TempDir(), "decisions.jsonl")
	now := time.Now().UTC()
	rec := `{"id":"x1","time":"` + now.Add(-time.Minute).Format(time.RFC3339Nano) + `","route":"claude","client":"coder","outcome":"ok",` +
		`"attempts":[{"target":"claude","provider":"anthropic","billable":true,"cost_usd":1.1854675}]}` + "\n"
	if err := os.WriteFile(log, []byte(rec), 0o600); err != nil {
		t.Fatal(err)
	}
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(claudeAnswer()), "relay": script()})
	g := start(t, "decisions: {path: "+log+"}\n"+cacheCfg, fs)
	r := g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"claude","messages":[{"role":"user","content":"hi"}]}`,
		"Authorization", "Bearer key-coder")
	if r.Status != http.StatusTooManyRequests || !strings.Contains(string(r.Body), "usd_per_day") {
		t.Errorf("a key over its day's budget before the restart: %d %s", r.Status, r.Body)
	}
	if fs["anthropic"].Calls() != 0 {
		t.Errorf("the upstream was called")
	}
}

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// usageLog is a recorded log: team-a's plain request, team-a's failover
// (a cut stream of unknown cost, then the backup), ci's request from two
// days ago, and a line that is not a record.
func usageLog(t *testing.T) string {
	now := time.Now().UTC()
	recent, old := now.Add(-time.Hour).Format(time.RFC3339Nano), now.Add(-49*time.Hour).Format(time.RFC3339Nano)
	lines := []string{
		`{"id":"a1","time":"` + recent + `","route":"deep","client":"team-a","outcome":"ok","attempts":[` +
			`{"target":"gpt","provider":"openai","action":"done","billable":true,"usage":{"prompt_tokens":1000,"completion_tokens":200,"total_tokens":1200,"cached_tokens":400},"cost_usd":0.004}],` +
			`"usage":{"prompt_tokens":1000,"completion_tokens":200,"total_tokens":1200,"cached_tokens":400},"cost_usd":0.004}`,
		`{"id":"a2","time":"` + recent + `","route":"deep","client":"team-a","outcome":"ok","attempts":[` +
			`{"target":"gpt","provider":"openai","action":"next_target","billable":true,"cost_usd":null,"cost_unknown":true,"estimate":{"input_tokens":51000,"output_tokens":6,"usd":0.12756}},` +
			`{"target":"mini","provider":"backup","action":"done","billable":true,"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15},"cost_usd":0.0000045}],` +
			`"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15},"cost_usd":null,"cost_unknown":true}`,
		`{"id":"c1","time":"` + old + `","route":"cheap","client":"ci","outcome":"ok","attempts":[` +
			`{"target":"mini","provider":"backup","action":"done","billable":true,"usage":{"prompt_tokens":100,"completion_tokens":50,"total_tokens":150},"cost_usd":0.000045}]}`,
		`not json`,
		``,
	}
	p := filepath.Join(t.TempDir(), "decisions.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func runUsageT(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"usage"}, args...), strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

// fields splits a table into rows of cells.
func fields(table string) [][]string {
	var out [][]string
	for _, l := range strings.Split(strings.TrimSpace(table), "\n") {
		out = append(out, strings.Fields(l))
	}
	return out
}

func wantTable(t *testing.T, got string, want ...string) {
	t.Helper()
	rows := fields(got)
	if len(rows) != len(want) {
		t.Fatalf("table:\n%s\nwant %d rows", got, len(want))
	}
	for i, w := range want {
		if strings.Join(rows[i], " ") != w {
			t.Errorf("row %d = %q, want %q\n%s", i, strings.Join(rows[i], " "), w, got)
		}
	}
}

func TestUsageByClient(t *testing.T) {
	p := usageLog(t)
	out, errOut, code := runUsageT(t, "-f", p)
	if code != 0 || !strings.Contains(errOut, "skipped 1 line") {
		t.Fatalf("code %d, stderr %q", code, errOut)
	}
	wantTable(t, out,
		"CLIENT REQUESTS INPUT CACHED CACHE_WRITE OUTPUT COST_USD UNKNOWN EST_USD FAILOVERS",
		"team-a 2 610 400 0 205 0.004005 1 0.127560 1",
		"ci 1 100 0 0 50 0.000045 0 0.000000 0",
		"TOTAL 3 710 400 0 255 0.004050 1 0.127560 1")
	out, _, _ = runUsageT(t, "-f", p, "--since", "24h")
	wantTable(t, out,
		"CLIENT REQUESTS INPUT CACHED CACHE_WRITE OUTPUT COST_USD UNKNOWN EST_USD FAILOVERS",
		"team-a 2 610 400 0 205 0.004005 1 0.127560 1",
		"TOTAL 2 610 400 0 205 0.004005 1 0.127560 1")
}

func TestUsageByTargetAndDay(t *testing.T) {
	p := usageLog(t)
	out, _, _ := runUsageT(t, "-f", p, "--by", "target")
	wantTable(t, out,
		"TARGET REQUESTS INPUT CACHED CACHE_WRITE OUTPUT COST_USD UNKNOWN EST_USD FAILOVERS",
		"gpt 2 600 400 0 200 0.004000 1 0.127560 1",
		"mini 2 110 0 0 55 0.000050 0 0.000000 0",
		"TOTAL - 710 400 0 255 0.004050 1 0.127560 1")
	out, _, _ = runUsageT(t, "-f", p, "--by", "day")
	rows := fields(out)
	if len(rows) != 4 || rows[1][1] != "1" || rows[2][1] != "2" || rows[1][0] >= rows[2][0] {
		t.Errorf("by day, oldest first:\n%s", out)
	}
}

func TestUsageErrors(t *testing.T) {
	if _, errOut, code := runUsageT(t); code != 2 || !strings.Contains(errOut, "usage: detour usage -f") {
		t.Errorf("no -f: %d %q", code, errOut)
	}
	if _, errOut, code := runUsageT(t, "-f", "x", "--by", "model"); code != 2 || !strings.Contains(errOut, "--by must be") {
		t.Errorf("bad --by: %d %q", code, errOut)
	}
	if _, errOut, code := runUsageT(t, "-f", filepath.Join(t.TempDir(), "none.jsonl")); code != 1 || !strings.Contains(errOut, "no such file") {
		t.Errorf("missing file: %d %q", code, errOut)
	}
}

// A row none of whose attempts has a price (no target priced, so records
// carry no cost_usd) shows "-", not a cost of 0: a bill is never a silent
// zero. A row with a priced attempt shows its sum.
func TestUsageUnpricedIsNotZero(t *testing.T) {
	recent := time.Now().UTC().Add(-time.Minute).Format(time.RFC3339Nano)
	lines := `{"id":"u1","time":"` + recent + `","route":"free","client":"team-a","outcome":"ok","attempts":[` +
		`{"target":"llama","provider":"local","action":"done","billable":true,"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}}]}
{"id":"u2","time":"` + recent + `","route":"deep","client":"ci","outcome":"ok","attempts":[` +
		`{"target":"gpt","provider":"openai","action":"done","billable":true,"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15},"cost_usd":0}]}
`
	p := filepath.Join(t.TempDir(), "decisions.jsonl")
	if err := os.WriteFile(p, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, _ := runUsageT(t, "-f", p)
	wantTable(t, out,
		"CLIENT REQUESTS INPUT CACHED CACHE_WRITE OUTPUT COST_USD UNKNOWN EST_USD FAILOVERS",
		"ci 1 10 0 0 5 0.000000 0 0.000000 0",
		"team-a 1 10 0 0 5 - 0 - 0",
		"TOTAL 2 20 0 0 10 0.000000 0 0.000000 0")
}

// Input written to the prompt cache has its own column, out of INPUT, as
// the record prices it apart (docs/config.md, "Usage and cost"); a count
// past the prompt is shown no larger than the prompt.
func TestUsageCacheWrites(t *testing.T) {
	recent := time.Now().UTC().Add(-time.Minute).Format(time.RFC3339Nano)
	lines := `{"id":"w1","time":"` + recent + `","route":"claude","client":"coder","outcome":"ok","attempts":[` +
		`{"target":"claude","provider":"anthropic","action":"done","billable":true,"usage":{"prompt_tokens":188107,"completion_tokens":393,"total_tokens":188500,"cache_write_tokens":188086},"cost_usd":1.1854675}]}
{"id":"w2","time":"` + recent + `","route":"claude","client":"coder","outcome":"ok","attempts":[` +
		`{"target":"claude","provider":"anthropic","action":"done","billable":true,"usage":{"prompt_tokens":100,"completion_tokens":1,"total_tokens":101,"cached_tokens":60,"cache_write_tokens":900},"cost_usd":0.0005325}]}
`
	p := filepath.Join(t.TempDir(), "decisions.jsonl")
	if err := os.WriteFile(p, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, _ := runUsageT(t, "-f", p)
	wantTable(t, out,
		"CLIENT REQUESTS INPUT CACHED CACHE_WRITE OUTPUT COST_USD UNKNOWN EST_USD FAILOVERS",
		"coder 2 21 60 188126 394 1.186000 0 0.000000 0",
		"TOTAL 2 21 60 188126 394 1.186000 0 0.000000 0")
}

// --since takes what decisions' does, and today and month: the windows a
// client's budget counts in (operator reviews 48b and 50).
func TestUsageSinceToday(t *testing.T) {
	p := usageLog(t)
	out, errOut, code := runUsageT(t, "-f", p, "--since", "month")
	if code != 0 || !strings.Contains(out, "team-a") {
		t.Errorf("--since month: %d %q\n%s", code, errOut, out)
	}
	if _, errOut, code := runUsageT(t, "-f", p, "--since", "yesterday"); code != 2 || !strings.Contains(errOut, "today or month") {
		t.Errorf("--since yesterday: %d %q", code, errOut)
	}
}

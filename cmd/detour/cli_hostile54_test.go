package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostile54: the `detour` subcommands reading a decision log with one huge
// line (a corrupt or hostile log: a line that is not a record). `detour
// decisions` reports it ("line 2: not a decision record") and reads on;
// `detour usage` and `detour classify --suggest` stop there, so records
// after it are lost to the report.

const h54Record = `{"id":"ok1","time":"2026-12-01T00:00:00Z","route":"r","strategy":"s","stream":false,"outcome":"ok","status":200,"ms":1,"client":"team-a","attempts":[{"target":"t","provider":"p","model":"m","status":200,"action":"done","counted":false,"billable":true,"ms":1,"start_ms":0,"usage":{"input_tokens":10,"output_tokens":5}}],"transitions":[]}`

const h54Unknown = `{"id":"u1","time":"2026-12-01T00:00:01Z","route":"r","strategy":"s","stream":false,"outcome":"error","status":502,"ms":1,"attempts":[{"target":"t","provider":"p","model":"m","status":502,"class":"unknown","evidence":"status:502","message":"The upstream gateway is being rebooted by the night shift","action":"stop","counted":true,"billable":false,"ms":1,"start_ms":0}],"transitions":[]}`

func h54HugeLog(t *testing.T, huge int, after string) string {
	t.Helper()
	var b bytes.Buffer
	b.WriteString(h54Record + "\n")
	b.WriteString(`{"id":"x","message":"`)
	b.Write(bytes.Repeat([]byte("A"), huge))
	b.WriteString("\"}\n")
	b.WriteString(after + "\n")
	p := filepath.Join(t.TempDir(), "decisions.jsonl")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Observed: `detour usage: …/decisions.jsonl: bufio.Scanner: token too
// long`, exit 1, no table at all — one line of 17 MiB hides the month's
// spend, where `detour decisions` on the same file prints both records.
func TestHostile54UsageSurvivesOneHugeLine(t *testing.T) {
	p := h54HugeLog(t, 17<<20, h54Record)
	out, errs, code := runUsageT(t, "-f", p)
	t.Logf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	if !strings.Contains(out, "team-a") {
		t.Fatalf("no usage printed for a log with one huge line (exit %d): %s", code, errs)
	}
	if rows := fields(out); len(rows) < 2 || rows[1][1] != "2" {
		t.Errorf("team-a's requests: %v, want 2 (one before the huge line, one after)", rows)
	}
}

// Observed: `detour classify --suggest: line 2: bufio.Scanner: token too
// long` and "0 unknown answers": the unknown after the huge line is never
// read.
func TestHostile54SuggestReadsPastAHugeLine(t *testing.T) {
	p := h54HugeLog(t, 65<<20, h54Unknown)
	var out, errb bytes.Buffer
	code := run([]string{"classify", "--suggest", p}, strings.NewReader(""), &out, &errb)
	t.Logf("exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	if !strings.Contains(out.String(), "1 unknown answers") {
		t.Errorf("the unknown answer after the huge line was not read: %s", out.String())
	}
}

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/testutil"
)

// A log as the gateway writes it: a failover on deep (quota then ok), a
// failure on cheap, a canceled request, one older record.
const decisionLog = `{"id":"old0000000000000","time":"2026-11-29T09:00:00Z","route":"deep","strategy":"ordered","stream":false,"outcome":"ok","status":200,"ms":5,"attempts":[{"target":"gpt","provider":"openai","model":"gpt-4o","status":200,"action":"done","counted":false,"billable":true,"ms":4}],"transitions":[]}
{"id":"5f0c000000000001","time":"2026-11-30T09:12:03Z","route":"deep","strategy":"ordered","stream":false,"outcome":"ok","status":200,"ms":41.2,"attempts":[{"target":"claude","provider":"anthropic","model":"claude-sonnet-4-5","status":400,"class":"quota","evidence":"phrase:workspace api usage limits","message":"You have reached your specified workspace API usage limits. You will regain access on 2026-12-01 at 00:00 UTC.","action":"next_target","counted":true,"billable":false,"ms":12.1},{"target":"gpt","provider":"openai","model":"gpt-4o","status":200,"action":"done","counted":false,"billable":true,"ms":28.7}],"transitions":[{"scope":"account","name":"anthropic","from":"healthy","to":"cooling","class":"quota"}]}
{"id":"5f0c000000000002","time":"2026-11-30T09:13:00Z","route":"cheap","strategy":"pool","stream":true,"outcome":"error","status":500,"class":"server_error","ms":300,"attempts":[{"target":"flash","provider":"gemini","model":"gemini-2.5-flash","status":500,"class":"server_error","evidence":"status:500","action":"retry","counted":true,"billable":false,"ms":100},{"target":"flash","provider":"gemini","model":"gemini-2.5-flash","status":500,"class":"server_error","evidence":"status:500","action":"stop","counted":true,"billable":false,"ms":100}],"transitions":[]}
{"id":"5f0c000000000003","time":"2026-11-30T09:14:00Z","route":"deep","strategy":"ordered","stream":true,"outcome":"canceled","status":499,"ms":10,"attempts":[{"target":"gpt","provider":"openai","model":"gpt-4o","status":200,"action":"stop","counted":false,"billable":true,"ms":9}],"transitions":[]}
`

func runD(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runDecisions(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func logFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "decisions.jsonl")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func ids(out string) string {
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if f := strings.Fields(l); len(f) > 1 {
			got = append(got, f[1][len(f[1])-1:])
		}
	}
	return strings.Join(got, "")
}

func TestDecisionsFilters(t *testing.T) {
	p := logFile(t, decisionLog)
	for _, c := range []struct {
		args []string
		want string // last character of each id printed
	}{
		{nil, "0123"},
		{[]string{"--route", "deep"}, "013"},
		{[]string{"--class", "quota"}, "1"},
		{[]string{"--class", "server_error"}, "2"},
		{[]string{"--outcome", "canceled"}, "3"},
		{[]string{"--id", "5f0c000000000002"}, "2"},
		{[]string{"--class", "canceled"}, "3"},
		{[]string{"--since", "2026-11-30T09:13:00Z"}, "23"},
		{[]string{"--route", "deep", "--outcome", "ok", "--since", "2026-11-30T00:00:00Z"}, "1"},
	} {
		code, out, errs := runD(t, "", append([]string{"-f", p}, c.args...)...)
		if code != 0 || ids(out) != c.want {
			t.Errorf("%v: exit %d, printed %q, want %q\n%s%s", c.args, code, ids(out), c.want, out, errs)
		}
	}
	// One line tells the failover: each attempt, its class and evidence, and the move.
	_, out, _ := runD(t, "", "-f", p, "--class", "quota")
	want := "2026-11-30T09:12:03.000Z  5f0c000000000001  chat  deep  ok 200  41.2ms  | claude/anthropic 400 quota (phrase:workspace api usage limits) \"You have reached your specified workspace API usage limits. You will regain access on 2026-12-01 at 00:00 UTC.\" next_target  | gpt/openai 200 ok done  | account anthropic healthy→cooling\n"
	if out != want {
		t.Errorf("line:\n got %q\nwant %q", out, want)
	}
	// --json prints the lines as they are in the file; stdin with -f -.
	_, out, _ = runD(t, decisionLog, "-f", "-", "--json", "--outcome", "error")
	if out != strings.Split(decisionLog, "\n")[2]+"\n" {
		t.Errorf("--json: %q", out)
	}
}

func TestDecisionsSince(t *testing.T) {
	now := time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	if got, _ := parseSince("15m", now); !got.Equal(now.Add(-15 * time.Minute)) {
		t.Errorf("15m: %v", got)
	}
	if _, err := parseSince("yesterday", now); err == nil || !strings.Contains(err.Error(), "15m") {
		t.Errorf("a bad --since: %v", err)
	}
}

func TestDecisionsSummary(t *testing.T) {
	code, out, errs := runD(t, "", "-f", logFile(t, decisionLog), "--summary")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	want := []string{
		"requests by route; each class column counts attempts",
		"route requests not ok ok quota server_error canceled",
		"cheap 1 1 0 0 2 0",
		"deep 3 1 2 1 0 1",
		"total 4 2 2 1 2 1",
		"",
		// Which provider the failures were (operator review 57).
		"provider attempts not ok ok quota server_error canceled",
		"anthropic 1 1 0 1 0 0",
		"gemini 2 2 0 0 2 0",
		"openai 3 1 2 0 0 1",
	}
	got := strings.Split(strings.TrimSpace(out), "\n")
	for i := range got {
		got[i] = strings.Join(strings.Fields(got[i]), " ")
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("summary:\n%s\nwant\n%s", out, strings.Join(want, "\n"))
	}
}

func TestDecisionsErrors(t *testing.T) {
	p := logFile(t, decisionLog+"{broken\n")
	code, out, errs := runD(t, "", "-f", p)
	if code != 1 || ids(out) != "0123" || !strings.Contains(errs, "line 5: not a decision record") {
		t.Errorf("a bad line: exit %d, %q, %q (want every good record printed, the bad line named, exit 1)", code, ids(out), errs)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--class", "qouta"}, `unknown class "qouta"`},
		{[]string{"--outcome", "fine"}, `unknown outcome "fine"`},
		{[]string{"--api", "anthropic"}, `unknown api "anthropic" (want one of chat, messages, responses, embeddings, completions, gemini)`},
		{[]string{"--since", "soon"}, "--since"},
		{[]string{"--summary", "--follow"}, "cannot be combined"},
		{[]string{"-f", "-", "--follow"}, "needs a file"},
		{[]string{"extra"}, "unexpected argument"},
	} {
		code, _, errs := runD(t, "", c.args...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, %q (want 2 and %q)", c.args, code, errs, c.want)
		}
	}
	if code, _, errs := runD(t, "", "-f", filepath.Join(t.TempDir(), "none.jsonl")); code != 1 || !strings.Contains(errs, "no such file") {
		t.Errorf("a missing file: exit %d, %q", code, errs)
	}
}

// Each line names the door its request came through, --api keeps one door's
// requests (a record without api is chat: it was written before doors),
// and --summary counts by door when there were several (operator review
// 69l: with four client APIs, which clients a failure hit).
func TestDecisionsAPI(t *testing.T) {
	log := strings.Replace(decisionLog, `"id":"5f0c000000000002",`, `"id":"5f0c000000000002","api":"gemini",`, 1)
	log = strings.Replace(log, `"id":"5f0c000000000003",`, `"id":"5f0c000000000003","api":"messages",`, 1)
	p := logFile(t, log)
	code, out, errs := runD(t, "", "-f", p)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doors []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		doors = append(doors, strings.Fields(l)[2])
	}
	if got := strings.Join(doors, " "); got != "chat chat gemini messages" {
		t.Errorf("the api column: %q\n%s", got, out)
	}
	for _, c := range []struct{ api, want string }{{"chat", "01"}, {"gemini", "2"}, {"messages", "3"}, {"responses", ""}} {
		code, out, errs := runD(t, "", "-f", p, "--api", c.api)
		if code != 0 || ids(out) != c.want {
			t.Errorf("--api %s: exit %d, printed %q, want %q\n%s%s", c.api, code, ids(out), c.want, out, errs)
		}
	}
	_, out, _ = runD(t, "", "-f", p, "--summary")
	got := strings.Split(strings.TrimSpace(out), "\n")
	for i := range got {
		got[i] = strings.Join(strings.Fields(got[i]), " ")
	}
	want := []string{
		"api requests not ok ok quota server_error canceled",
		"chat 2 0 2 1 0 0",
		"messages 1 1 0 0 0 1",
		"gemini 1 1 0 0 2 0",
	}
	if len(got) < len(want) || strings.Join(got[len(got)-len(want):], "\n") != strings.Join(want, "\n") {
		t.Errorf("summary's api table:\n%s\nwant it to end\n%s", out, strings.Join(want, "\n"))
	}
	// One door: no api table (it would repeat the total).
	if _, out, _ = runD(t, "", "-f", logFile(t, decisionLog), "--summary"); strings.Contains(out, "api ") {
		t.Errorf("one door's summary has an api table:\n%s", out)
	}
}

// --follow prints what is appended, as it is appended, with the filters.
func TestDecisionsFollow(t *testing.T) {
	lines := strings.SplitAfter(decisionLog, "\n")
	p := logFile(t, lines[0]+lines[1])
	var out, errb testutil.Buffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() {
		done <- runDecisionsContext(ctx, []string{"-f", p, "--follow", "--route", "deep"}, nil, &out, &errb)
	}()
	waitOut := func(want string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); ids(out.String()) != want; { // a failure guard
			if time.Now().After(deadline) {
				t.Fatalf("followed %q, want %q (%s)", ids(out.String()), want, errb.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitOut("01")
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(lines[2] + lines[3])
	f.Close()
	waitOut("013")
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("exit %d: %s", code, errb.String())
	}
}

// A stream continued after a cut reads as one: the attempt that continued
// it says how and after how much of the answer the client had, not as a
// failover before any answer (operator review 48b).
func TestDecisionLineSaysAContinuation(t *testing.T) {
	d := &decision.Decision{ID: "d1", Route: "cont", Outcome: "ok", Status: 200, Attempts: []decision.Attempt{
		{Target: "c", Provider: "oa-c", Status: 200, Class: "server_error", Evidence: "stream:eof-no-finish", Action: "next_target"},
		{Target: "b", Provider: "oa-b", Status: 200, Action: "done", Continuation: &decision.Continuation{N: 1, Mode: "replay", OffsetChars: 15, CutClass: "server_error"}},
	}}
	if line := formatRecord(d); !strings.Contains(line, "| continued by replay after 15 chars: b/oa-b 200") {
		t.Errorf("%s", line)
	}
}

// A failed attempt's line carries the upstream's words: why it failed, at
// a glance (operator review 50).
func TestDecisionLineSaysTheUpstreamsWords(t *testing.T) {
	_, out, _ := runD(t, "", "-f", logFile(t, decisionLog), "--class", "quota")
	if !strings.Contains(out, `(phrase:workspace api usage limits) "You have reached your specified workspace API usage limits.`) {
		t.Errorf("line: %s", out)
	}
}

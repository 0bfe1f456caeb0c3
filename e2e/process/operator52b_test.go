package process

// Operator probe 52b (an operator who inherited a Detour deployment answers the questions an
// incident asks with what Detour gives them: the decision log through `detour decisions`, the
// console, /v1/health, /metrics, traces). Each test fails now.

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// payTwiceGateway serves route r = [gpt, gem]: gpt's provider answers only after its `timeout`
// (a timeout after the request was sent: billable, docs/behaviour.md#budgets), gem answers. One
// failure cools gpt (failure_threshold 1) for 40s. It returns the gateway and the id of a
// request that paid twice (gpt's billable timeout, then gem's answer).
func payTwiceGateway(t *testing.T) (*gateway, string) {
	t.Helper()
	slow := fake(t, upstreamtest.Step{Delay: 3 * time.Second, Body: upstreamtest.ChatJSON("gpt-4o", "late")})
	good := fake(t, ok("gemini-2.5-flash"))
	g := startGateway(t, "op52b", render(`
log: {format: json}
health: {failure_threshold: 1, cooldown: 40s}
providers:
  - {name: openai, dialect: openai, base_url: "{slow}", api_key: sk-test-openai, timeout: 1s}
  - {name: other, dialect: openai, base_url: "{good}", api_key: sk-test-other}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai], price: {input: 2.5, output: 10}}
  - {name: gem, model: gemini-2.5-flash, providers: [other], price: {input: 0.3, output: 2.5}}
routes:
  - {name: r, targets: [gpt, gem]}
`, map[string]string{"slow": slow.URL, "good": good.URL}))
	r := g.postOK("r")
	id := r.Header.Get("X-Detour-Decision")
	d := g.decision(id)
	if len(d.Attempts) != 2 || !d.Attempts[0].Billable || !d.Attempts[1].Billable {
		t.Fatalf("setup: want two billable attempts (a timeout after sending, then an answer): %v", attempts(d))
	}
	return g, id
}

func runDecisions(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(detourBin, append([]string{"decisions"}, args...)...)
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

// "Did any request pay twice?" A request whose first attempt timed out after it was sent (the
// provider generated, and bills, it) and whose second was answered was paid for twice; the
// record knows (`billable: true` on both attempts; docs/config.md: `max_billable_attempts` exists
// for exactly this). Observed (live, /work/operator52b): `detour decisions` prints
//
//	2026-12-06T04:55:08.183Z  76a5c98ff93892d8  fast  ok 200  2002.4ms  team-c  | gpt/openai 0 timeout (timeout:headers) next_target  | gem/gemini 200 ok done  | endpoint gpt/openai healthy→cooling
//
// — nothing on the line says the timeout was billable, so it reads exactly as a timeout that
// never reached the provider (a connect failure, not billable), and no flag selects requests with
// more than one billable attempt: the operator's only way is jq over `--json`. docs/console.md
// lists what the line holds ("time, id, route, outcome, status …, then each attempt as
// target/provider status class (evidence) … action") and the console's card does say "billable"
// per attempt; the terminal, which the README points to for a user's ticket, does not.
func TestOp52bDecisionsLineSaysWhichAttemptsWereBillable(t *testing.T) {
	g, id := payTwiceGateway(t)
	out, errOut, code := runDecisions(t, "-f", g.decPath, "--id", id)
	if code != 0 || !strings.Contains(out, id) {
		t.Fatalf("detour decisions --id %s: exit %d, stdout %q, stderr %q", id, code, out, errOut)
	}
	if !strings.Contains(out, "billable") {
		t.Errorf("a request that paid two upstreams (a billable timeout, then an answer) prints no word of it; an operator cannot tell it from a timeout that was never sent:\n%s", out)
	}
}

// "How long did it cool?" The record of the request that cooled an endpoint holds the health
// change, and the gateway knows the cooldown's end (its own log line says
// `msg="health transition" … to=cooling class=timeout until=2026-12-06T04:55:40Z`, and
// internal/health.Transition carries `Until`), but internal/decision.Transition drops it: the
// record's `transitions` is `{scope, name, from, to, class}` (docs/behaviour.md's table), the
// `detour decisions` line says `endpoint gpt/openai healthy→cooling`, the console's card says
// `healthy → cooling (timeout)`, the trace event `detour.health_transition` has no end either.
// The next transition (cooling→probing) is logged only when a later request probes, which may be
// long after the cooldown ended (live: cooled until 04:55:40, probed at 04:56:20). So after the
// fact — "which provider failed last night and for how long did it cool" — the decision log
// cannot answer; only the process's stderr (often gone with the container) had the time.
func TestOp52bTheCoolingTransitionInTheRecordSaysUntilWhen(t *testing.T) {
	g, id := payTwiceGateway(t)
	b, err := os.ReadFile(g.decPath)
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, `"id":"`+id+`"`) {
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatal(err)
			}
		}
	}
	trs, _ := rec["transitions"].([]any)
	if len(trs) == 0 {
		t.Fatalf("setup: the record has no health change: %v", rec)
	}
	tr := trs[0].(map[string]any)
	if tr["to"] != "cooling" {
		t.Fatalf("setup: first transition %v", tr)
	}
	if _, ok := tr["until"]; !ok {
		t.Errorf("the record's healthy→cooling transition does not say until when (the gateway logged it: %v); the decision log cannot tell how long gpt cooled: %v",
			g.logLines("health transition"), tr)
	}
	out, _, _ := runDecisions(t, "-f", g.decPath, "--id", id)
	if !strings.Contains(out, "until") {
		t.Errorf("`detour decisions` shows the cooldown without its end:\n%s", out)
	}
}

// A user quotes an X-Detour-Decision id in a ticket; the operator runs `detour decisions --id`
// on the log they have. When the id is not there (it is in yesterday's rotated file, or another
// replica's log, or the user copied it wrong) the command prints nothing at all and exits 0 —
// the same as "found, and it printed an empty line". Observed: `detour decisions -f
// decisions.jsonl --id deadbeefdeadbeef; echo rc=$?` → `rc=0`, no output. The console, asked for
// an id it does not hold, says "no such record in this replica's ring (it may have been pushed
// out, or served by another replica)"; the terminal should say as much (on stderr, exit 1),
// naming the file it read and how many records it read.
func TestOp52bDecisionsIDNotInTheLogSaysSo(t *testing.T) {
	g, _ := payTwiceGateway(t)
	out, errOut, code := runDecisions(t, "-f", g.decPath, "--id", "deadbeefdeadbeef")
	if code == 0 && strings.TrimSpace(errOut) == "" {
		t.Errorf("`detour decisions --id` with an id not in the log: exit 0, stdout %q, stderr empty; the operator cannot tell \"not here\" from \"found\"", out)
	}
}

// "Who was refused, when, and why?" A request a client key's limit refuses leaves no decision
// record (docs/config.md, client_keys; yet docs/console.md opens with "Every request leaves a
// decision record"), so neither the console, nor `detour decisions`, nor `detour usage` shows it:
// the operator has `detour_limit_refusals_total{client,limit}` (a count per replica, no time, no
// door) and the README's word that such a refusal "is also logged at debug". Observed in the
// code path (internal/server/clients.go refuseLimited → front.go frontRefused): the debug line is
// `msg="request refused at the front" door=chat status=429 code=client_rate_limit_exceeded` —
// it names neither the key (its `name`, which the metric and the record carry as `client`) nor
// the limit. With 40 developers on a few dozen keys the log line cannot say who was refused;
// the 429's own message names both (`client key "team-c" is over its requests_per_minute limit (3)`).
func TestOp52bALimitRefusalLogLineNamesTheKeyAndTheLimit(t *testing.T) {
	up := fake(t, ok("gpt-4o"))
	g := startGateway(t, "op52b", render(`
log: {format: json, level: debug}
client_keys:
  - {name: team-c, key: sk-op52b-team-c-0001, rate: {requests_per_minute: 1}}
providers:
  - {name: openai, dialect: openai, base_url: "{up}", api_key: sk-test}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai]}
`, map[string]string{"up": up.URL}))
	if r := g.postAs("sk-op52b-team-c-0001", "gpt"); r.Status != 200 {
		t.Fatalf("first request: %d %s", r.Status, r.Body)
	}
	r := g.postAs("sk-op52b-team-c-0001", "gpt")
	if r.Status != 429 {
		t.Fatalf("second request in the minute: %d %s", r.Status, r.Body)
	}
	var lines []map[string]any
	poll(t, 5*time.Second, "a log line about the refusal", func() bool {
		lines = nil
		for _, l := range g.logLines("") {
			if s, _ := json.Marshal(l); strings.Contains(string(s), "client_rate_limit_exceeded") || strings.Contains(string(s), "requests_per_minute") {
				lines = append(lines, l)
			}
		}
		return len(lines) > 0
	})
	s, _ := json.Marshal(lines)
	if !strings.Contains(string(s), "team-c") || !strings.Contains(string(s), "requests_per_minute") {
		t.Errorf("the only per-request trace of a refusal (log.level debug) does not say which key or which limit: %s (the client got: %s)", s, r.Body)
	}
}

// "Which team spent what this month?" docs/deploy.md's rotation recipe is logrotate `daily`,
// `rotate 90`, `compress`, `delaycompress`, and then: "Rotated files are read together with
// `cat decisions.jsonl.1 decisions.jsonl | detour usage -f - --since month`" — two days of a
// month. The older days are `decisions.jsonl.2.gz` … (serve itself reads those back for budgets,
// the same paragraph says), but `detour usage` takes one file and does not read gzip. Observed
// (/tmp/op52b_rot, my log split over Dec 3–6 and rotated as that recipe does):
//
//	detour usage -f decisions.jsonl.2.gz --since month
//	  → every column 0, `TOTAL 0`, stderr `detour usage: skipped 1 line(s) that are not decision records`, exit 0
//	cat decisions.jsonl.1 decisions.jsonl | detour usage -f - --since month
//	  → team-b $0.013830, team-c $0.000519, and no team-a at all (its $0.055615 was on Dec 3–4)
//	zcat -f decisions.jsonl.3.gz decisions.jsonl.2.gz decisions.jsonl.1 decisions.jsonl | detour usage -f - --since month
//	  → team-a $0.055615, team-b $0.041490, team-c $0.000814 (right)
//
// Should: `detour usage` (and `decisions`) read a gzip log as serve does (or refuse it, exit ≠ 0,
// naming gzip), and deploy.md give the zcat form over all of the month's rotations.
func TestOp52bUsageReadsACompressedRotationOrSaysItCannot(t *testing.T) {
	up := fake(t, ok("gpt-4o"))
	g := startGateway(t, "op52b", render(`
client_keys:
  - {name: team-a, key: sk-op52b-team-a-0001}
providers:
  - {name: openai, dialect: openai, base_url: "{up}", api_key: sk-test}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai], price: {input: 2.5, output: 10}}
`, map[string]string{"up": up.URL}))
	for i := 0; i < 3; i++ {
		if r := g.postAs("sk-op52b-team-a-0001", "gpt"); r.Status != 200 {
			t.Fatalf("request %d: %d %s", i, r.Status, r.Body)
		}
	}
	poll(t, 5*time.Second, "three records", func() bool { return len(g.decisions()) == 3 })
	raw, err := os.ReadFile(g.decPath)
	if err != nil {
		t.Fatal(err)
	}
	gz := filepath.Join(t.TempDir(), "decisions.jsonl.2.gz")
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(raw)
	zw.Close()
	if err := os.WriteFile(gz, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(detourBin, "usage", "-f", gz, "--since", "month")
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err = cmd.Run()
	if err == nil && !strings.Contains(o.String(), "team-a") {
		t.Errorf("`detour usage -f decisions.jsonl.2.gz` (a rotation as deploy.md's logrotate recipe compresses it) reports nothing and exits 0: the month's spend of those days is silently missing:\nstdout:\n%s\nstderr: %s", o.String(), e.String())
	}
}

package process

// Operator review 58: a month-end on a SHARED gateway for five teams in front of three
// OpenAI-compatible providers (loopback upstreams; answers are upstreamtest.ChatJSON, OpenAI's
// documented chat.completion shape with usage prompt_tokens 5, completion_tokens 2:
// https://platform.openai.com/docs/api-reference/chat/object). Every request costs 5+2 tokens at
// the target's price: at $10,000 per million each way, $0.07.

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

const (
	op58Admin = op56Admin
	op58A     = "ck-op58-team-a-loop-000000001"
	op58B     = "ck-op58-team-b-leak-000000002"
	op58C     = "ck-op58-team-c-0000000000004"
	op58D     = "ck-op58-team-d-0000000000005"
	op58E     = "ck-op58-team-e-0000000000006"
)

// op58Cfg is the shared gateway; {a_day} is team-a's daily budget, {m1_in} target m1's input price,
// {b_keys} team-b's key entry, {c_budget} team-c's budget mapping (or nothing).
const op58Cfg = `
admin_keys: [` + op58Admin + `]
log: {format: json}
client_keys:
  - {name: team-a, key: ` + op58A + `, budget: {usd_per_day: {a_day}, usd_per_month: 50}, max_concurrent: 2}
  - {name: team-b, {b_keys}, budget: {usd_per_day: 20}}
  - {name: team-c, key: ` + op58C + `{c_budget}}
  - {name: team-d, key: ` + op58D + `, rate: {requests_per_minute: 600}}
  - {name: team-e, key: ` + op58E + `, max_concurrent: 4}
providers:
  - {name: p1, dialect: openai, base_url: "{p1}", api_key: sk-op58-p1-aaaaaaaaaaaaaaaa}
  - {name: p2, dialect: openai, base_url: "{p2}", api_key: sk-op58-p2-bbbbbbbbbbbbbbbb}
  - {name: p3, dialect: openai, base_url: "{p3}", api_key: sk-op58-p3-cccccccccccccccc}
targets:
  - {name: m1, model: model-one, providers: [p1], price: {input: {m1_in}, output: 10000}}
  - {name: m2, model: model-two, providers: [p2], price: {input: 10000, output: 10000}}
  - {name: m3, model: model-three, providers: [p3], price: {input: 10000, output: 10000}}
`

type op58Fleet struct {
	p1, p2, p3 *upstreamtest.Server
	vars       map[string]string
	g          *gateway
}

func newOp58(t *testing.T) *op58Fleet {
	f := &op58Fleet{
		p1: fake(t, upstreamtest.Step{Body: upstreamtest.ChatJSON("model-one", "hi"), Header: map[string]string{"Content-Type": "application/json"}}),
		p2: fake(t, upstreamtest.Step{Body: upstreamtest.ChatJSON("model-two", "hi"), Header: map[string]string{"Content-Type": "application/json"}}),
		p3: fake(t, upstreamtest.Step{Body: upstreamtest.ChatJSON("model-three", "hi"), Header: map[string]string{"Content-Type": "application/json"}}),
	}
	f.vars = map[string]string{"p1": f.p1.URL, "p2": f.p2.URL, "p3": f.p3.URL, "a_day": "0.2", "m1_in": "10000",
		"b_keys": "key: " + op58B, "c_budget": ""}
	f.g = startGateway(t, "op58", render(op58Cfg, f.vars))
	return f
}

func (f *op58Fleet) reload(t *testing.T, set map[string]string) string {
	for k, v := range set {
		f.vars[k] = v
	}
	out := op56Reload(f.g, render(op58Cfg, f.vars))
	if !strings.Contains(out, "config reloaded") {
		t.Fatalf("reload refused: %s", out)
	}
	return out
}

func op58Usage(t *testing.T, g *gateway, args ...string) string {
	out, err := exec.Command(detourBin, append([]string{"usage", "-f", g.decPath}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("detour usage %v: %v\n%s", args, err, out)
	}
	return string(out)
}

func op58Used(g *gateway, client, limit string) float64 {
	return op56Metric(g, "detour_client_limit_used", `client="`+client+`"`, `limit="`+limit+`"`)
}

// F1. Before round 58 a reload that added a month budget to a team that had already spent this
// month counted that spend as nothing, while a restart on the same file counted all of it: the same
// key on the same configuration was refused after a restart and admitted after a reload. The operator adds the
// budget on the 28th to stop a team that went over its agreed month; the reload let it spend a
// whole fresh month's budget again (config.md said so then), and the Keys page,
// detour_client_limit_used and DetourClientNearBudget said $0 used while `detour usage --since
// month` said the team spent more than the budget. The reload reads the month back now.
func TestOp58_MonthBudgetAddedByReloadCountsWhatTheRestartCounts(t *testing.T) {
	f := newOp58(t)
	for i := 0; i < 5; i++ { // team-c, no budget yet: $0.35 this month
		if r := f.g.postAs(op58C, "m2"); r.Status != 200 {
			t.Fatalf("team-c request %d: %d %s", i, r.Status, r.Body)
		}
	}
	poll(t, 5*time.Second, "five records", func() bool { return len(f.g.decisions()) >= 5 })
	t.Logf("detour usage --since month:\n%s", op58Usage(t, f.g, "--since", "month"))
	f.reload(t, map[string]string{"c_budget": ", budget: {usd_per_month: 0.3}"})
	afterReload := f.g.postAs(op58C, "m2")
	usedReload := op58Used(f.g, "team-c", "usd_per_month")
	t.Logf("after reload adding usd_per_month 0.3: status %d, detour_client_limit_used %.4f", afterReload.Status, usedReload)

	// The same file, the same log, a restart.
	f.g.stop()
	g2 := op54Restart(t, f.g)
	afterRestart := g2.postAs(op58C, "m2")
	usedRestart := op58Used(g2, "team-c", "usd_per_month")
	for _, l := range op56Metrics(g2) {
		if strings.Contains(l, "team-c") && strings.Contains(l, "limit") {
			t.Logf("restarted /metrics: %s", l)
		}
	}
	t.Logf("restarted 429 body: %s", afterRestart.Body)
	t.Logf("after restart on the same file: status %d %s, detour_client_limit_used %.4f", afterRestart.Status, afterRestart.Header.Get("Retry-After"), usedRestart)
	if afterReload.Status != afterRestart.Status || usedReload < 0.3 {
		t.Errorf("team-c spent $0.35 this month (detour usage agrees); a usd_per_month of $0.30 added by reload: status %d, used %.4f; the same file after a restart: status %d, used %.4f — reload and restart disagree on the window's spend",
			afterReload.Status, usedReload, afterRestart.Status, usedRestart)
	}
}

// F3. Finance asks for each team's spend last week by model. Before round 58 `detour usage`
// grouped by one of client, route, target, provider or day, and bounded the window only from below
// (--since): no --until, no second grouping, no --client. One command now.
func TestOp58_FinanceSpendLastWeekByTeamAndModel(t *testing.T) {
	f := newOp58(t)
	f.g.postAs(op58C, "m1")
	f.g.postAs(op58C, "m2")
	f.g.postAs(op58D, "m2")
	since := time.Now().UTC().Add(-7 * 24 * time.Hour).Format(time.RFC3339)
	until := time.Now().UTC().Add(time.Hour).Format(time.RFC3339)
	var out []byte
	var err error
	for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		// the decision writer flushes within a second
		out, err = exec.Command(detourBin, "usage", "-f", f.g.decPath, "--since", since, "--until", until, "--by", "client,target", "--client", "team-c").CombinedOutput()
		if strings.Contains(string(out), "team-c") {
			break
		}
	}
	t.Logf("detour usage --since %s --until %s --by client,target: %v\n%s", since, until, err, out)
	if err != nil || !strings.Contains(string(out), "team-c") || !strings.Contains(string(out), "m1") {
		t.Errorf("finance's question (each team's spend last week, by model) is not one `detour usage` command: %v", err)
	}
}

// F4. Team-a's agent loops on m1 until its $0.20 day is spent; then the operator doubles m1's input
// price and raises team-a's day to $0.50 in one reload. Every surface is compared with the
// upstream's own count of calls. PASSES: the reload keeps the day's spend, the raised cap admits
// the key again at once, the new price counts from the next request.
func TestOp58_LoopBurnsBudgetThenReloadChangesPriceAndBudget(t *testing.T) {
	f := newOp58(t)
	var refused reply
	served := 0
	for i := 0; i < 10; i++ {
		r := f.g.postAs(op58A, "m1")
		if r.Status != 200 {
			refused = r
			break
		}
		served++
	}
	t.Logf("served %d, upstream p1 calls %d; refusal: %d Retry-After=%q X-Should-Retry=%q Connection=%q %s", served, f.p1.Calls(),
		refused.Status, refused.Header.Get("Retry-After"), refused.Header.Get("X-Should-Retry"), refused.Header.Get("Connection"), refused.Body)
	t.Logf("refusal headers: %v", refused.Header)
	t.Logf("refusal log line: %s", op56Grep(f.g.stderr.String(), "team-a"))
	poll(t, 5*time.Second, "records", func() bool { return len(f.g.decisions()) >= served })
	t.Logf("usage --since today:\n%s", op58Usage(t, f.g, "--since", "today"))
	time.Sleep(1100 * time.Millisecond) // detour_client_limit_used is read at most once a second
	usedDay := op58Used(f.g, "team-a", "usd_per_day")
	cost := op56Metric(f.g, "detour_cost_usd_total", `client="team-a"`)
	refusals := op56Metric(f.g, "detour_limit_refusals_total", `client="team-a"`)
	t.Logf("limit_used usd_per_day %.4f, cost_usd_total %.4f, refusals %v", usedDay, cost, refusals)
	if refused.Status != 429 || refused.Header.Get("X-Should-Retry") != "false" {
		t.Errorf("a spent day budget: %d x-should-retry %q", refused.Status, refused.Header.Get("X-Should-Retry"))
	}
	wantSpent := float64(f.p1.Calls()) * 0.07
	if d := usedDay - wantSpent; d > 1e-6 || d < -1e-6 {
		t.Errorf("upstream served %d calls ($%.2f); detour_client_limit_used says $%.4f", f.p1.Calls(), wantSpent, usedDay)
	}
	if d := cost - wantSpent; d > 1e-6 || d < -1e-6 {
		t.Errorf("upstream served %d calls ($%.2f); detour_cost_usd_total says $%.4f", f.p1.Calls(), wantSpent, cost)
	}

	// Reload: m1 input doubles ($0.05 + $0.02 = $0.12 a request now), team-a's day is $0.50.
	f.reload(t, map[string]string{"m1_in": "20000", "a_day": "0.5"})
	time.Sleep(1100 * time.Millisecond)
	afterUsed := op58Used(f.g, "team-a", "usd_per_day")
	r := f.g.postAs(op58A, "m1")
	t.Logf("after reload: used before request %.4f; request %d %s; used now %.4f", afterUsed, r.Status, r.Body, op58Used(f.g, "team-a", "usd_per_day"))
	if d := afterUsed - wantSpent; d > 1e-6 || d < -1e-6 {
		t.Errorf("the reload did not keep the day's spend: $%.4f before, $%.4f after", wantSpent, afterUsed)
	}
	if r.Status != 200 {
		t.Errorf("team-a's day raised to $0.50 with $%.2f spent: refused %d %s", wantSpent, r.Status, r.Body)
	}
	time.Sleep(time.Second)
	ds := f.g.decisions()
	last, _ := json.Marshal(ds[len(ds)-1])
	t.Logf("1s later: used %.4f, usd_per_month used %.4f, cost_usd_total %.4f; last record %s", op58Used(f.g, "team-a", "usd_per_day"), op58Used(f.g, "team-a", "usd_per_month"), op56Metric(f.g, "detour_cost_usd_total", `client="team-a"`), last)
	if got := op58Used(f.g, "team-a", "usd_per_day"); got-(wantSpent+0.12) > 1e-6 || got-(wantSpent+0.12) < -1e-6 {
		t.Errorf("a request at the new price ($0.12) after the reload: used $%.4f, want $%.4f", got, wantSpent+0.12)
	}
}

// F6. "We were refused but had budget left": team-a's agent is refused for its day's budget; the
// next morning the team asks why, quoting the time. A refusal leaves no decision record (config.md),
// and before round 58 no log line at the default level named it (refusals were logged at debug
// only): the Keys page's "refused now" and detour_limit_refusals_total's count were all there was.
// The first refusal of each key and limit in a window is logged at info now, with the standing.
func TestOp58_BudgetRefusalLeavesATraceTheOperatorCanFindLater(t *testing.T) {
	f := newOp58(t)
	var refused reply
	for i := 0; i < 10; i++ {
		if r := f.g.postAs(op58A, "m1"); r.Status != 200 {
			refused = r
			break
		}
	}
	if refused.Status != 429 {
		t.Fatalf("team-a was never refused")
	}
	time.Sleep(300 * time.Millisecond)
	line := op56Grep(f.g.stderr.String(), "usd_per_day")
	t.Logf("429 headers: %v", refused.Header)
	t.Logf("log lines naming usd_per_day: %q", line)
	if line == "" && refused.Header.Get("X-Request-Id") == "" {
		t.Errorf("team-a's budget refusal left no decision record, no log line at the default level and no id in its answer (%v): the operator asked the next day \"why were we refused?\" has only a counter", refused.Header)
	}
}

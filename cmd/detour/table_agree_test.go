package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/demo"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/route"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// TestCheckAgreesWithDispatch proves, for every route of every example
// configuration in the repository, that what `detour check` prints for each
// class is what the gateway does: the real gateway serves the route with its
// providers replaced by loopback fakes, the first upstream call fails with
// the class, and the action recorded after that attempt, its cooling and
// the budget are compared with the printed row (not with the table itself).
func TestCheckAgreesWithDispatch(t *testing.T) {
	if testing.Short() {
		t.Skip("serves every route × class of every example configuration")
	}
	cases := corpusByClass(t)
	for _, ex := range exampleConfigs(t) {
		cfg := parseExample(t, ex)
		for i := range cfg.Routes {
			r := &cfg.Routes[i]
			var out bytes.Buffer
			printRoute(&out, cfg, r)
			rows := parsePrinted(t, out.String())
			for _, first := range leads(cfg, r) {
				for _, c := range classify.Classes() {
					t.Run(ex.name+"/"+r.Name+"/"+first+"/"+c.String(), func(t *testing.T) {
						p, ok := rows[c.String()]
						if !ok {
							t.Fatalf("detour check printed no row for %s:\n%s", c, out.String())
						}
						agree(t, ex, r.Name, first, c, p, cases, "")
					})
				}
				// A server error that names its wait (a real 503 or 529
				// answer, given a Retry-After of a minute, past max_wait, or
				// of 1s, within it): the printed row's retry rule and its
				// "(at once for … not waited out)".
				for _, hint := range []string{"60", "1"} {
					t.Run(ex.name+"/"+r.Name+"/"+first+"/server_error+retry-after-"+hint, func(t *testing.T) {
						t.Parallel() // the 1s wait is waited out: overlap them
						agree(t, ex, r.Name, first, classify.ServerError, rows["server_error"], cases, hint)
					})
				}
			}
		}
	}
}

type example struct {
	name string
	yaml []byte
}

// exampleConfigs are the configurations the repository ships: the deploy
// file, the configuration package's test files and the demo's.
func exampleConfigs(t *testing.T) []example {
	t.Helper()
	files := []string{filepath.Join("..", "..", "deploy", "detour.yaml")}
	more, _ := filepath.Glob(filepath.Join("..", "..", "internal", "config", "testdata", "*.yaml"))
	files = append(files, more...)
	var out []example
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, example{filepath.Base(f), b})
	}
	d := demo.Start(io.Discard)
	t.Cleanup(d.Close)
	out = append(out, example{"demo", []byte(d.Config("127.0.0.1:0"))})
	return out
}

// parseExample parses ex with a value for every ${VAR} (none for URLs that
// may be left empty), then keeps it on loopback: memory state, no client
// keys, no alerts or tracing.
func parseExample(t *testing.T, ex example) *config.Config {
	t.Helper()
	lookup := func(name string) (string, bool) {
		if strings.HasSuffix(name, "WEBHOOK") || strings.HasSuffix(name, "ENDPOINT") {
			return "", false
		}
		return "test-" + strings.ToLower(name), true
	}
	cfg, err := config.Parse(ex.name, ex.yaml, lookup)
	if err != nil {
		t.Fatalf("%s: %v", ex.name, err)
	}
	return cfg
}

// leads are the targets each route is served with first: its first one,
// and the one with the most endpoints (next_endpoint needs two).
func leads(cfg *config.Config, r *config.Route) []string {
	out := []string{r.Targets[0]}
	most := r.Targets[0]
	for _, n := range r.Targets {
		a, _ := cfg.Target(n)
		b, _ := cfg.Target(most)
		if len(a.Providers) > len(b.Providers) {
			most = n
		}
	}
	if most != out[0] {
		out = append(out, most)
	}
	return out
}

// putFirst reorders r's targets so that a fresh gateway's first request
// tries target first: listed first, or for a pool, where the first request's
// rotation (one) starts.
func putFirst(r *config.Route, first string) {
	n := len(r.Targets)
	at := 0
	if r.Strategy == route.Pool {
		at = 1 % n
	}
	i := slices.Index(r.Targets, first)
	rot := make([]string, n)
	for j := range n {
		rot[(at+j)%n] = r.Targets[(i+j)%n]
	}
	r.Targets = rot
}

// printedRow is one class's row of `detour check`, cell by cell.
type printedRow struct {
	retry, nextEndpoint, nextTarget, tail, cools, pages string
}

// parsePrinted reads the class rows of one printed route.
func parsePrinted(t *testing.T, out string) map[string]printedRow {
	t.Helper()
	cells := regexp.MustCompile(` {2,}`)
	rows := map[string]printedRow{}
	header := false
	for _, line := range strings.Split(out, "\n") {
		f := cells.Split(strings.TrimSpace(line), -1)
		if len(f) > 0 && f[0] == tableHeader[0] {
			header = true
			continue
		}
		if !header || len(f) != len(tableHeader) {
			continue
		}
		rows[f[0]] = printedRow{f[1], f[2], f[3], f[4], f[5], f[6]}
	}
	if len(rows) != len(classify.Classes()) {
		t.Fatalf("parsed %d rows from:\n%s", len(rows), out)
	}
	return rows
}

// agree serves route with every provider's first call failing with class c
// and compares what followed the first attempt with the printed row p.
func agree(t *testing.T, ex example, routeName, first string, c classify.Class, p printedRow, cases map[classify.Class][]corpusCase, hint string) {
	cfg := parseExample(t, ex)
	cfg.State, cfg.ClientKeys, cfg.Clients = config.State{}, nil, nil
	cfg.Alerts.Webhook, cfg.Tracing = "", config.Tracing{}
	cls := &classify.Classifier{Rules: cfg.Rules}
	r, _ := cfg.Route(routeName)
	putFirst(r, first)
	for i := range cfg.Providers {
		pr := &cfg.Providers[i]
		fail := failing(t, cls, pr, c, cases[c], hint != "")
		if hint != "" {
			fail.Header["Retry-After"] = hint
		}
		if c == classify.Timeout {
			pr.Timeout = 300 * time.Millisecond
		}
		okStep := upstreamtest.Step{Body: okBody(t, pr.Dialect)}
		srv := upstreamtest.New(upstreamtest.Steps(fail, okStep))
		t.Cleanup(srv.Close)
		pr.BaseURL = srv.URL
	}
	recs := gatewaytest.NewRecords()
	url, _ := gatewaytest.Start(t, cfg, app.Options{Decisions: recs, Backoff: func() time.Duration { return 0 }})
	body := `{"model":` + strconv.Quote(routeName) + `,"messages":[{"role":"user","content":"hi"}]}`
	resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	d := recs.Wait(t, 1)
	if len(d.Attempts) == 0 {
		t.Fatalf("no attempt: %+v", d)
	}
	a0 := d.Attempts[0]
	if a0.Class != c.String() {
		t.Fatalf("the first attempt's class is %q, want %s (harness): %+v", a0.Class, c, a0)
	}
	if a0.Target != first {
		t.Fatalf("the first attempt went to %s, want %s (harness)", a0.Target, first)
	}
	if want := expectedAction(cfg, r, a0, p); a0.Action != want {
		t.Errorf("after %s the gateway did %q; detour check printed %+v, which means %q", c, a0.Action, p, want)
	}
	if hint != "" && strconv.FormatInt(a0.RetryAfterMS/1000, 10) != hint {
		t.Fatalf("the first attempt's Retry-After is %d ms, want %ss (harness): %+v", a0.RetryAfterMS, hint, a0)
	}
	wantScope, wantCool := expectedCooling(cfg, p, a0)
	name := a0.Target + "/" + a0.Provider
	if wantScope == "account" {
		name = a0.Provider
	}
	cooled := slices.ContainsFunc(d.Transitions, func(tr decision.Transition) bool {
		return tr.To == "cooling" && tr.Scope == wantScope && tr.Name == name
	})
	if cooled != wantCool {
		t.Errorf("after %s: cooled %s %s = %v, printed %q; transitions %+v", c, wantScope, name, cooled, p.cools, d.Transitions)
	}
}

// expectedAction is what the printed row says follows the first attempt a0.
func expectedAction(cfg *config.Config, r *config.Route, a0 decision.Attempt, p printedRow) decision.Action {
	spent := r.MaxAttempts <= 1 || r.MaxBillableAttempts == 1 && a0.Billable
	hint := time.Duration(a0.RetryAfterMS) * time.Millisecond
	retry := p.retry == "retry once (after a 503/529/429's Retry-After, if ≤ max_wait)" && hint <= cfg.Retry.MaxWait ||
		p.retry == "retry if Retry-After ≤ max_wait" && hint > 0 && hint <= cfg.Retry.MaxWait
	t, _ := cfg.Target(a0.Target)
	larger := false
	for _, n := range r.Targets {
		if o, _ := cfg.Target(n); n != a0.Target && t.ContextWindow > 0 && o.ContextWindow > t.ContextWindow {
			larger = true
		}
	}
	switch {
	case spent:
		return decision.ActionStop
	case retry:
		return decision.ActionRetry
	case p.nextEndpoint == "yes" && len(t.Providers) > 1:
		return decision.ActionNextEndpoint
	case p.nextTarget == "yes" && len(r.Targets) > 1,
		p.nextTarget == "only to a larger context_window" && larger:
		return decision.ActionNextTarget
	case p.tail == "yes" && len(r.Tail) > 0:
		return decision.ActionTail
	}
	return decision.ActionStop
}

// expectedCooling reads the printed "cools" cell: which scope cools after
// one failure (an endpoint at a threshold of 1, or one whose server error
// named a wait).
func expectedCooling(cfg *config.Config, p printedRow, a0 decision.Attempt) (scope string, cools bool) {
	switch {
	case p.cools == "nothing":
		return "endpoint", false
	case strings.HasPrefix(p.cools, "provider account for "):
		return "account", true
	case strings.HasPrefix(p.cools, "endpoint after "):
		n, _ := strconv.Atoi(strings.Fields(strings.TrimPrefix(p.cools, "endpoint after "))[0])
		// At once for a wait past max_wait (a shorter one is waited out by
		// the request's own retry, which then tells).
		hint := time.Duration(a0.RetryAfterMS) * time.Millisecond
		hinted := strings.HasSuffix(p.cools, "(at once for a 503/529/429's Retry-After not waited out)") && hint > cfg.Retry.MaxWait
		return "endpoint", n == 1 || hinted
	case strings.HasPrefix(p.cools, "endpoint for "):
		return "endpoint", true
	}
	panic("unknown cools cell " + p.cools)
}

type corpusCase struct {
	Dialect string            `json:"dialect"`
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers"`
	Stream  bool              `json:"stream"`
	Body    string            `json:"body"`
	Class   string            `json:"class"`
}

// corpusByClass reads the non-stream real upstream answers of
// classify/testdata/corpus by class, sorted by file name.
func corpusByClass(t *testing.T) map[classify.Class][]corpusCase {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "..", "classify", "testdata", "corpus", "*.json"))
	sort.Strings(files)
	out := map[classify.Class][]corpusCase{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cc corpusCase
		if err := json.Unmarshal(b, &cc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		c, err := classify.ParseClass(cc.Class)
		if err == nil && !cc.Stream {
			out[c] = append(out[c], cc)
		}
	}
	return out
}

// failing is an answer provider pr's attempt classifies as c: a silent
// upstream for a timeout, else a corpus answer, its own dialect first,
// without a Retry-After to wait for when one will do; with status503, a
// 503 or 529 (one whose Retry-After a server error keeps).
func failing(t *testing.T, cls *classify.Classifier, pr *config.Provider, c classify.Class, cases []corpusCase, status503 bool) upstreamtest.Step {
	t.Helper()
	if c == classify.Timeout {
		return upstreamtest.Step{Delay: 5 * time.Second}
	}
	var picked *upstreamtest.Step
	for _, own := range []bool{true, false} {
		for _, hinted := range []bool{false, true} {
			for _, cc := range cases {
				if (cc.Dialect == string(pr.Dialect)) != own || picked != nil ||
					status503 && cc.Status != 503 && cc.Status != 529 {
					continue
				}
				h := http.Header{}
				for k, v := range cc.Headers {
					if !strings.EqualFold(k, "content-length") {
						h.Set(k, v)
					}
				}
				v := cls.Classify(classify.Response{Status: cc.Status, Header: h, Body: []byte(cc.Body), Dialect: pr.Dialect, Provider: pr.Name})
				if !v.Failed && cc.Status/100 != 2 {
					v.Class = classify.Unknown
				}
				if (v.Failed || cc.Status/100 != 2) && v.Class == c && (v.RetryAfter > 0) == hinted {
					st := upstreamtest.Step{Status: cc.Status, Body: cc.Body, Header: map[string]string{}}
					for k := range h {
						st.Header[k] = h.Get(k)
					}
					picked = &st
				}
			}
		}
	}
	if picked == nil {
		t.Fatalf("no corpus answer is %s for provider %s", c, pr.Name)
	}
	return *picked
}

// okBody is a successful answer in dialect d.
func okBody(t *testing.T, d classify.Dialect) string {
	t.Helper()
	file := map[classify.Dialect]string{
		classify.Anthropic: filepath.Join("..", "..", "internal", "provider", "anthropic", "testdata", "response", "hello.json"),
		classify.Gemini:    filepath.Join("..", "..", "internal", "provider", "gemini", "testdata", "response", "basic.json"),
	}[d]
	if file == "" {
		return upstreamtest.ChatJSON("m", "hi")
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var g struct {
		Upstream json.RawMessage `json:"upstream"`
	}
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	return string(g.Upstream)
}

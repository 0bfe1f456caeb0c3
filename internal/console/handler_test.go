package console

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/query"
)

const testConfig = `providers:
  - {name: anthropic, dialect: anthropic, base_url: "https://a.test", api_key: sk-never-shown}
  - {name: openai, dialect: openai, base_url: "https://o.test/v1", api_key: sk-never-shown}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: gpt, model: gpt-4o, providers: [openai, anthropic]}
routes:
  - {name: deep, targets: [claude, gpt]}
`

// serve runs a console over testConfig's health and returns its server.
func serve(t *testing.T, now time.Time) (*Console, *health.Tracker, *httptest.Server) {
	t.Helper()
	cfg, err := config.Parse("c.yaml", []byte(testConfig), nil)
	if err != nil {
		t.Fatal(err)
	}
	var keys []health.Key
	for _, tg := range cfg.Targets {
		for _, p := range tg.Providers {
			keys = append(keys, health.Key{Target: tg.Name, Provider: p})
		}
	}
	tr := health.New(health.NewMemory(), health.Settings{}, keys, func() time.Time { return now })
	c := New(Options{Size: 3, State: func() (*config.Config, *health.Tracker) { return cfg, tr },
		Now: func() time.Time { return now }, Replica: "test-1"})
	srv := httptest.NewServer(c.Handler())
	t.Cleanup(srv.Close)
	return c, tr, srv
}

func fetch(t *testing.T, srv *httptest.Server, path string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Get(srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func decode(t *testing.T, body string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(body), v); err != nil {
		t.Fatalf("%v: %s", err, body)
	}
}

var now = time.Date(2026, 11, 30, 9, 30, 0, 0, time.UTC)

func rec(id, route, outcome string, at time.Time, attempts ...decision.Attempt) *decision.Decision {
	return &decision.Decision{ID: id, Time: at, Route: route, Outcome: outcome, Status: 200, Attempts: attempts, Transitions: []decision.Transition{}}
}

var (
	quota = decision.Attempt{Target: "claude", Provider: "anthropic", Model: "claude-sonnet-4-5", Status: 400, Class: "quota",
		Evidence: "phrase:credit balance is too low", Action: "next_target"}
	answered = decision.Attempt{Target: "gpt", Provider: "openai", Model: "gpt-4o", Status: 200, Action: "done", StartMS: 10}
)

// Every page and asset carries the security headers; pages, script and
// style are the embedded files; the API never shows a key.
func TestPagesAndHeaders(t *testing.T) {
	_, _, srv := serve(t, now)
	for _, p := range []string{"/ui/health", "/ui/decisions", "/ui/classes", "/ui/unknowns", "/ui/static/app.js", "/ui/static/style.css",
		"/ui/api/meta", "/ui/api/health", "/ui/api/decisions", "/ui/api/classes", "/ui/api/unknowns"} {
		resp, body := fetch(t, srv, p)
		if resp.StatusCode != 200 {
			t.Errorf("%s: %d %s", p, resp.StatusCode, body)
			continue
		}
		csp := resp.Header.Get("Content-Security-Policy")
		for _, want := range []string{"default-src 'none'", "script-src 'self'", "require-trusted-types-for 'script'", "frame-ancestors 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("%s: CSP %q lacks %q", p, csp, want)
			}
		}
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: no nosniff", p)
		}
		if strings.Contains(body, "sk-never-shown") {
			t.Errorf("%s shows a key", p)
		}
	}
	resp, body := fetch(t, srv, "/ui/decisions")
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") || !strings.Contains(body, `<a href="/ui/decisions" aria-current="page">Decisions</a>`) {
		t.Errorf("decisions page: %s\n%s", ct, body)
	}
	if resp, _ := fetch(t, srv, "/ui/static/app.js"); !strings.Contains(resp.Header.Get("Content-Type"), "javascript") {
		t.Errorf("app.js served as %q", resp.Header.Get("Content-Type"))
	}
	if resp, _ := fetch(t, srv, "/ui/"); resp.Request.URL.Path != "/ui/health" {
		t.Errorf("/ui/ leads to %s", resp.Request.URL.Path)
	}
	for _, p := range []string{"/ui/nope", "/ui/static/page.html", "/ui/static/../page.html", "/ui/api/decisions/none"} {
		if resp, _ := fetch(t, srv, p); resp.StatusCode != 404 {
			t.Errorf("%s: %d, want 404", p, resp.StatusCode)
		}
	}
	resp, err := http.Post(srv.URL+"/ui/api/decisions", "application/json", nil)
	if err != nil || resp.StatusCode != 405 {
		t.Errorf("POST: %v %v", resp.StatusCode, err)
	}
}

// The page script builds every element with text nodes: no HTML string
// sink appears in it at all.
func TestScriptHasNoHTMLSinks(t *testing.T) {
	b, err := os.ReadFile("ui/app.js")
	if err != nil {
		t.Fatal(err)
	}
	code := regexp.MustCompile(`(?m)^\s*//.*$`).ReplaceAllString(string(b), "")
	for _, sink := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "srcdoc", "javascript:"} {
		if strings.Contains(code, sink) {
			t.Errorf("app.js uses %s", sink)
		}
	}
}

func TestDecisionsAPIFiltersTailsAndBounds(t *testing.T) {
	c, _, srv := serve(t, now)
	c.Write(rec("a", "deep", "ok", now.Add(-time.Minute), quota, answered))
	c.Write(rec("b", "gpt", "ok", now, answered))
	type list struct {
		Seq     uint64 `json:"seq"`
		Records []struct {
			Seq    uint64            `json:"seq"`
			Record decision.Decision `json:"record"`
		} `json:"records"`
	}
	get := func(q string) list {
		t.Helper()
		resp, body := fetch(t, srv, "/ui/api/decisions"+q)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %s", q, resp.StatusCode, body)
		}
		var l list
		decode(t, body, &l)
		return l
	}
	ids := func(l list) string {
		s := ""
		for _, r := range l.Records {
			s += r.Record.ID
		}
		return s
	}
	if l := get(""); ids(l) != "ba" || l.Seq != 2 {
		t.Errorf("all: %q seq %d, want newest first", ids(l), l.Seq)
	}
	if l := get("?class=quota"); ids(l) != "a" {
		t.Errorf("class=quota: %q", ids(l))
	}
	if l := get("?target=gpt&route=gpt"); ids(l) != "b" {
		t.Errorf("target+route: %q", ids(l))
	}
	if l := get("?after=1"); ids(l) != "b" {
		t.Errorf("after=1: %q", ids(l))
	}
	if l := get("?limit=1"); ids(l) != "b" {
		t.Errorf("limit=1: %q", ids(l))
	}
	for _, r := range []string{"c", "d"} { // the ring holds 3: "a" goes
		c.Write(rec(r, "deep", "error", now, quota))
	}
	if l := get(""); ids(l) != "dcb" {
		t.Errorf("ring of 3: %q", ids(l))
	}
	if resp, _ := fetch(t, srv, "/ui/api/decisions/a"); resp.StatusCode != 404 {
		t.Errorf("a record pushed out is still served")
	}
	resp, body := fetch(t, srv, "/ui/api/decisions/c")
	var d decision.Decision
	decode(t, body, &d)
	if resp.StatusCode != 200 || d.ID != "c" || d.Attempts[0].Evidence != quota.Evidence {
		t.Errorf("by id: %d %s", resp.StatusCode, body)
	}
	for _, q := range []string{"?class=qouta", "?outcome=meh", "?after=x", "?limit=0"} {
		if resp, body := fetch(t, srv, "/ui/api/decisions"+q); resp.StatusCode != 400 || !strings.Contains(body, "error") {
			t.Errorf("%s: %d %s", q, resp.StatusCode, body)
		}
	}
}

// api: the door a request came through (operator review 69l: with four
// client APIs, which clients a failure hit). A record without one is
// chat's; a door the record never names is refused, as a class is.
func TestDecisionsAPIFiltersByDoor(t *testing.T) {
	c, _, srv := serve(t, now)
	g, m := rec("g", "deep", "error", now, quota), rec("m", "deep", "ok", now, quota, answered)
	g.API, m.API = "gemini", "messages"
	c.Write(rec("o", "deep", "ok", now, answered))
	c.Write(g)
	c.Write(m)
	for q, want := range map[string]string{"?api=chat": "o", "?api=gemini": "g", "?api=messages&class=quota": "m", "?api=responses": "", "?api=gemini&outcome=ok": ""} {
		resp, body := fetch(t, srv, "/ui/api/decisions"+q)
		var l struct {
			Records []struct {
				Record decision.Decision `json:"record"`
			} `json:"records"`
		}
		decode(t, body, &l)
		got := ""
		for _, r := range l.Records {
			got += r.Record.ID
		}
		if resp.StatusCode != 200 || got != want {
			t.Errorf("%s: %d %q, want %q", q, resp.StatusCode, got, want)
		}
	}
	for _, q := range []string{"?api=anthropic", "?api=count_tokens", "?api=Gemini"} {
		if resp, body := fetch(t, srv, "/ui/api/decisions"+q); resp.StatusCode != 400 || !strings.Contains(body, "unknown api") {
			t.Errorf("%s: %d %s", q, resp.StatusCode, body)
		}
	}
	_, body := fetch(t, srv, "/ui/api/meta")
	var meta struct {
		APIs []string `json:"apis"`
	}
	decode(t, body, &meta)
	if strings.Join(meta.APIs, " ") != "chat messages responses embeddings completions gemini" {
		t.Errorf("meta's apis: %v", meta.APIs)
	}
}

// The page's closed list of doors (an address's api it does not know is
// not asked for) is the API's.
func TestScriptKnowsTheDoors(t *testing.T) {
	b, err := os.ReadFile("ui/app.js")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`const allAPIs = \[([^\]]*)\]`).FindSubmatch(b)
	if m == nil {
		t.Fatal("app.js has no allAPIs")
	}
	want := "'" + strings.Join(query.APIs(), "', '") + "'"
	if string(m[1]) != want {
		t.Errorf("app.js's allAPIs %s, query.APIs %s", m[1], want)
	}
}

// Health lists every configured endpoint and account with its model, state
// and cooldown, and the evidence of the last failure this replica saw.
func TestHealthAPIAddsModelsAndEvidence(t *testing.T) {
	c, tr, srv := serve(t, now)
	tr.Report(context.Background(), health.Key{Target: "claude", Provider: "anthropic"},
		health.Report{Class: "quota", Count: true, Cool: health.ScopeAccount, CoolFor: time.Hour})
	c.Write(rec("a", "deep", "ok", now, quota, answered))
	_, body := fetch(t, srv, "/ui/api/health")
	var h struct {
		Replica   string `json:"replica"`
		Endpoints []struct {
			Target, Provider, Model, State string
			CooldownUntil                  *time.Time `json:"cooldown_until"`
			LastFailure                    *failure   `json:"last_failure"`
		} `json:"endpoints"`
		Accounts []struct {
			Name, State string
			LastFailure *failure `json:"last_failure"`
		} `json:"accounts"`
	}
	decode(t, body, &h)
	if h.Replica != "test-1" || len(h.Endpoints) != 3 || len(h.Accounts) != 2 {
		t.Fatalf("health: %s", body)
	}
	e := h.Endpoints[0]
	if e.Target != "claude" || e.Model != "claude-sonnet-4-5" || e.State != "cooling" || e.CooldownUntil == nil ||
		!e.CooldownUntil.Equal(now.Add(time.Hour)) || e.LastFailure == nil || e.LastFailure.Evidence != quota.Evidence {
		t.Errorf("endpoint claude/anthropic: %+v", e)
	}
	if h.Endpoints[1].LastFailure != nil || h.Endpoints[2].Target != "gpt" || h.Endpoints[2].Provider != "anthropic" || h.Endpoints[2].State != "cooling" {
		t.Errorf("other endpoints: %+v", h.Endpoints[1:])
	}
	if a := h.Accounts[0]; a.Name != "anthropic" || a.State != "cooling" || a.LastFailure == nil || a.LastFailure.Class != "quota" {
		t.Errorf("account anthropic: %+v", a)
	}
}

func TestClassesPerMinuteForTheLastHour(t *testing.T) {
	c, _, srv := serve(t, now)
	c.Write(rec("a", "deep", "ok", now.Add(-90*time.Second), quota, answered))
	c.Write(rec("b", "deep", "ok", now, quota))
	c.Write(rec("old", "deep", "ok", now.Add(-61*time.Minute), quota))
	_, body := fetch(t, srv, "/ui/api/classes")
	var j struct {
		Minutes []time.Time `json:"minutes"`
		Series  []struct {
			Class  string `json:"class"`
			Counts []int  `json:"counts"`
		} `json:"series"`
	}
	decode(t, body, &j)
	if len(j.Minutes) != 60 || !j.Minutes[59].Equal(now.Truncate(time.Minute)) {
		t.Fatalf("minutes %v…%v", j.Minutes[0], j.Minutes[len(j.Minutes)-1])
	}
	got := map[string][]int{}
	for _, s := range j.Series {
		got[s.Class] = s.Counts
	}
	// 09:28:30 is in minute 57 of the hour shown, 09:30 in minute 59.
	if len(j.Series) != 2 || j.Series[0].Class != "ok" || got["quota"][57] != 1 || got["quota"][59] != 1 || got["ok"][57] != 1 {
		t.Errorf("series: %s", body)
	}
	total := 0
	for _, s := range j.Series {
		for _, n := range s.Counts {
			total += n
		}
	}
	if total != 3 {
		t.Errorf("%d attempts counted, want 3 (the one older than an hour left out)", total)
	}
}

// Records arrive from every request at once while pages read.
func TestConcurrentWritesAndReads(t *testing.T) {
	c, _, srv := serve(t, now)
	odd := decision.Attempt{Target: "gpt", Provider: "openai", Status: 400, Class: "unknown", Action: "next_target", Message: "odd 1"}
	done := make(chan struct{})
	for w := 0; w < 4; w++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := 0; i < 200; i++ {
				c.Write(rec(decision.NewID(), "deep", "ok", now, quota, odd, answered))
			}
		}()
	}
	for i := 0; i < 20; i++ {
		for _, p := range []string{"decisions", "health", "classes", "unknowns"} {
			if resp, body := fetch(t, srv, "/ui/api/"+p); resp.StatusCode != 200 {
				t.Fatalf("%s: %d %s", p, resp.StatusCode, body)
			}
		}
	}
	for w := 0; w < 4; w++ {
		<-done
	}
	if g := c.unknowns(); len(g) != 1 || g[0].Count != 800 {
		t.Errorf("unknown groups after 800 records: %+v", g)
	}
	if _, last := c.recent(query.Filter{}, 0, 1); last != 800 {
		t.Errorf("newest sequence %d, want 800", last)
	}
}

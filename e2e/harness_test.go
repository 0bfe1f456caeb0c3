package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// records collects decision records as the gateway writes them.
type records struct {
	mu   sync.Mutex
	cond *sync.Cond
	all  []*decision.Decision
}

func (r *records) Write(d *decision.Decision) {
	r.mu.Lock()
	r.all = append(r.all, d)
	r.mu.Unlock()
	r.cond.Broadcast()
}

// wait returns the n-th record (1-based), waiting up to 10s for it.
func (r *records) wait(t *testing.T, n int) *decision.Decision {
	t.Helper()
	deadline := time.AfterFunc(10*time.Second, r.cond.Broadcast)
	defer deadline.Stop()
	start := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	for len(r.all) < n {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("decision record %d never arrived (have %d)", n, len(r.all))
		}
		r.cond.Wait()
	}
	return r.all[n-1]
}

// gateway is one Detour serving a test configuration on loopback.
type gateway struct {
	URL  string
	recs *records
	app  *app.App
}

// fakes starts one scripted provider per name; configs refer to them as {name}.
func fakes(t *testing.T, scripts map[string]upstreamtest.Script) map[string]*upstreamtest.Server {
	t.Helper()
	out := map[string]*upstreamtest.Server{}
	for name, s := range scripts {
		srv := upstreamtest.New(s)
		t.Cleanup(srv.Close)
		out[name] = srv
	}
	return out
}

// start serves yaml (with {name} replaced by each fake's URL).
func start(t *testing.T, yaml string, fs map[string]*upstreamtest.Server) *gateway {
	t.Helper()
	var pairs []string
	for name, s := range fs {
		pairs = append(pairs, "{"+name+"}", s.URL)
	}
	yaml = strings.NewReplacer(pairs...).Replace(yaml)
	cfg, err := config.Parse("test.yaml", []byte(yaml), func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	recs := &records{}
	recs.cond = sync.NewCond(&recs.mu)
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(&testWriter{t}, nil))
	}
	a, err := app.New(cfg, app.Options{Logger: log, Decisions: recs, Backoff: func() time.Duration { return 10 * time.Millisecond }})
	if err != nil {
		t.Fatalf("app: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Serve(ctx, ln, 2*time.Second); close(done) }()
	t.Cleanup(func() { cancel(); <-done; a.Close(context.Background()) })
	return &gateway{URL: "http://" + ln.Addr().String(), recs: recs, app: a}
}

type testWriter struct{ t *testing.T }

func (w *testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

// reply is one HTTP answer from the gateway.
type reply struct {
	Status int
	Header http.Header
	Body   []byte
}

func (r reply) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("body is not JSON: %v: %s", err, r.Body)
	}
	return m
}

// errMessage returns error.message of an OpenAI error envelope.
func (r reply) errMessage(t *testing.T) string {
	t.Helper()
	e, _ := r.json(t)["error"].(map[string]any)
	if e == nil {
		t.Fatalf("no error envelope: %s", r.Body)
	}
	msg, _ := e["message"].(string)
	return msg
}

// post sends a chat request for model; extra is spliced into the JSON object.
func (g *gateway) post(t *testing.T, model, extra string, headers ...string) reply {
	t.Helper()
	body := `{"model":"` + model + `","messages":[{"role":"user","content":"hi"}]` + extra + `}`
	return g.raw(t, http.MethodPost, "/v1/chat/completions", body, headers...)
}

func (g *gateway) raw(t *testing.T, method, path, body string, headers ...string) reply {
	t.Helper()
	req, _ := http.NewRequest(method, g.URL+path, bytes.NewReader([]byte(body)))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// step is one expected attempt: "target/provider class action" (class "ok" on success).
func steps(d *decision.Decision) []string {
	var out []string
	for _, a := range d.Attempts {
		c := a.Class
		switch {
		case c != "":
		case a.Action == "done":
			c = "ok"
		default: // no class and not done: the client went away
			c = "-"
		}
		out = append(out, a.Target+"/"+a.Provider+" "+c+" "+a.Action)
	}
	return out
}

func wantSteps(t *testing.T, d *decision.Decision, want ...string) {
	t.Helper()
	got := steps(d)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		b, _ := json.MarshalIndent(d, "", "  ")
		t.Fatalf("attempts:\n  got  %q\n  want %q\nrecord: %s", got, want, b)
	}
}

// secret is the api_key every test provider uses; it must never leak.
const secret = "sk-test-secret-123"

// corpusCase is one file of classify/testdata/corpus: a real upstream answer.
type corpusCase struct {
	Dialect string            `json:"dialect"`
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers"`
	Stream  bool              `json:"stream"`
	Body    string            `json:"body"`
	Class   string            `json:"class"`
}

// corpus reads classify/testdata/corpus/<name>.json as a scripted answer:
// its status, body (SSE events when the case is a stream) and headers.
// extra are header name/value pairs added to the answer.
func corpus(t *testing.T, name string, extra ...string) upstreamtest.Step {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "classify", "testdata", "corpus", name+".json"))
	if err != nil {
		t.Fatalf("corpus: %v", err)
	}
	var c corpusCase
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatalf("corpus %s: %v", name, err)
	}
	st := upstreamtest.Step{Status: c.Status, Header: map[string]string{}}
	for k, v := range c.Headers {
		if !strings.EqualFold(k, "content-length") {
			st.Header[k] = v
		}
	}
	for i := 0; i+1 < len(extra); i += 2 {
		st.Header[extra[i]] = extra[i+1]
	}
	if c.Stream {
		st.Events = sseBlocks(c.Body)
	} else {
		st.Body = c.Body
	}
	return st
}

// corpusBody is the raw body of a corpus case.
func corpusBody(t *testing.T, name string) string {
	t.Helper()
	return corpus(t, name).Body
}

// sseBlocks splits SSE text into events for upstreamtest.Step.Events,
// dropping comment-only blocks.
func sseBlocks(text string) []string {
	var out []string
	for _, blk := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n\n") {
		var lines []string
		for _, l := range strings.Split(blk, "\n") {
			if l != "" && !strings.HasPrefix(l, ":") {
				lines = append(lines, l)
			}
		}
		if len(lines) > 0 {
			out = append(out, strings.Join(lines, "\n"))
		}
	}
	return out
}

// testdata reads a file of an adapter's testdata, e.g. ("anthropic", "stream/basic.sse").
func testdata(t *testing.T, dialect, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "internal", "provider", dialect, "testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// upstreamOf returns the "upstream" member of an adapter's response golden file.
func upstreamOf(t *testing.T, dialect, name string) string {
	t.Helper()
	var g struct {
		Upstream json.RawMessage `json:"upstream"`
	}
	if err := json.Unmarshal(testdata(t, dialect, name), &g); err != nil {
		t.Fatal(err)
	}
	return string(g.Upstream)
}

func ok(model, text string) upstreamtest.Step {
	return upstreamtest.Step{Body: upstreamtest.ChatJSON(model, text)}
}

func okStream(model string, parts ...string) upstreamtest.Step {
	return upstreamtest.Step{Events: upstreamtest.ChatStream(model, parts...)}
}

func script(steps ...upstreamtest.Step) upstreamtest.Script { return upstreamtest.Steps(steps...) }

// sseEvent is one event the gateway streamed to the client.
type sseEvent struct {
	Name, Data string
}

// events parses the body of a streamed reply.
func (r reply) events() []sseEvent {
	var out []sseEvent
	for _, blk := range strings.Split(string(r.Body), "\n\n") {
		var ev sseEvent
		has := false
		for _, l := range strings.Split(blk, "\n") {
			switch {
			case strings.HasPrefix(l, "event:"):
				ev.Name, has = strings.TrimSpace(l[6:]), true
			case strings.HasPrefix(l, "data:"):
				if ev.Data != "" {
					ev.Data += "\n"
				}
				ev.Data, has = ev.Data+strings.TrimPrefix(l[5:], " "), true
			}
		}
		if has {
			out = append(out, ev)
		}
	}
	return out
}

// content joins the delta content of a streamed reply and reports whether it
// ended with [DONE] and whether it carried an error event.
func (r reply) streamed(t *testing.T) (content string, done, errEvent bool) {
	t.Helper()
	for _, ev := range r.events() {
		switch {
		case ev.Name == "error":
			errEvent = true
		case ev.Data == "[DONE]":
			done = true
		default:
			var c struct {
				Choices []struct {
					Delta struct {
						Content string `json:"content"`
					} `json:"delta"`
				} `json:"choices"`
			}
			if err := json.Unmarshal([]byte(ev.Data), &c); err != nil {
				t.Fatalf("client got a malformed chunk %q: %v", ev.Data, err)
			}
			for _, ch := range c.Choices {
				content += ch.Delta.Content
			}
		}
	}
	return content, done, errEvent
}

// content returns choices[0].message.content and model of a chat completion.
func (r reply) content(t *testing.T) (content, model string) {
	t.Helper()
	var c struct {
		Model   string `json:"model"`
		Choices []struct {
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(r.Body, &c); err != nil || len(c.Choices) == 0 {
		t.Fatalf("not a chat completion (%v): %s", err, r.Body)
	}
	return c.Choices[0].Message.Content, c.Model
}

// wantStatus fails unless r has status.
func (r reply) wantStatus(t *testing.T, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
}

// get fetches path and decodes its JSON.
func (g *gateway) getJSON(t *testing.T, path string, v any, headers ...string) {
	t.Helper()
	r := g.raw(t, http.MethodGet, path, "", headers...)
	r.wantStatus(t, 200)
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("%s: %v: %s", path, err, r.Body)
	}
}

// healthView is GET /v1/health.
type healthView struct {
	Status    string `json:"status"`
	Endpoints []struct {
		Target        string     `json:"target"`
		Provider      string     `json:"provider"`
		Model         string     `json:"model"`
		State         string     `json:"state"`
		Failures      int        `json:"failures"`
		LastClass     string     `json:"last_class"`
		CooldownUntil *time.Time `json:"cooldown_until"`
		LatencyMS     *float64   `json:"latency_ms"`
	} `json:"endpoints"`
	Accounts []struct {
		Name          string     `json:"name"`
		State         string     `json:"state"`
		LastClass     string     `json:"last_class"`
		CooldownUntil *time.Time `json:"cooldown_until"`
	} `json:"accounts"`
}

func (g *gateway) health(t *testing.T) healthView {
	t.Helper()
	var h healthView
	g.getJSON(t, "/v1/health", &h)
	return h
}

// skipped returns "target/provider: reason" for every skip of d.
func skipped(d *decision.Decision) []string {
	var out []string
	for _, s := range d.Skipped {
		out = append(out, s.Target+"/"+s.Provider+": "+s.Reason)
	}
	return out
}

// wantSkip fails unless d skipped target/provider with a reason containing reason.
func wantSkip(t *testing.T, d *decision.Decision, ep, reason string) {
	t.Helper()
	for _, s := range d.Skipped {
		if s.Target+"/"+s.Provider == ep && strings.Contains(s.Reason, reason) {
			return
		}
	}
	t.Errorf("no skip of %s for %q; skipped: %q", ep, reason, skipped(d))
}

// waitCalls waits (up to 10s) until fake has received n requests.
func waitCalls(t *testing.T, fake *upstreamtest.Server, n int) {
	t.Helper()
	for start := time.Now(); fake.Calls() < n; time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > 10*time.Second {
			t.Fatalf("the fake got %d calls, want %d", fake.Calls(), n)
		}
	}
}

// byID waits (up to 10s) for the record of decision id.
func (r *records) byID(t *testing.T, id string) *decision.Decision {
	t.Helper()
	deadline := time.AfterFunc(10*time.Second, r.cond.Broadcast)
	defer deadline.Stop()
	start := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		for _, d := range r.all {
			if d.ID == id {
				return d
			}
		}
		if time.Since(start) > 10*time.Second {
			t.Fatalf("decision record %s never arrived", id)
		}
		r.cond.Wait()
	}
}

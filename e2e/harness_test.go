package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// records is the gateway's decision sink as the tests read it.
type records struct{ *gatewaytest.Records }

// wait returns the n-th record (1-based), waiting up to 30s (a failure guard) for it.
func (r records) wait(t *testing.T, n int) *decision.Decision {
	t.Helper()
	return r.Wait(t, n)
}

// byID waits (up to 30s) for the record of decision id.
func (r records) byID(t *testing.T, id string) *decision.Decision {
	t.Helper()
	return r.ByID(t, id)
}

// gateway is one Detour serving a test configuration on loopback.
type gateway struct {
	URL  string
	recs records
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
	return startWith(t, yaml, fs, 10*time.Millisecond)
}

// startWith is start with the given same-endpoint retry backoff.
func startWith(t *testing.T, yaml string, fs map[string]*upstreamtest.Server, backoffFor time.Duration) *gateway {
	t.Helper()
	var pairs []string
	for name, s := range fs {
		pairs = append(pairs, "{"+name+"}", s.URL)
	}
	yaml = strings.NewReplacer(pairs...).Replace(yaml)
	recs := gatewaytest.NewRecords()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		log = slog.New(slog.NewTextHandler(&testWriter{t}, nil))
	}
	backoff := func() time.Duration { return backoffFor }
	url, a := gatewaytest.Start(t, gatewaytest.Config(t, yaml), app.Options{Logger: log, Decisions: recs, Backoff: backoff})
	return &gateway{URL: url, recs: records{recs}, app: a}
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

// wantDate checks that r carries one Date header, in HTTP's format, of
// the moment it was answered (Detour formats it once a second).
func (r reply) wantDate(t *testing.T) {
	t.Helper()
	v := r.Header.Values("Date")
	if len(v) != 1 {
		t.Fatalf("Date = %q, want one value", v)
	}
	d, err := http.ParseTime(v[0])
	if off := time.Since(d); err != nil || off < -time.Second || off > 5*time.Second {
		t.Errorf("Date %q: %v, %v from now", v[0], err, off)
	}
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
		out = append(out, a.Target+"/"+a.Provider+" "+c+" "+string(a.Action))
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

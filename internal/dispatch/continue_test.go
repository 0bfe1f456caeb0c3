package dispatch

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/metrics"
	"github.com/detour-llm/detour/internal/provider"
)

// The decisions of mid-stream continuation, driven by a fake caller that
// streams through the walk's own commit, write, end and streamError (what
// stream does for an upstream's events), without HTTP.

// play is what one fake stream attempt does: a failure before any content
// (status, message), or a role chunk, the parts, then a finish (done) or a
// cut of class cut. tool sends a tool-call delta before the cut.
type play struct {
	status int
	msg    string
	parts  []string
	tool   bool
	done   bool
	cut    classify.Class
	usage  *provider.Usage // reported after the parts, as a stream's usage
}

// seen is one call the fake stream caller received.
type seen struct {
	key     health.Key
	mode    string // "" for no continuation, else prefill or replay
	request string // the request body the walk would send
}

type streamFake struct {
	mu    sync.Mutex
	plays func(k health.Key, n int) play
	calls []seen
}

func (f *streamFake) call(_ context.Context, w *walk, e *endpointRT) *outcome {
	body := string(w.requestFor(e).Body)
	f.mu.Lock()
	mode := ""
	if w.cont != nil && w.cont.cutting {
		mode = w.cont.mode.String()
	}
	f.calls = append(f.calls, seen{key: e.key, mode: mode, request: body})
	p := f.plays(e.key, len(f.calls))
	f.mu.Unlock()
	o := &outcome{status: p.status}
	if p.status != 0 {
		o.failWith(classify.Verdict{Class: classify.BadRequest, Evidence: "fake"}, p.msg)
		return o
	}
	o.status, o.billable = 200, true
	id := fmt.Sprintf("chatcmpl-%s-%d", e.key.Provider, len(f.calls))
	chunk := func(delta, finish string) []byte {
		return []byte(`{"id":"` + id + `","object":"chat.completion.chunk","created":` + fmt.Sprint(1000+len(f.calls)) +
			`,"model":"` + e.ep.Model + `","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + finish + `}]}`)
	}
	if !w.commit(e, [][]byte{chunk(`{"role":"assistant","content":""}`, "null")}, o) {
		return o
	}
	for _, s := range p.parts {
		b, _ := json.Marshal(s)
		if !w.write(o, chunk(`{"content":`+string(b)+`}`, "null")) {
			return o
		}
	}
	if p.usage != nil {
		o.usage = p.usage
		w.cont.report(p.usage)
	}
	if p.tool && !w.write(o, chunk(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\""}}]}`, "null")) {
		return o
	}
	if p.done {
		if w.write(o, chunk(`{}`, `"stop"`)) {
			o.ok = w.end(o)
		}
		return o
	}
	o.failWith(classify.Verdict{Class: p.cut, Evidence: "fake:cut"}, "fake cut "+p.cut.String())
	w.streamError(o)
	return o
}

// recorder is the client's Output.
type recorder struct {
	commits, ends int
	fail          *Failure
	chunks        []map[string]any
	text          strings.Builder
}

func (r *recorder) Commit(Commit) error { r.commits++; return nil }
func (r *recorder) End() error          { r.ends++; return nil }
func (r *recorder) Flush() error        { return nil }
func (r *recorder) Fail(f *Failure) error {
	r.fail = f
	return nil
}
func (r *recorder) Chunk(b []byte) error {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	r.chunks = append(r.chunks, m)
	for _, c := range m["choices"].([]any) {
		d, _ := c.(map[string]any)["delta"].(map[string]any)
		s, _ := d["content"].(string)
		r.text.WriteString(s)
	}
	return nil
}

// contBase: target a through p1 then p2, target b through q (prefill
// true), target c through y; every provider openai.
const contBase = `
retry: {max_wait: 1s}
providers:
  - {name: p1, dialect: openai, base_url: "http://127.0.0.1:9/v1", api_key: k}
  - {name: p2, dialect: openai, base_url: "http://127.0.0.1:9/v1", api_key: k}
  - {name: q, dialect: openai, base_url: "http://127.0.0.1:9/v1", api_key: k}
  - {name: y, dialect: openai, base_url: "http://127.0.0.1:9/v1", api_key: k}
targets:
  - {name: a, model: ma, providers: [p1, p2]}
  - {name: b, model: mb, providers: [q], prefill: true}
  - {name: c, model: mc, providers: [y]}
routes:
`

type contHarness struct {
	d    *Dispatcher
	f    *streamFake
	m    *metrics.Metrics
	recs []*decision.Decision
	mu   sync.Mutex
}

func (h *contHarness) Write(d *decision.Decision) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.recs = append(h.recs, d)
}

func newContHarness(t *testing.T, route string, plays func(health.Key, int) play) *contHarness {
	t.Helper()
	cfg, err := config.Parse("test.yaml", []byte(contBase+"  - "+route+"\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	var keys []health.Key
	for _, tg := range cfg.Targets {
		for _, p := range tg.Providers {
			keys = append(keys, health.Key{Target: tg.Name, Provider: p})
		}
	}
	h := &contHarness{f: &streamFake{plays: plays}, m: metrics.New()}
	tr := health.New(health.NewMemory(), health.Settings{FailureThreshold: 3, Cooldown: time.Second, MaxCooldown: time.Minute}, keys, nil)
	h.d, err = New(Options{Config: cfg, Health: tr, Decisions: h, Metrics: h.m, Backoff: func() time.Duration { return 0 },
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	h.d.call = h.f.call
	return h
}

func (h *contHarness) stream(t *testing.T, model string, maxBillable int) (*recorder, *Result) {
	t.Helper()
	out := &recorder{}
	res := h.d.Do(context.Background(), &Call{Model: model, Stream: true, Out: out, ID: "t", MaxBillable: maxBillable,
		Body: []byte(`{"model":"` + model + `","stream":true,"messages":[{"role":"user","content":"hi"}]}`)})
	return out, res
}

// continuations returns the detour_continuations_total series as
// "mode outcome" → count.
func (h *contHarness) continuations(t *testing.T) map[string]float64 {
	t.Helper()
	fams, err := h.m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range fams {
		if f.GetName() != "detour_continuations_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			l := map[string]string{}
			for _, p := range m.GetLabel() {
				l[p.GetName()] = p.GetValue()
			}
			out[l["mode"]+" "+l["outcome"]] = m.GetCounter().GetValue()
		}
	}
	return out
}

var whole = []string{"Hello", ", wor", "ld! How", " are you?"}

// cutAfter plays the first n parts of whole, then a cut of class c.
func cutAfter(n int, c classify.Class) play { return play{parts: whole[:n], cut: c} }

var wholePlay = play{parts: whole, done: true}

// wantClean checks one seamless stream: one commit, one end, no fail, the
// whole text, one role delta, the first upstream's id and created throughout.
func wantClean(t *testing.T, out *recorder, res *Result) {
	t.Helper()
	if out.commits != 1 || out.ends != 1 || out.fail != nil || res.Failure != nil || !res.Committed {
		t.Fatalf("commits %d, ends %d, fail %+v, result %+v", out.commits, out.ends, out.fail, res)
	}
	if got := out.text.String(); got != strings.Join(whole, "") {
		t.Errorf("client text %q, want %q", got, strings.Join(whole, ""))
	}
	roles := 0
	for _, c := range out.chunks {
		if c["id"] != out.chunks[0]["id"] || c["created"] != out.chunks[0]["created"] || c["model"] != out.chunks[0]["model"] {
			t.Errorf("chunk %v is not of the first upstream's stream %v", c, out.chunks[0])
		}
		for _, ch := range c["choices"].([]any) {
			if _, ok := ch.(map[string]any)["delta"].(map[string]any)["role"]; ok {
				roles++
			}
		}
	}
	if roles != 1 {
		t.Errorf("%d role deltas", roles)
	}
}

func wantContinuation(t *testing.T, a decision.Attempt, n int, mode string, offset int, class string) {
	t.Helper()
	want := decision.Continuation{N: n, Mode: mode, OffsetChars: offset, CutClass: class}
	if a.Continuation == nil || *a.Continuation != want {
		t.Errorf("attempt %s/%s continuation %+v, want %+v", a.Target, a.Provider, a.Continuation, want)
	}
}

// A cut continues at the target's next endpoint (server_error moves on to
// it) by replay: the client gets the whole answer in one stream.
func TestContinueCutAtNextEndpointByReplay(t *testing.T) {
	h := newContHarness(t, `{name: r, targets: [a, b], on_stream_cut: continue}`, func(k health.Key, n int) play {
		if n == 1 {
			return cutAfter(2, classify.ServerError)
		}
		return wholePlay
	})
	out, res := h.stream(t, "r", 0)
	wantClean(t, out, res)
	d := res.Decision
	wantSteps(t, d, "a/p1 server_error next_endpoint", "a/p2 ok done")
	if d.Attempts[0].Continuation != nil {
		t.Errorf("the cut attempt is marked a continuation")
	}
	wantContinuation(t, d.Attempts[1], 1, "replay", len("Hello, wor"), "server_error")
	if h.f.calls[1].request != string(h.f.calls[0].request) {
		t.Errorf("a replay sends the original request: %s", h.f.calls[1].request)
	}
	if got := h.continuations(t); got["replay ok"] != 1 || len(got) != 1 {
		t.Errorf("continuation metrics %v", got)
	}
}

// At a target that accepts a prefill, the delivered text goes as a trailing
// assistant message (with continue_final_message for openai) and only the
// rest is streamed; the join keeps one space.
func TestContinueByPrefill(t *testing.T) {
	h := newContHarness(t, `{name: r, targets: [c, b], on_stream_cut: continue}`, func(k health.Key, n int) play {
		if n == 1 {
			return play{parts: []string{"Hello, ", "world! How "}, cut: classify.Timeout}
		}
		return play{parts: []string{" are", " you?"}, done: true} // repeats the space the prefill dropped
	})
	out, res := h.stream(t, "r", 0)
	wantClean(t, out, res)
	wantSteps(t, res.Decision, "c/y timeout next_target", "b/q ok done")
	wantContinuation(t, res.Decision.Attempts[1], 1, "prefill", len("Hello, world! How "), "timeout")
	var req struct {
		Messages []struct{ Role, Content string }
		Continue bool `json:"continue_final_message"`
	}
	if err := json.Unmarshal([]byte(h.f.calls[1].request), &req); err != nil {
		t.Fatal(err)
	}
	last := req.Messages[len(req.Messages)-1]
	if last.Role != "assistant" || last.Content != "Hello, world! How" || !req.Continue {
		t.Errorf("prefill request %s", h.f.calls[1].request)
	}
}

// A target that refuses the prefill is asked again by replay: the refusal
// never reaches the client.
func TestContinuePrefillRefusedFallsBackToReplay(t *testing.T) {
	refusal := "This model does not support assistant message prefill. The conversation must end with a user message."
	h := newContHarness(t, `{name: r, targets: [c, b], on_stream_cut: continue}`, func(k health.Key, n int) play {
		switch n {
		case 1:
			return cutAfter(2, classify.ServerError)
		case 2:
			return play{status: 400, msg: refusal}
		}
		return wholePlay
	})
	out, res := h.stream(t, "r", 0)
	wantClean(t, out, res)
	d := res.Decision
	wantSteps(t, d, "c/y server_error next_target", "b/q bad_request retry", "b/q ok done")
	wantContinuation(t, d.Attempts[1], 1, "prefill", 10, "server_error")
	wantContinuation(t, d.Attempts[2], 1, "replay", 10, "server_error")
	if got := h.continuations(t); got["prefill refused"] != 1 || got["replay ok"] != 1 {
		t.Errorf("continuation metrics %v", got)
	}
}

// The refusal is not the client's error even when no replay may follow.
func TestContinuePrefillRefusedWithoutBudgetEndsWithTheCut(t *testing.T) {
	h := newContHarness(t, `{name: r, targets: [c, b], on_stream_cut: continue, max_attempts: 2}`, func(k health.Key, n int) play {
		if n == 1 {
			return cutAfter(2, classify.ServerError)
		}
		return play{status: 400, msg: "Prefilling assistant messages is not supported for this model."}
	})
	out, res := h.stream(t, "r", 0)
	if out.fail == nil || out.fail.Class != classify.ServerError || out.fail.Message != "fake cut server_error" || out.ends != 0 {
		t.Fatalf("client fail %+v, ends %d", out.fail, out.ends)
	}
	if res.Failure != out.fail || !res.Committed || res.Decision.Class != "server_error" {
		t.Errorf("result %+v, record class %s", res, res.Decision.Class)
	}
	if got := h.continuations(t); got["prefill budget"] != 1 {
		t.Errorf("continuation metrics %v", got)
	}
}

// A replay that does not reproduce the delivered text ends the stream with
// an error event; nothing of it reaches the client.
func TestContinueReplayDiverges(t *testing.T) {
	h := newContHarness(t, `{name: r, targets: [a], on_stream_cut: continue}`, func(k health.Key, n int) play {
		if n == 1 {
			return cutAfter(2, classify.ServerError)
		}
		return play{parts: []string{"Hello, there. Something else."}, done: true}
	})
	out, res := h.stream(t, "r", 0)
	if out.fail == nil || out.ends != 0 || out.text.String() != "Hello, wor" {
		t.Fatalf("client: fail %+v, ends %d, text %q", out.fail, out.ends, out.text.String())
	}
	if !strings.Contains(out.fail.Message, "diverged") || out.fail.Class != classify.ServerError {
		t.Errorf("fail %+v", out.fail)
	}
	d := res.Decision
	wantSteps(t, d, "a/p1 server_error next_endpoint", "a/p2 server_error stop")
	if a := d.Attempts[1]; a.Evidence != "continue:replay-diverged" || a.Counted || !a.Billable {
		t.Errorf("diverged attempt %+v", a)
	}
	if got := h.continuations(t); got["replay diverged"] != 1 {
		t.Errorf("continuation metrics %v", got)
	}
}

// A cut inside a tool call is never continued.
func TestContinueNotInsideAToolCall(t *testing.T) {
	h := newContHarness(t, `{name: r, targets: [a, b], on_stream_cut: continue}`, func(k health.Key, n int) play {
		if n == 1 {
			return play{parts: whole[:1], tool: true, cut: classify.ServerError}
		}
		return wholePlay
	})
	out, res := h.stream(t, "r", 0)
	if out.fail == nil || len(h.f.calls) != 1 {
		t.Fatalf("fail %+v after %d calls", out.fail, len(h.f.calls))
	}
	wantSteps(t, res.Decision, "a/p1 server_error stop")
	if got := h.continuations(t); got["none unsplicable"] != 1 {
		t.Errorf("continuation metrics %v", got)
	}
}

// Budgets hold: max_billable_attempts (every continuation is billable),
// max_continuations; on_stream_cut: error (the default) never continues.
func TestContinueWithinBudgets(t *testing.T) {
	cutEvery := func(k health.Key, n int) play { return cutAfter(min(n+1, 3), classify.ServerError) }
	for _, tc := range []struct {
		name, route string
		maxBillable int
		calls       int
		metric      string
	}{
		{"max_billable_attempts", `{name: r, targets: [a, b], on_stream_cut: continue}`, 1, 1, "none budget"},
		{"max_continuations", `{name: r, targets: [a, b], on_stream_cut: continue, max_continuations: 1}`, 0, 2, "none budget"},
		{"max_continuations 0", `{name: r, targets: [a, b], on_stream_cut: continue, max_continuations: 0}`, 0, 1, ""},
		{"on_stream_cut error", `{name: r, targets: [a, b]}`, 0, 1, ""},
		{"the table", `{name: r, targets: [c], on_stream_cut: continue}`, 0, 1, "none failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newContHarness(t, tc.route, cutEvery)
			out, res := h.stream(t, "r", tc.maxBillable)
			if out.fail == nil || out.commits != 1 || out.ends != 0 || len(h.f.calls) != tc.calls {
				t.Fatalf("fail %+v, commits %d, ends %d, calls %d", out.fail, out.commits, out.ends, len(h.f.calls))
			}
			if res.Failure == nil || !res.Committed || res.Decision.Attempts[len(res.Decision.Attempts)-1].Action != decision.ActionStop {
				t.Errorf("result %+v, %v", res, steps(res.Decision))
			}
			got := h.continuations(t)
			if tc.metric == "" && len(got) != 0 || tc.metric != "" && got[tc.metric] != 1 {
				t.Errorf("continuation metrics %v, want %q", got, tc.metric)
			}
		})
	}
}

// A continuation cut in its turn is continued again, up to
// max_continuations, each recorded with its own offset.
func TestContinueTwice(t *testing.T) {
	h := newContHarness(t, `{name: r, targets: [a, c], on_stream_cut: continue}`, func(k health.Key, n int) play {
		switch n {
		case 1:
			return cutAfter(1, classify.ServerError)
		case 2:
			return cutAfter(3, classify.Timeout)
		}
		return wholePlay
	})
	out, res := h.stream(t, "r", 0)
	wantClean(t, out, res)
	d := res.Decision
	wantSteps(t, d, "a/p1 server_error next_endpoint", "a/p2 timeout next_target", "c/y ok done")
	wantContinuation(t, d.Attempts[1], 1, "replay", 5, "server_error")
	wantContinuation(t, d.Attempts[2], 2, "replay", len("Hello, world! How"), "timeout")
	if got := h.continuations(t); got["replay ok"] != 2 {
		t.Errorf("continuation metrics %v", got)
	}
}

// The shutdown grace period ending while a cut stream waits for its
// continuation: the client, which has the stream, is told with the error
// event (code shutdown), and the record says shutdown.
func TestContinueShutdownWhileContinuing(t *testing.T) {
	stop, shut := context.WithCancel(context.Background())
	defer shut()
	h := newContHarness(t, `{name: r, targets: [a, b], on_stream_cut: continue}`, func(k health.Key, n int) play {
		return cutAfter(2, classify.ServerError)
	})
	h.d.opt.Stop = stop
	first := h.d.call
	h.d.call = func(ctx context.Context, w *walk, e *endpointRT) *outcome {
		if w.cont != nil && w.cont.cutting { // the continuation: the grace period ends now
			shut()
			<-w.base.Done()
			o := &outcome{}
			w.gone(o)
			return o
		}
		return first(ctx, w, e)
	}
	out, res := h.stream(t, "r", 0)
	if out.fail == nil || out.fail.Code != "shutdown" || out.ends != 0 || out.text.String() != "Hello, wor" {
		t.Fatalf("client: fail %+v, ends %d, text %q", out.fail, out.ends, out.text.String())
	}
	if !res.Committed || res.Decision.Outcome != decision.OutcomeShutdown {
		t.Errorf("result %+v, outcome %s", res, res.Decision.Outcome)
	}
	if got := h.continuations(t); got["replay canceled"] != 1 {
		t.Errorf("continuation metrics %v", got)
	}
}

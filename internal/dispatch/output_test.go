package dispatch_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/dispatch"
	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// client is what a client of the front would see through the Output: the
// calls in order; it goes away (returns an error) at chunk failAt (0: never).
type client struct {
	calls     []string
	chunks    int
	failAt    int
	fullAt    int // Chunk says the answer is too large (dispatch.ErrTooLarge) at this chunk
	flushes   int
	failFlush bool // every Flush fails, as for a client that left
}

func (c *client) Commit(x dispatch.Commit) error {
	c.calls = append(c.calls, "commit "+x.Target+"/"+x.Provider+" "+string(rune('0'+x.Attempts)))
	return nil
}

func (c *client) Chunk(b []byte) error {
	c.chunks++
	if c.chunks == c.failAt {
		return errors.New("client gone")
	}
	if c.chunks == c.fullAt {
		return dispatch.ErrTooLarge
	}
	if !json.Valid(b) {
		c.calls = append(c.calls, "invalid chunk "+string(b))
	}
	c.calls = append(c.calls, "chunk")
	return nil
}

func (c *client) Flush() error {
	c.flushes++
	if c.failFlush {
		return errors.New("client gone")
	}
	return nil
}

func (c *client) End() error { c.calls = append(c.calls, "end"); return nil }

func (c *client) Fail(f *dispatch.Failure) error {
	c.calls = append(c.calls, "fail "+f.Class.String())
	return nil
}

// dispatcher serves route "r": target a on provider pa, then target b on
// provider pb, each a loopback fake.
func dispatcher(t *testing.T, a, b upstreamtest.Script) (*dispatch.Dispatcher, *upstreamtest.Server, *upstreamtest.Server) {
	t.Helper()
	ua, ub := upstreamtest.New(a), upstreamtest.New(b)
	t.Cleanup(ua.Close)
	t.Cleanup(ub.Close)
	yaml := `providers:
  - {name: pa, dialect: openai, base_url: "` + ua.URL + `/v1", api_key: sk-test}
  - {name: pb, dialect: openai, base_url: "` + ub.URL + `/v1", api_key: sk-test}
targets:
  - {name: a, model: ma, providers: [pa]}
  - {name: b, model: mb, providers: [pb]}
routes:
  - {name: r, targets: [a, b]}
`
	d := abDispatcher(t, yaml)
	return d, ua, ub
}

// abDispatcher serves the configuration yaml, whose targets are a on
// provider pa and b on provider pb, with a memory health store.
func abDispatcher(t *testing.T, yaml string) *dispatch.Dispatcher {
	t.Helper()
	cfg, err := config.Parse("t.yaml", []byte(yaml), nil)
	if err != nil {
		t.Fatal(err)
	}
	keys := []health.Key{{Target: "a", Provider: "pa"}, {Target: "b", Provider: "pb"}}
	tr := health.New(health.NewMemory(), health.Settings{FailureThreshold: 3, Cooldown: cfg.Health.Cooldown, MaxCooldown: cfg.Health.MaxCooldown}, keys, nil)
	d, err := dispatch.New(dispatch.Options{Config: cfg, Health: tr, Classifier: &classify.Classifier{Rules: cfg.Rules}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	return d
}

func streamCall(out dispatch.Output) *dispatch.Call {
	return &dispatch.Call{Model: "r", Stream: true, Out: out, ID: "id",
		Body: []byte(`{"model":"r","stream":true,"messages":[{"role":"user","content":"hi"}]}`)}
}

// A stream reaches the Output as facts: the commit, one canonical chunk
// per call (no SSE framing, no [DONE]), the end.
func TestOutputReceivesTheStream(t *testing.T) {
	d, _, _ := dispatcher(t, upstreamtest.Steps(upstreamtest.Step{Events: upstreamtest.ChatStream("ma", "x", "y")}),
		upstreamtest.Steps(upstreamtest.Step{Status: 500}))
	c := &client{}
	res := d.Do(context.Background(), streamCall(c))
	// role chunk, two parts, finish chunk; the usage chunk the gateway asked for is kept back.
	want := "commit a/pa 1,chunk,chunk,chunk,chunk,end"
	if got := strings.Join(c.calls, ","); got != want {
		t.Errorf("Output saw %s\nwant %s", got, want)
	}
	if !res.Committed || res.Failure != nil || res.Canceled || res.Attempts != 1 || res.Target != "a" {
		t.Errorf("result %+v", res)
	}
}

// A whole answer to a stream request reaches the Output as chunks too.
func TestOutputReceivesAWholeAnswerAsChunks(t *testing.T) {
	d, _, _ := dispatcher(t, upstreamtest.Steps(upstreamtest.Step{Body: upstreamtest.ChatJSON("ma", "whole")}),
		upstreamtest.Steps(upstreamtest.Step{Status: 500}))
	c := &client{}
	res := d.Do(context.Background(), streamCall(c))
	if got, want := strings.Join(c.calls, ","), "commit a/pa 1,chunk,chunk,end"; got != want {
		t.Errorf("Output saw %s\nwant %s", got, want)
	}
	if !res.Committed || res.Failure != nil {
		t.Errorf("result %+v", res)
	}
}

// An Output that reports its client gone ends the request as canceled:
// billable (the upstream ran it), no failover to the next target, nothing
// more written.
func TestOutputErrorCancelsTheAttempt(t *testing.T) {
	d, _, ub := dispatcher(t, upstreamtest.Steps(upstreamtest.Step{Events: upstreamtest.ChatStream("ma", "x", "y")}),
		upstreamtest.Steps(upstreamtest.Step{Events: upstreamtest.ChatStream("mb", "z")}))
	c := &client{failAt: 2}
	res := d.Do(context.Background(), streamCall(c))
	if got, want := strings.Join(c.calls, ","), "commit a/pa 1,chunk"; got != want {
		t.Errorf("Output saw %s\nwant %s", got, want)
	}
	if !res.Canceled || res.Failure != nil {
		t.Errorf("result %+v, want canceled", res)
	}
	rec := res.Decision
	if rec.Outcome != decision.OutcomeCanceled || len(rec.Attempts) != 1 || !rec.Attempts[0].Billable {
		t.Errorf("record: outcome %s, attempts %+v", rec.Outcome, rec.Attempts)
	}
	if ub.Calls() != 0 {
		t.Errorf("the next target was called %d times after the client left", ub.Calls())
	}
}

// An Output that cannot hold more of the answer (the Responses door past
// 64 MiB) fails the attempt as an answer too large: the client gets the
// error event, the record says server_error with its evidence, and the
// attempt is billable (review 30b: the door grew its memory for as long
// as the upstream streamed).
func TestOutputFullFailsTheAttempt(t *testing.T) {
	d, _, _ := dispatcher(t, upstreamtest.Steps(upstreamtest.Step{Events: upstreamtest.ChatStream("ma", "x", "y")}),
		upstreamtest.Steps(upstreamtest.Step{Events: upstreamtest.ChatStream("mb", "z")}))
	c := &client{fullAt: 2}
	res := d.Do(context.Background(), streamCall(c))
	if got, want := strings.Join(c.calls, ","), "commit a/pa 1,chunk,fail server_error"; got != want {
		t.Errorf("Output saw %s\nwant %s", got, want)
	}
	rec := res.Decision
	if res.Canceled || rec.Outcome != decision.OutcomeError || len(rec.Attempts) != 1 ||
		!rec.Attempts[0].Billable || rec.Attempts[0].Evidence != "answer:too large" {
		t.Errorf("result %+v; record: outcome %s, attempts %+v", res, rec.Outcome, rec.Attempts)
	}
}

// Chunks wait in the client's buffer until dispatch flushes them before the
// next upstream read; a flush that fails ends the attempt as canceled like
// a failed write: billable, nothing more asked of the upstream or the next
// target.
func TestOutputFlushErrorCancelsTheAttempt(t *testing.T) {
	// The events come 20ms apart, so dispatch reads the upstream again
	// after the first content (events that came together are all written
	// before the flush).
	d, _, ub := dispatcher(t, upstreamtest.Steps(upstreamtest.Step{Events: upstreamtest.ChatStream("ma", "x", "y"), EventDelay: 20 * time.Millisecond}),
		upstreamtest.Steps(upstreamtest.Step{Events: upstreamtest.ChatStream("mb", "z")}))
	c := &client{failFlush: true}
	res := d.Do(context.Background(), streamCall(c))
	if got, want := strings.Join(c.calls, ","), "commit a/pa 1,chunk,chunk"; got != want {
		t.Errorf("Output saw %s\nwant %s", got, want)
	}
	if c.flushes != 1 {
		t.Errorf("%d flushes, want 1 (the one that failed)", c.flushes)
	}
	if !res.Canceled || res.Failure != nil {
		t.Errorf("result %+v, want canceled", res)
	}
	rec := res.Decision
	if rec.Outcome != decision.OutcomeCanceled || len(rec.Attempts) != 1 || !rec.Attempts[0].Billable {
		t.Errorf("record: outcome %s, attempts %+v", rec.Outcome, rec.Attempts)
	}
	if ub.Calls() != 0 {
		t.Errorf("the next target was called %d times after the client left", ub.Calls())
	}
}

// A stream cut after the commit point ends with the Output's Fail, and no End.
func TestOutputFailAfterCommit(t *testing.T) {
	events := upstreamtest.ChatStream("ma", "x")
	d, _, ub := dispatcher(t, upstreamtest.Steps(upstreamtest.Step{Events: events[:2], Cut: true}),
		upstreamtest.Steps(upstreamtest.Step{Events: upstreamtest.ChatStream("mb", "z")}))
	c := &client{}
	res := d.Do(context.Background(), streamCall(c))
	if got, want := strings.Join(c.calls, ","), "commit a/pa 1,chunk,chunk,fail server_error"; got != want {
		t.Errorf("Output saw %s\nwant %s", got, want)
	}
	if !res.Committed || res.Failure == nil || res.Failure.Class != classify.ServerError || ub.Calls() != 0 {
		t.Errorf("result %+v, next target called %d times", res, ub.Calls())
	}
}

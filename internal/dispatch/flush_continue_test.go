package dispatch_test

import (
	"context"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/dispatch"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// continuingDispatcher: route r (on_stream_cut: continue) over target a
// (provider pa) then target b (provider pb), each a loopback fake.
func continuingDispatcher(t *testing.T, a, b upstreamtest.Script) (*dispatch.Dispatcher, *upstreamtest.Server) {
	t.Helper()
	ua, ub := upstreamtest.New(a), upstreamtest.New(b)
	t.Cleanup(ua.Close)
	t.Cleanup(ub.Close)
	d := abDispatcher(t, `providers:
  - {name: pa, dialect: openai, base_url: "`+ua.URL+`/v1", api_key: sk-test}
  - {name: pb, dialect: openai, base_url: "`+ub.URL+`/v1", api_key: sk-test}
targets:
  - {name: a, model: ma, providers: [pa]}
  - {name: b, model: mb, providers: [pb]}
routes:
  - {name: r, targets: [a, b], on_stream_cut: continue}
`)
	return d, ub
}

// The flush that sends the last chunks of an attempt ended by an error
// event (flushingBody.flush, deferred in stream) is a write to the client
// like any other: when it fails, the walk ends as canceled, as after the
// read-path flush (TestOutputFlushErrorCancelsTheAttempt), and a continuing
// route does not call the next target for a client that is gone (found by
// the hostile review: the error was ignored and the stream continued).
func TestFlushErrorAfterAnErrorEventEndsTheWalk(t *testing.T) {
	evs := upstreamtest.ChatStream("ma", "x")
	// The role chunk, one content chunk and an error event reach Detour in
	// one write: the error event is read from the buffer, with no upstream
	// read (and so no read-path flush) after the content.
	burst := "data: " + evs[0] + "\n\ndata: " + evs[1] + "\n\ndata: " +
		`{"error":{"message":"The server had an error while processing your request","type":"server_error"}}`
	d, ub := continuingDispatcher(t,
		upstreamtest.Steps(upstreamtest.Step{Events: []string{burst}, Stall: true}),
		upstreamtest.Steps(upstreamtest.Step{Events: upstreamtest.ChatStream("mb", "x", "y")}))
	c := &orderClient{client{failFlush: true}}
	res := d.Do(context.Background(), streamCall(c))
	t.Logf("Output saw %s; flushes %d", strings.Join(c.calls, ","), c.flushes)
	if ub.Calls() != 0 {
		t.Errorf("the next target was called %d times after the flush to the client failed", ub.Calls())
	}
	if !res.Canceled {
		t.Errorf("result %+v, want canceled (the client could not be written to)", res)
	}
	if rec := res.Decision; rec.Outcome != decision.OutcomeCanceled {
		t.Errorf("record: outcome %s, %d attempts", rec.Outcome, len(rec.Attempts))
	}
}

// orderClient records every Output call, flushes included; every Flush
// fails, as for a client that left.
type orderClient struct{ client }

func (c *orderClient) Flush() error {
	c.calls = append(c.calls, "flush")
	return c.client.Flush()
}

// An `event: error` whose data the classifier reads as no failure (empty,
// or a success-looking body) is still an error event: the attempt fails as
// unknown before the commit point and the walk moves on, instead of relaying
// what follows as content (found by the hostile review: the fallback verdict
// was never marked failed).
func TestUnreadableErrorEventFailsTheAttempt(t *testing.T) {
	evs := upstreamtest.ChatStream("ma", "x")
	d, _, ub := dispatcher(t,
		upstreamtest.Steps(upstreamtest.Step{Events: append([]string{"event: error\ndata: {}"}, evs...)}),
		upstreamtest.Steps(upstreamtest.Step{Events: upstreamtest.ChatStream("mb", "z")}))
	c := &client{}
	res := d.Do(context.Background(), streamCall(c))
	if ub.Calls() != 1 || res.Target != "b" {
		t.Fatalf("target %q, next target called %d times: want the walk to move on to b", res.Target, ub.Calls())
	}
	if a := res.Decision.Attempts[0]; a.Class != "unknown" || a.Evidence != "stream:error event" {
		t.Errorf("first attempt %s / %s, want unknown / stream:error event", a.Class, a.Evidence)
	}
}

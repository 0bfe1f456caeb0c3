package dispatch

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/health"
)

// waitingHarness is a harness whose upstream calls wait until their request
// is ended (the client leaves, or the grace period ends); started receives
// one value per call that began.
func waitingHarness(t *testing.T, stop context.Context) (*harness, chan struct{}) {
	h := newHarness(t, "", func(health.Key, int) answer { return okAnswer })
	h.d.opt.Stop = stop
	started := make(chan struct{}, 16)
	h.d.call = func(_ context.Context, w *walk, _ *endpointRT) *outcome {
		started <- struct{}{}
		<-w.base.Done()
		o := &outcome{}
		w.gone(o)
		return o
	}
	return h, started
}

// wantShutdown checks that res is the 503 of a request the end of the grace
// period ended, recorded as "shutdown".
func wantShutdown(t *testing.T, res *Result) {
	t.Helper()
	if res.Failure == nil || res.Failure.Code != "shutdown" || res.Failure.Status != 503 || res.Canceled {
		t.Errorf("result %+v failure %+v, want the shutdown 503", res, res.Failure)
	}
	if res.Decision.Outcome != decision.OutcomeShutdown {
		t.Errorf("outcome %q, want %q", res.Decision.Outcome, decision.OutcomeShutdown)
	}
}

// The end of the grace period ends every request in flight, of every
// Dispatcher still serving one (a reload's old one included), and any
// request that starts after it.
func TestStopEndsEveryRequestInFlight(t *testing.T) {
	stop, shut := context.WithCancel(context.Background())
	defer shut()
	old, oldStarted := waitingHarness(t, stop)
	cur, curStarted := waitingHarness(t, stop)
	var wg sync.WaitGroup
	results := make([]*Result, 5)
	for i := range results {
		d, started := cur, curStarted
		if i < 2 {
			d, started = old, oldStarted
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i] = d.d.Run(context.Background(), testCall("a", 0, 0))
		}()
		<-started
	}
	old.d.Close() // a reload: the old Dispatcher's requests still finish, and still end at Stop
	shut()
	wg.Wait()
	for _, res := range results {
		wantShutdown(t, res)
	}
	wantShutdown(t, cur.d.Run(context.Background(), testCall("a", 0, 0)))
}

// A client that leaves is not told about a shutdown; only its own request
// ends.
func TestClientLeavingIsNotAShutdown(t *testing.T) {
	stop, shut := context.WithCancel(context.Background())
	defer shut()
	h, started := waitingHarness(t, stop)
	ctx, leave := context.WithCancel(context.Background())
	done := make(chan *Result)
	go func() { done <- h.d.Run(ctx, testCall("a", 0, 0)) }()
	<-started
	other := make(chan *Result)
	go func() { other <- h.d.Run(context.Background(), testCall("a", 0, 0)) }()
	<-started
	leave()
	res := <-done
	if !res.Canceled || res.Decision.Outcome != decision.OutcomeCanceled {
		t.Errorf("left: canceled %v outcome %q", res.Canceled, res.Decision.Outcome)
	}
	select {
	case res := <-other:
		t.Fatalf("the other request ended with the first's client: %+v", res)
	case <-time.After(50 * time.Millisecond):
	}
	shut()
	wantShutdown(t, <-other)
}

// A closed Dispatcher stops watching Stop once its last request has ended,
// so a reload's old configuration is not kept alive by it; a request that
// still comes to it watches again.
func TestClosedDispatcherStopsWatching(t *testing.T) {
	stop, shut := context.WithCancel(context.Background())
	defer shut()
	h, started := waitingHarness(t, stop)
	ctx, leave := context.WithCancel(context.Background())
	done := make(chan *Result)
	go func() { done <- h.d.Run(ctx, testCall("a", 0, 0)) }()
	<-started
	h.d.Close()
	if watching(h.d) != true {
		t.Fatal("closed with a request in flight: Stop must still be watched")
	}
	leave()
	<-done
	if watching(h.d) {
		t.Fatal("closed and idle: Stop is still watched")
	}
	go func() { done <- h.d.Run(context.Background(), testCall("a", 0, 0)) }()
	<-started
	shut()
	wantShutdown(t, <-done)
}

func watching(d *Dispatcher) bool {
	d.inflight.mu.Lock()
	defer d.inflight.mu.Unlock()
	return d.inflight.watch != nil
}

// inflight's list: members leave from any place, and only those still in
// it are ended.
func TestInflightList(t *testing.T) {
	stop, shut := context.WithCancel(context.Background())
	var s inflight
	ctxs := make([]context.Context, 4)
	ms := make([]*member, 4)
	for i := range ms {
		var cancel context.CancelCauseFunc
		ctxs[i], cancel = context.WithCancelCause(context.Background())
		ms[i] = &member{cancel: cancel}
		s.join(stop, ms[i])
	}
	s.leave(ms[2]) // the middle
	s.leave(ms[3]) // the head
	s.leave(ms[3]) // twice: nothing
	shut()
	for _, ctx := range ctxs[:2] { // the AfterFunc runs in a goroutine of its own
		select {
		case <-ctx.Done():
		case <-time.After(5 * time.Second):
			t.Fatal("a member in the list was not ended")
		}
	}
	for i, want := range []bool{true, true, false, false} {
		got := errors.Is(context.Cause(ctxs[i]), errShutdown)
		if got != want {
			t.Errorf("member %d ended by the shutdown: %v, want %v", i, got, want)
		}
	}
}

// The end of the grace period ends a request whose attempt was sent, and so
// may have run: with its max_billable_attempts spent, the 503 tells the SDK
// not to send it again (to another replica, where it would pay again);
// with budget left, or none, the SDK keeps its own retry
// (docs/behaviour.md#api, "Whether to retry").
func TestShutdownOfASpentBudgetAdvisesNoRetry(t *testing.T) {
	for _, c := range []struct {
		name        string
		maxBillable int
		noRetry     bool
	}{{"spent", 1, true}, {"left", 2, false}, {"none", 0, false}} {
		t.Run(c.name, func(t *testing.T) {
			stop, shut := context.WithCancel(context.Background())
			defer shut()
			h, started := waitingHarness(t, stop)
			h.d.call = func(_ context.Context, w *walk, _ *endpointRT) *outcome {
				started <- struct{}{}
				<-w.base.Done()
				o := &outcome{}
				w.gone(o)
				o.billable = true // it was sent
				return o
			}
			done := make(chan *Result)
			go func() { done <- h.d.Run(context.Background(), testCall("a", 0, c.maxBillable)) }()
			<-started
			shut()
			res := <-done
			wantShutdown(t, res)
			if res.Failure != nil && res.Failure.NoRetry != c.noRetry {
				t.Errorf("NoRetry %v, want %v", res.Failure.NoRetry, c.noRetry)
			}
		})
	}
}

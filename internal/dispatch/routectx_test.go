package dispatch

import (
	"context"
	"errors"
	"testing"
	"time"
)

type ctxKeyT struct{}

// routeAndStd returns a routeCtx and the context.WithDeadline it stands
// for, over the same base (which carries a value), and base's cancel.
func routeAndStd(t *testing.T, in time.Duration) (*routeCtx, context.Context, context.CancelCauseFunc) {
	t.Helper()
	base, cancel := context.WithCancelCause(context.WithValue(context.Background(), ctxKeyT{}, "v"))
	t.Cleanup(func() { cancel(nil) })
	dl := time.Now().Add(in)
	rc := newRouteCtx(base, dl)
	t.Cleanup(rc.release)
	std, stop := context.WithDeadline(base, dl)
	t.Cleanup(stop)
	return rc, std, cancel
}

// sameState checks that rc says what std says: error, cause, deadline,
// values.
func sameState(t *testing.T, rc *routeCtx, std context.Context) {
	t.Helper()
	if got, want := rc.Err(), std.Err(); !errors.Is(got, want) || (got == nil) != (want == nil) {
		t.Errorf("Err %v, want %v", got, want)
	}
	if got, want := context.Cause(rc), context.Cause(std); !errors.Is(got, want) || (got == nil) != (want == nil) {
		t.Errorf("Cause %v, want %v", got, want)
	}
	gd, gok := rc.Deadline()
	wd, wok := std.Deadline()
	if !gd.Equal(wd) || gok != wok {
		t.Errorf("Deadline %v %v, want %v %v", gd, gok, wd, wok)
	}
	if rc.Value(ctxKeyT{}) != "v" {
		t.Errorf("Value %v", rc.Value(ctxKeyT{}))
	}
}

func TestRouteCtxBeforeTheDeadline(t *testing.T) {
	rc, std, _ := routeAndStd(t, time.Hour)
	sameState(t, rc, std)
	if rc.made.Load() != nil {
		t.Error("made without a need")
	}
}

// Past the deadline, with nobody waiting on it: Err and Cause say so
// without a timer having run.
func TestRouteCtxPastTheDeadline(t *testing.T) {
	rc, std, _ := routeAndStd(t, 20*time.Millisecond)
	<-std.Done()
	sameState(t, rc, std)
	if !errors.Is(rc.Err(), context.DeadlineExceeded) {
		t.Fatalf("Err %v", rc.Err())
	}
	select {
	case <-rc.Done():
	default:
		t.Fatal("Done not closed past the deadline")
	}
}

// Done, and every context derived from it, ends at the deadline.
func TestRouteCtxDoneAtTheDeadline(t *testing.T) {
	rc, std, _ := routeAndStd(t, 30*time.Millisecond)
	child, stop := context.WithCancel(rc)
	defer stop()
	after := make(chan struct{})
	context.AfterFunc(rc, func() { close(after) })
	for _, ch := range []<-chan struct{}{rc.Done(), child.Done(), after} {
		select {
		case <-ch:
		case <-time.After(5 * time.Second):
			t.Fatal("not ended at the deadline")
		}
	}
	<-std.Done()
	sameState(t, rc, std)
	if !errors.Is(child.Err(), context.DeadlineExceeded) {
		t.Errorf("child Err %v", child.Err())
	}
}

// The base ending (the client leaving, the shutdown with its cause) ends
// it, whether its Done was made before or after.
func TestRouteCtxBaseEnds(t *testing.T) {
	for _, madeFirst := range []bool{true, false} {
		rc, std, cancel := routeAndStd(t, time.Hour)
		if madeFirst {
			rc.Done()
		}
		cause := errors.New("shutting down")
		cancel(cause)
		<-std.Done()
		sameState(t, rc, std)
		if !errors.Is(context.Cause(rc), cause) {
			t.Errorf("made first %v: Cause %v", madeFirst, context.Cause(rc))
		}
		select {
		case <-rc.Done():
		case <-time.After(5 * time.Second):
			t.Fatal("Done not closed when base ended")
		}
	}
}

// An earlier deadline of the base's is the deadline.
func TestRouteCtxBaseDeadlineFirst(t *testing.T) {
	base, stop := context.WithTimeout(context.Background(), time.Minute)
	defer stop()
	rc := newRouteCtx(base, time.Now().Add(time.Hour))
	defer rc.release()
	want, _ := base.Deadline()
	if got, ok := rc.Deadline(); !ok || !got.Equal(want) {
		t.Errorf("Deadline %v, want the base's %v", got, want)
	}
}

// release is the cancel: the context it stands for is canceled, made
// before or after.
func TestRouteCtxRelease(t *testing.T) {
	for _, madeFirst := range []bool{true, false} {
		base := context.Background()
		rc := newRouteCtx(base, time.Now().Add(time.Hour))
		if madeFirst {
			rc.Done()
		}
		rc.release()
		if !errors.Is(rc.Err(), context.Canceled) {
			t.Errorf("made first %v: Err %v after release", madeFirst, rc.Err())
		}
		select {
		case <-rc.Done():
		default:
			t.Errorf("made first %v: Done open after release", madeFirst)
		}
	}
}

package offstack

import (
	"errors"
	"net/http"
	"runtime"
	"strings"
	"testing"
)

// Run's error comes back, and so does a panic, as if f had run on the
// caller's goroutine.
func TestRunReturnsErrorAndPanic(t *testing.T) {
	boom := errors.New("boom")
	if err := Run(func() error { return boom }); err != boom {
		t.Errorf("error %v, want %v", err, boom)
	}
	defer func() {
		p, _ := recover().(*Panic)
		if p == nil || p.Value != "write panicked" || !strings.Contains(string(p.Stack), "panicsOffStack") {
			t.Errorf("recovered %v, want the work's panic with its own stack", p)
		}
	}()
	_ = Run(panicsOffStack)
	t.Error("the panic did not reach the caller")
}

//go:noinline
func panicsOffStack() error { panic("write panicked") }

// net/http's abort goes on as it is: net/http knows it and logs nothing.
func TestRunKeepsAbortHandler(t *testing.T) {
	defer func() {
		if p := recover(); p != http.ErrAbortHandler {
			t.Errorf("recovered %v, want http.ErrAbortHandler", p)
		}
	}()
	_ = Run(func() error { panic(http.ErrAbortHandler) })
}

// Work that calls runtime.Goexit gives its caller no value: the caller
// panics rather than take a zero for one (review 63l).
func TestRunGoexitIsNoValue(t *testing.T) {
	defer func() {
		p, _ := recover().(*Panic)
		if p == nil || p.Value != errGoexit {
			t.Errorf("recovered %v, want the Goexit's Panic", p)
		}
	}()
	_ = Run(func() int { runtime.Goexit(); return 1 })
	t.Error("no panic reached the caller")
}

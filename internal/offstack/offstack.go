package offstack

import (
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
)

// Run runs f on another goroutine and waits for it, so that how deep f
// goes does not grow the caller's stack. A panic in f goes on in the
// caller, as if f had run there, as a *Panic carrying f's own stack
// (net/http's "http: panic serving" log shows the handler's stack, which
// no longer names the function that panicked); http.ErrAbortHandler goes
// on as it is, since net/http knows it and logs nothing.
//
// The goroutine is an idle worker's where one waits (workers): a
// goroutine started afresh for each piece of work grows its stack anew
// each time, by copies, which cost more than the decoding of a stream's
// event it was started for. None is ever waited for: with every worker
// busy, f runs on a goroutine of its own, which stays as a worker after
// if fewer than maxIdle wait.
func Run[T any](f func() T) T {
	type result struct {
		v T
		p any
	}
	done := make(chan result, 1)
	job := func() {
		var r result
		finished := false
		defer func() {
			if p := recover(); p != nil {
				r.p = p
				if p != http.ErrAbortHandler {
					r.p = &Panic{Value: p, Stack: debug.Stack()}
				}
			} else if !finished {
				// f called runtime.Goexit (a test's FailNow): no value
				// came back, and the caller must not take a zero for
				// one (review 63l). The worker's goroutine ends.
				r.p = &Panic{Value: errGoexit, Stack: debug.Stack()}
			}
			done <- r
		}()
		r.v = f()
		finished = true
	}
	select {
	case w := <-idle:
		w <- job
	default:
		go work(job)
	}
	r := <-done
	if r.p != nil {
		panic(r.p)
	}
	return r.v
}

// Run2 is Run for work with two results, as a call that can fail has.
func Run2[A, B any](f func() (A, B)) (A, B) {
	type pair struct {
		a A
		b B
	}
	p := Run(func() pair {
		a, b := f()
		return pair{a, b}
	})
	return p.a, p.b
}

// maxIdle is how many workers may wait for work: a few stacks of 16 KiB
// or so, kept for the whole process.
const maxIdle = 16

// idle holds the inboxes of the workers waiting for work.
var idle = make(chan chan func(), maxIdle)

// work runs job, then waits for more while fewer than maxIdle workers
// wait, and ends otherwise. A job never panics (Run recovers its panic).
func work(job func()) {
	inbox := make(chan func())
	for {
		job()
		select {
		case idle <- inbox:
			job = <-inbox
		default:
			return
		}
	}
}

// errGoexit is the value of the Panic a caller gets when its work called
// runtime.Goexit.
var errGoexit = errors.New("offstack: the work called runtime.Goexit")

// Panic is a panic in work Run ran: its value, and the stack of the
// goroutine it happened on.
type Panic struct {
	Value any
	Stack []byte
}

func (p *Panic) Error() string {
	return fmt.Sprintf("%v\n\nwhere it happened (off the handler's stack):\n%s", p.Value, p.Stack)
}

package dispatch

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// routeCtx is the route's deadline over the request's base context: what
// context.WithDeadline(base, dl) gives, made only once something needs its
// Done channel (a retry's wait, a health store over the network, a context
// derived from it). Until then Err compares the clock with dl. Most
// requests never wait on their deadline (their attempts watch it with
// their own timer, watchdog.go), so they skip a timer and a place among
// base's children (docs/benchmarks.md, "Round 5"). The zero value is not
// usable: use newRouteCtx.
type routeCtx struct {
	base context.Context
	dl   time.Time
	mu   sync.Mutex // guards making made and ended
	made atomic.Pointer[madeCtx]
	// ended: release was called; a context made after it is canceled at
	// once, and Err reports context.Canceled.
	ended atomic.Bool
}

type madeCtx struct {
	ctx  context.Context
	stop context.CancelFunc
}

func newRouteCtx(base context.Context, dl time.Time) *routeCtx {
	return &routeCtx{base: base, dl: dl}
}

// real returns the context.WithDeadline this stands for, made on first use.
func (c *routeCtx) real() context.Context {
	if m := c.made.Load(); m != nil {
		return m.ctx
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if m := c.made.Load(); m != nil {
		return m.ctx
	}
	ctx, stop := context.WithDeadline(c.base, c.dl)
	if c.ended.Load() {
		stop()
	}
	c.made.Store(&madeCtx{ctx: ctx, stop: stop})
	return ctx
}

// release is the cancel of the context it stands for: call it when the
// request ends.
func (c *routeCtx) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ended.Store(true)
	if m := c.made.Load(); m != nil {
		m.stop()
	}
}

// Deadline is the earlier of the route's and base's.
func (c *routeCtx) Deadline() (time.Time, bool) {
	if d, ok := c.base.Deadline(); ok && d.Before(c.dl) {
		return d, true
	}
	return c.dl, true
}

func (c *routeCtx) Done() <-chan struct{} { return c.real().Done() }

// Err is the error of the context it stands for. Before that context is
// made, a base that ended (the client left, the shutdown) wins over a
// deadline that passed too: made at that point, the context would say
// the same.
func (c *routeCtx) Err() error {
	if m := c.made.Load(); m != nil {
		return m.ctx.Err()
	}
	if err := c.base.Err(); err != nil {
		return err
	}
	if !time.Now().Before(c.dl) {
		return c.real().Err() // context.DeadlineExceeded, and Cause agrees
	}
	if c.ended.Load() {
		return c.real().Err()
	}
	return nil
}

// Value is base's, or, once the deadline has passed or the context it
// stands for is made, that context's (so context.Cause reads its cause).
func (c *routeCtx) Value(key any) any {
	if m := c.made.Load(); m != nil {
		return m.ctx.Value(key)
	}
	if !time.Now().Before(c.dl) || c.ended.Load() {
		return c.real().Value(key)
	}
	return c.base.Value(key)
}

func (c *routeCtx) String() string { return "dispatch.routeCtx" }

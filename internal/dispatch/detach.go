package dispatch

import "context"

// attemptContext is the context of an attempt whose outcome is o, the
// cancel its watchdog ends it with, and done, which upstreamCall defers.
// The context is the client's, but for a whole answer a client key's
// limits count: that one is read to its end once its request was sent,
// whoever leaves (within the provider's timeouts; the end of a shutdown's
// grace still ends it): its upstream writes and bills the whole answer
// whatever its client does, and a key that left each answer just before it
// arrived spent its input alone (hostile 57: $1 generations on a $0.50
// budget, for ever). done then files the attempt canceled, with the
// answer's usage and cost — on the attempt's own goroutine, never the
// watchdog's (review 57b: a timeout after the client left raced it).
func (w *walk) attemptContext(o *outcome) (ctx context.Context, cancel context.CancelFunc, done func()) {
	if !w.call.Limited || w.call.Stream {
		ctx, cancel := context.WithCancel(w.base)
		return ctx, cancel, cancel
	}
	ctx, cancel = context.WithCancel(context.WithoutCancel(w.base))
	unwatch := context.AfterFunc(w.base, func() {
		if !o.sent.Load() || w.shuttingDown() {
			cancel()
		}
	})
	// The client gone first, a shutdown's cancel of the request is a no-op:
	// the end of the grace ends the read itself (review 57b).
	unstop := func() bool { return false }
	if stop := w.d.opt.Stop; stop != nil {
		unstop = context.AfterFunc(stop, cancel)
	}
	return ctx, cancel, func() {
		unwatch()
		unstop()
		cancel()
		if w.base.Err() != nil && !o.canceled && !w.shuttingDown() {
			w.gone(o) // the client left while its answer was read: usage, cost and billable stand
		}
	}
}

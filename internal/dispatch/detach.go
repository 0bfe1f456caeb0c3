package dispatch

import "context"

// attemptContext is the context of an attempt whose outcome is o: the
// client's, but for a whole answer a client key's limits count. That one
// is read to its end once its request was sent, whoever leaves (within the
// provider's timeouts; shutdown still ends it): its upstream writes and
// bills the whole answer whatever its client does, and a key that left
// each answer just before it arrived spent its input alone (hostile 57:
// $1 generations on a $0.50 budget, for ever). The attempt is then
// recorded canceled, with the answer's usage and cost.
func (w *walk) attemptContext(o *outcome) (context.Context, context.CancelFunc) {
	if !w.call.Metered || w.call.Stream {
		return context.WithCancel(w.base)
	}
	ctx, cancel := context.WithCancel(context.WithoutCancel(w.base))
	unwatch := context.AfterFunc(w.base, func() {
		if !o.sent.Load() || w.shuttingDown() {
			cancel()
		}
	})
	return ctx, func() {
		unwatch()
		cancel()
		if w.base.Err() != nil && !o.canceled && !w.shuttingDown() {
			w.gone(o) // the client left while its answer was read: usage, cost and billable stand
		}
	}
}

package dispatch

import (
	"context"
	"crypto/tls"
	"errors"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// dialGate keeps a burst of requests to one provider from opening one TLS
// connection each (docs/benchmarks.md#memory-with-1000-concurrent-streams).
//
// net/http dials a new connection for every request that finds none with
// room. Over HTTP/2 one connection carries a hundred streams or more, but
// while the first connection of a cold pool is still in its TLS handshake
// every request that arrives dials its own: a burst of 1,000 streams opened
// several hundred handshakes, most of them closed again right after, paid
// for in CPU on both sides and in memory at the peak. The gate lets one
// request at a time look for a connection outside the pool (the holder);
// the others queue until it has its connection, then start over from the
// pool, where they find room on it: a few at first (lanes), and each that
// finds room lets the next one go, so a queue of thousands does not wake
// all at once for every connection. The first that finds no room holds the
// gate and dials the next connection.
//
// A provider that answers over HTTP/1.x (every plain-http base URL, and any
// server that does not offer h2) needs a connection per request: the gate
// steps aside for good once it has seen one such connection. A request waits
// for a holder at most wait at a time (as long as a holder's dial can take:
// holderDial) and never past its context. A holder
// whose dial failed passes its error to every waiter (their dials to the same
// address would fail alike, after as long again) and opens the gate until a
// request gets a connection: a dead upstream costs a burst one connect
// timeout, not one each in turn.
//
// A nil *dialGate gates nothing.
type dialGate struct {
	h1     atomic.Bool // a connection without HTTP/2 was seen: never gate again
	failed atomic.Bool // the last holder let go without a connection: the gate is open
	wait   time.Duration

	mu     sync.Mutex
	holder *gateTurn // nil: free
	queue  []*waiter // oldest first from head; a waiter that gave up stays, marked gone
	head   int
}

// waiter is one wait of a turn in the gate's queue (under the gate's lock).
type waiter struct {
	t     *gateTurn
	wake  chan struct{} // closed when woken
	woken bool
	gone  bool  // gave up waiting
	err   error // the holder's failed dial, which this waiter shares
}

// lanes is how many waiters a holder's new connection wakes at once.
const lanes = 8

// newDialGate returns a gate for a provider at baseURL whose waiters wait
// at most wait for a holder; plain http never speaks HTTP/2 through
// net/http, so it is not gated.
func newDialGate(baseURL string, wait time.Duration) *dialGate {
	g := &dialGate{wait: wait}
	if strings.HasPrefix(baseURL, "http://") {
		g.h1.Store(true)
	}
	return g
}

// errStartOver is what the transport's Proxy function returns to a request
// that waited for the gate: a connection with room may exist now, and only
// a round trip started over (gateTurn.do) looks in the HTTP/2 pool first.
var errStartOver = errors.New("dispatch: start over from the connection pool")

// gateTurn is one attempt's passage through a gate.
type gateTurn struct {
	g     *dialGate
	ctx   context.Context
	holds atomic.Bool // this turn is the gate's holder
	woken atomic.Bool // woken from the queue: when it finds room it wakes the next
	conn  atomic.Bool // the round trip got a connection: a failure after it is no failed dial
}

// turnKey finds an attempt's turn in its request's context.
type turnKey struct{}

// hook prepares an attempt's turn: it returns the context to send the
// request with and adds the releases to trace. The transport's Proxy
// function (proxy) is where a request meets the gate: net/http calls it
// only when no pooled HTTP/2 connection had room, right before it takes a
// pooled connection or dials one, in the request's goroutine with no lock
// held (GetConn, the obvious hook, is also called by the HTTP/2 pool with
// its lock held, where waiting would stall every request). GotConn lets go
// of the gate for an HTTP/1.x connection, WroteHeaders for an HTTP/2 one
// (net/http hands a new HTTP/2 connection to its dialer a moment before it
// puts it in the pool).
func (g *dialGate) hook(ctx context.Context, trace *httptrace.ClientTrace) (context.Context, *gateTurn) {
	if g == nil || g.h1.Load() {
		return ctx, nil
	}
	t := &gateTurn{g: g, ctx: ctx}
	trace.GotConn = func(info httptrace.GotConnInfo) {
		t.conn.Store(true)
		if info.Reused {
			return // its protocol was read when it was new
		}
		if tc, ok := info.Conn.(*tls.Conn); !ok || tc.ConnectionState().NegotiatedProtocol != "h2" {
			g.h1.Store(true)
			g.openAll()
			t.pass(nil)
		}
	}
	trace.WroteHeaders = func() { t.pass(nil) }
	return context.WithValue(ctx, turnKey{}, t), t
}

// proxy is the transport's Proxy function: the gate, then the proxy from
// the environment as net/http's default reads it.
func proxy(req *http.Request) (*url.URL, error) {
	if t, ok := req.Context().Value(turnKey{}).(*gateTurn); ok {
		if err := t.enter(); err != nil {
			return nil, err
		}
	}
	return http.ProxyFromEnvironment(req)
}

// saw records the protocol of an answer from the gate's provider.
func (g *dialGate) saw(protoMajor int) {
	if g != nil && protoMajor == 1 && !g.h1.Swap(true) {
		g.openAll()
	}
}

// enter lets the request on to a connection outside the pool when the gate
// is free (it then holds it) or open, and otherwise queues it until a holder
// has a new connection and answers errStartOver.
func (t *gateTurn) enter() error {
	g := t.g
	t.woken.Store(false)                                  // back here: it found no room, its lane ends
	if g.h1.Load() || g.failed.Load() || t.holds.Load() { // not gated, open, or a retry inside one round trip
		return nil
	}
	g.mu.Lock()
	if g.holder == nil {
		g.holder = t
		t.holds.Store(true)
		g.mu.Unlock()
		return nil
	}
	w := &waiter{t: t, wake: make(chan struct{})}
	g.queue = append(g.queue, w)
	g.mu.Unlock()
	// Each wait ends with a new connection (errStartOver), an open gate or
	// a holder stuck for wait; only the last sends the request to dial on
	// its own. Bounding the waits in all instead would send every waiter
	// of an overloaded gate to dial at once, the storm the gate is for.
	timer := time.NewTimer(g.wait)
	defer timer.Stop()
	select {
	case <-w.wake:
	case <-timer.C:
	case <-t.ctx.Done():
	}
	g.mu.Lock()
	woken, err := w.woken, w.err
	w.gone = !woken
	g.mu.Unlock()
	switch {
	case !woken:
		return nil // the holder made no progress within wait, or the context ended: net/http reports it
	case err != nil:
		t.woken.Store(false)
		return err // the holder's dial failed: so would this one's
	case g.h1.Load():
		return nil // dial on its own
	}
	return errStartOver
}

// pass lets go of the gate if this turn holds it and passes a woken turn's
// wake on to the next waiter. failed is the holder's failed dial: it opens
// the gate until a request gets a connection, and every waiter fails with
// it, as its own dial to the same address would (after as long again).
func (t *gateTurn) pass(failed error) {
	if t == nil {
		return
	}
	g := t.g
	if failed == nil && g.failed.Load() {
		g.failed.Store(false)
	}
	holds, woken := t.holds.Swap(false), t.woken.Swap(false)
	if !holds && !woken {
		return
	}
	g.mu.Lock()
	switch {
	case holds && failed != nil:
		g.holder = nil
		g.failed.Store(true)
		g.wakeLocked(len(g.queue), failed)
	case holds:
		g.holder = nil
		g.wakeLocked(lanes, nil)
	default:
		g.wakeLocked(1, nil)
	}
	g.mu.Unlock()
}

// wakeLocked wakes the n oldest waiters, with err for them to share.
func (g *dialGate) wakeLocked(n int, err error) {
	for ; n > 0 && g.head < len(g.queue); g.head++ {
		w := g.queue[g.head]
		g.queue[g.head] = nil
		if w.gone {
			continue
		}
		w.err, w.woken = err, true
		w.t.woken.Store(true)
		close(w.wake)
		n--
	}
	if g.head == len(g.queue) || g.head > len(g.queue)/2 {
		g.queue = g.queue[:copy(g.queue, g.queue[g.head:])]
		g.head = 0
	}
}

// openAll wakes every waiter: the provider turned out not to speak HTTP/2.
func (g *dialGate) openAll() {
	g.mu.Lock()
	g.wakeLocked(len(g.queue), nil)
	g.mu.Unlock()
}

// do sends req through c, and again from the top each time the gate sent it
// back to the pool; then it ends the turn (a holder still holding got no
// connection).
//
// It calls c's transport, not c.Do: Detour follows no redirect (its
// clients' CheckRedirect hands the 3xx back), so Client.Do's redirect
// bookkeeping, a copy of the request's headers on every call, buys nothing.
func (t *gateTurn) do(c *http.Client, req *http.Request) (*http.Response, error) {
	rt := c.Transport
	resp, err := rt.RoundTrip(req)
	for t != nil && err != nil && errors.Is(err, errStartOver) && req.GetBody != nil {
		body, berr := req.GetBody()
		if berr != nil {
			break
		}
		req = req.Clone(req.Context())
		req.Body = body
		resp, err = rt.RoundTrip(req)
	}
	// A holder still holding here got no connection. Its dial failed
	// unless its context ended first (a client gone, a deadline): then the
	// next waiter tries.
	var failed error
	if t != nil && err != nil && !t.conn.Load() && req.Context().Err() == nil {
		failed = err
		if ue, ok := err.(*url.Error); ok {
			failed = ue.Err
		}
	}
	t.pass(failed)
	return resp, err
}

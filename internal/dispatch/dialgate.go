package dispatch

import (
	"context"
	"crypto/tls"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// dialGate keeps a burst of requests to one provider from opening one TLS
// connection each (docs/benchmarks.md#streams).
//
// net/http dials a new connection for every request that finds none with
// room. Over HTTP/2 one connection carries a hundred streams or more, but
// while the first connection of a cold pool is still in its TLS handshake
// every request that arrives dials its own: a burst of 1,000 streams opened
// several hundred handshakes, most of them closed again right after, paid
// for in CPU on both sides and in memory at the peak. The gate lets one
// request at a time look for a connection; the next one waits
// until that request has its connection and then finds it in the pool. When
// the connection it got is full, the next one dials the next connection.
//
// A provider that answers over HTTP/1.x (every plain-http base URL, and any
// server that does not offer h2) needs a connection per request: the gate
// steps aside for good once it has seen one such connection. A waiter never
// waits longer than wait, nor past its request's context, and a holder whose
// dial failed lets every waiter go on its own, so a dead upstream costs each
// request its own connect timeout, never the sum.
//
// A nil *dialGate gates nothing.
type dialGate struct {
	h1   atomic.Bool // a connection without HTTP/2 was seen: never gate again
	wait time.Duration
	sem  chan struct{} // capacity 1: held from GetConn until the holder has its connection

	mu   sync.Mutex
	open chan struct{} // closed while the last holder's dial had failed: nobody waits
}

// newDialGate returns a gate for a provider at baseURL whose waiters wait
// at most wait; plain http never speaks HTTP/2 through net/http, so it is
// not gated.
func newDialGate(baseURL string, wait time.Duration) *dialGate {
	g := &dialGate{wait: wait, sem: make(chan struct{}, 1), open: make(chan struct{})}
	if strings.HasPrefix(baseURL, "http://") {
		g.h1.Store(true)
	}
	return g
}

// gateTurn is one attempt's passage through a gate.
type gateTurn struct {
	g    *dialGate
	ctx  context.Context
	held atomic.Bool
}

// turnKey finds an attempt's turn in its request's context.
type turnKey struct{}

// hook prepares an attempt's turn: it returns the context to send the
// request with and adds the releases to trace. The transport's Proxy
// function (proxy) makes the request wait for the gate: net/http calls it
// only when no pooled HTTP/2 connection had room, right before it takes a
// pooled connection or dials one, in the request's goroutine with no lock
// held (GetConn, the obvious hook, is also called by the HTTP/2 pool with
// its lock held, where waiting would stall every request). GotConn releases
// the gate for an HTTP/1.x connection, WroteHeaders for an HTTP/2 one
// (net/http hands a new HTTP/2 connection to its dialer a moment before it
// puts it in the pool, and a request let in during that moment would dial
// again). The attempt calls release when its round trip returns: a holder
// still holding then got no connection.
func (g *dialGate) hook(ctx context.Context, trace *httptrace.ClientTrace) (context.Context, *gateTurn) {
	if g == nil || g.h1.Load() {
		return ctx, nil
	}
	t := &gateTurn{g: g, ctx: ctx}
	trace.GotConn = func(info httptrace.GotConnInfo) {
		if tc, ok := info.Conn.(*tls.Conn); !ok || tc.ConnectionState().NegotiatedProtocol != "h2" {
			g.h1.Store(true)
			t.pass(false)
		}
	}
	trace.WroteHeaders = func() { t.pass(false) }
	return context.WithValue(ctx, turnKey{}, t), t
}

// proxy is the transport's Proxy function: it waits for the gate, then
// reads the proxy from the environment as net/http's default does.
func proxy(req *http.Request) (*url.URL, error) {
	if t, ok := req.Context().Value(turnKey{}).(*gateTurn); ok {
		t.enter()
	}
	return http.ProxyFromEnvironment(req)
}

// saw records the protocol of an answer from the gate's provider.
func (g *dialGate) saw(protoMajor int) {
	if g != nil && protoMajor == 1 {
		g.h1.Store(true)
	}
}

// enter waits for the gate, then holds it: net/http asks for a proxy only
// when no pooled HTTP/2 connection had room, so the holder either finds the
// connection the previous holder opened or dials the next one. Waiters are
// let in one at a time, in order, and not at all while the last dial failed.
func (t *gateTurn) enter() {
	g := t.g
	if t.held.Load() || g.h1.Load() { // a retry inside one round trip, or no longer gated
		return
	}
	select {
	case g.sem <- struct{}{}:
		t.held.Store(true)
		return
	default:
	}
	g.mu.Lock()
	open := g.open
	g.mu.Unlock()
	timer := time.NewTimer(g.wait)
	defer timer.Stop()
	select {
	case g.sem <- struct{}{}:
		t.held.Store(true)
	case <-open:
	case <-timer.C:
	case <-t.ctx.Done():
	}
}

// pass gives the gate up if this turn holds it; failed says the holder got
// no connection, which lets every waiter go until a holder succeeds.
func (t *gateTurn) pass(failed bool) {
	if t == nil || !t.held.CompareAndSwap(true, false) {
		return
	}
	g := t.g
	g.mu.Lock()
	select {
	case <-g.open:
		if !failed {
			g.open = make(chan struct{})
		}
	default:
		if failed {
			close(g.open)
		}
	}
	g.mu.Unlock()
	<-g.sem
}

// release ends the turn when its round trip returned.
func (t *gateTurn) release() { t.pass(true) }

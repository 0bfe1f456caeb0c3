package redistest

import (
	"io"
	"net"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Proxy forwards a loopback port to a Redis server, so a test can cut one
// client off (a network partition) while others still reach the server.
type Proxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	cut    bool
	delay  time.Duration // held before each answer reaches the client
	hold   time.Duration // held before each command reaches the server
	conns  map[net.Conn]struct{}
	wg     sync.WaitGroup
}

// StartProxy listens on a free loopback port and forwards to target
// (host:port) until the test ends.
func StartProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{ln: ln, target: target, conns: make(map[net.Conn]struct{})}
	p.wg.Go(p.serve)
	t.Cleanup(p.close)
	return p
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// URL is the redis:// URL of database 0 through the proxy.
func (p *Proxy) URL() string {
	return "redis://127.0.0.1:" + strconv.Itoa(p.ln.Addr().(*net.TCPAddr).Port) + "/0"
}

// Cut drops every connection and closes new ones at once, until Heal.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut = true
	for c := range p.conns {
		c.Close()
	}
}

// Slow holds every answer from the server for d before the client gets it
// (a slow or overloaded Redis); 0 ends that.
func (p *Proxy) Slow(d time.Duration) {
	p.mu.Lock()
	p.delay = d
	p.mu.Unlock()
}

// SlowCommands holds every command from the client for d before the
// server gets it (a write that lands late); 0 ends that.
func (p *Proxy) SlowCommands(d time.Duration) {
	p.mu.Lock()
	p.hold = d
	p.mu.Unlock()
}

// Heal forwards new connections again.
func (p *Proxy) Heal() {
	p.mu.Lock()
	p.cut = false
	p.mu.Unlock()
}

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.cut {
			p.mu.Unlock()
			c.Close()
			continue
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			p.mu.Unlock()
			c.Close()
			continue
		}
		p.conns[c], p.conns[up] = struct{}{}, struct{}{}
		p.mu.Unlock()
		p.wg.Go(func() { p.pipe(slowWriter{c, p, &p.delay}, c, up) })
		p.wg.Go(func() { p.pipe(slowWriter{up, p, &p.hold}, up, c) })
	}
}

// slowWriter writes to c after the proxy's delay for that direction, *d (a
// plain Writer: the connection's own ReadFrom would bypass it).
type slowWriter struct {
	c net.Conn
	p *Proxy
	d *time.Duration
}

func (w slowWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	d := *w.d
	w.p.mu.Unlock()
	time.Sleep(d)
	return w.c.Write(b)
}

// pipe copies src to w (dst, delayed); when it ends, both sides
// close.
func (p *Proxy) pipe(w io.Writer, dst, src net.Conn) {
	_, _ = io.Copy(w, src)
	dst.Close()
	src.Close()
	p.mu.Lock()
	delete(p.conns, dst)
	delete(p.conns, src)
	p.mu.Unlock()
}

func (p *Proxy) close() {
	p.ln.Close()
	p.Cut()
	p.wg.Wait()
}

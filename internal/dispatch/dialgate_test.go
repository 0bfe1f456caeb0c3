package dispatch

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/health"
)

// countingTLS is a TLS upstream that counts the connections it accepts and
// holds every request until release is closed. Each TLS handshake takes
// delay (a provider some round trips away; 0: loopback's microseconds).
type countingTLS struct {
	*httptest.Server
	conns   atomic.Int64
	arrived atomic.Int64
	release chan struct{}
}

func newCountingTLS(t *testing.T, h2 bool, maxStreams uint32, delay time.Duration) *countingTLS {
	t.Helper()
	u := &countingTLS{release: make(chan struct{})}
	u.Server = httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.arrived.Add(1)
		<-u.release
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`))
	}))
	u.EnableHTTP2 = h2
	if h2 {
		u.Config.HTTP2 = &http.HTTP2Config{MaxConcurrentStreams: int(maxStreams)}
	}
	if delay > 0 {
		u.TLS = &tls.Config{GetConfigForClient: func(*tls.ClientHelloInfo) (*tls.Config, error) {
			time.Sleep(delay)
			return nil, nil
		}}
	}
	u.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			u.conns.Add(1)
		}
	}
	u.StartTLS()
	t.Cleanup(u.Close)
	return u
}

// trust makes every provider client of d trust u's certificate.
func trust(d *Dispatcher, u *httptest.Server) {
	pool := x509.NewCertPool()
	pool.AddCert(u.Certificate())
	for _, r := range d.routes {
		for _, tg := range r.targets {
			for _, e := range tg.endpoints {
				e.prov.client.Transport.(*http.Transport).TLSClientConfig = &tls.Config{RootCAs: pool}
			}
		}
	}
}

func tlsDispatcher(t *testing.T, url string) *Dispatcher {
	t.Helper()
	cfg, err := config.Parse("t.yaml", []byte(`providers:
  - {name: p, dialect: openai, base_url: "`+url+`/v1", api_key: sk-test}
targets:
  - {name: m, model: m, providers: [p]}
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	tr := health.New(health.NewMemory(), health.Settings{FailureThreshold: 3, Cooldown: time.Second, MaxCooldown: time.Minute},
		[]health.Key{{Target: "m", Provider: "p"}}, nil)
	d, err := New(Options{Config: cfg, Health: tr, Classifier: &classify.Classifier{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.Close)
	return d
}

// burst sends n requests at once through d and waits until the upstream
// holds them all, then lets them answer; every one must succeed.
func burst(t *testing.T, d *Dispatcher, u *countingTLS, n int) {
	t.Helper()
	var wg sync.WaitGroup
	var failed atomic.Int64
	for range n {
		wg.Go(func() {
			res := d.Do(context.Background(), &Call{Model: "m", ID: "id",
				Body: []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`)})
			if res.Failure != nil {
				failed.Add(1)
				t.Errorf("request failed: %+v", res.Failure)
			}
		})
	}
	for deadline := time.Now().Add(20 * time.Second); u.arrived.Load() < int64(n) && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if got := u.arrived.Load(); got != int64(n) {
		t.Errorf("the upstream held %d of %d requests at once", got, n)
	}
	close(u.release)
	wg.Wait()
}

// A cold burst to an HTTP/2 upstream opens about as many connections as the
// server's stream limit requires, not one per request (docs/benchmarks.md#memory-with-1000-concurrent-streams).
func TestDialGateColdBurstOverHTTP2(t *testing.T) {
	const n, perConn = 300, 100
	u := newCountingTLS(t, true, perConn, 0)
	d := tlsDispatcher(t, u.URL)
	trust(d, u.Server)
	burst(t, d, u, n)
	// n/perConn connections carry the burst; allow for a dial racing a
	// connection that had just filled.
	if got, most := u.conns.Load(), int64(n/perConn+2); got > most {
		t.Errorf("a cold burst of %d requests opened %d connections, want at most %d", n, got, most)
	}
}

// An upstream without HTTP/2 needs a connection per open request: the gate
// must not hold them back.
func TestDialGateStepsAsideForHTTP1(t *testing.T) {
	const n = 40
	u := newCountingTLS(t, false, 0, 0)
	d := tlsDispatcher(t, u.URL)
	trust(d, u.Server)
	burst(t, d, u, n)
	if got := u.conns.Load(); got != n {
		t.Errorf("%d requests held open over HTTP/1.1 used %d connections, want %d", n, got, n)
	}
	for _, r := range d.routes {
		if g := r.targets[0].endpoints[0].prov.gate; !g.h1.Load() {
			t.Error("the gate did not learn that the provider answers over HTTP/1.1")
		}
	}
}

// A dead upstream costs a burst one connect timeout: the holder's failed
// dial is every waiter's answer (their own dials would fail alike, after as
// long again), so the route moves on after one timeout, not two or n.
func TestDialGateDeadUpstreamCostsOneTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int64
	go func() {
		var held []net.Conn
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			held = append(held, c) // never answers the handshake
		}
	}()
	const n, timeout = 10, 300 * time.Millisecond
	p := &config.Provider{BaseURL: "https://" + ln.Addr().String(), ConnectTimeout: timeout}
	client, g := newClient(p), newDialGate(p.BaseURL, holderDial(p.ConnectTimeout))
	send := func() time.Duration {
		start := time.Now()
		trace := &httptrace.ClientTrace{}
		gctx, turn := g.hook(context.Background(), trace)
		req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(gctx, trace), http.MethodGet, p.BaseURL, nil)
		if _, err := turn.do(client, req); err == nil {
			t.Error("a request to an upstream that never handshakes succeeded")
		}
		return time.Since(start)
	}
	holder := make(chan struct{})
	go func() { defer close(holder); send() }()
	for accepted.Load() == 0 { // the holder's dial is in its handshake
		time.Sleep(time.Millisecond)
	}
	var wg sync.WaitGroup
	var slowest atomic.Int64
	for range n {
		wg.Go(func() {
			if took := int64(send()); took > slowest.Load() {
				slowest.Store(took)
			}
		})
	}
	wg.Wait()
	<-holder
	if got := accepted.Load(); got != 1 {
		t.Errorf("%d requests behind a holder whose dial hangs opened %d connections, want the holder's one", n+1, got)
	}
	if took := time.Duration(slowest.Load()); took > timeout*17/10 {
		t.Errorf("a request to a dead upstream failed after %s, %.1f connect timeouts (want at most one)", took, float64(took)/float64(timeout))
	}
}

// A client that gives up while its request holds the gate (its dial still
// in the handshake) is no failed dial: the queue goes on as after a
// success, and the burst behind it does not storm.
func TestDialGateHolderCanceled(t *testing.T) {
	const n, delay = 60, 300 * time.Millisecond
	u := newCountingTLS(t, true, 100, delay)
	d := tlsDispatcher(t, u.URL)
	trust(d, u.Server)
	hctx, cancelHolder := context.WithCancel(context.Background())
	done := make(chan struct{})
	call := func() *Call {
		return &Call{Model: "m", ID: "id", Body: []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`)}
	}
	go func() {
		defer close(done)
		d.Do(hctx, call()) // the holder: the pool is cold
	}()
	for u.conns.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			if res := d.Do(context.Background(), call()); res.Failure != nil {
				t.Errorf("request failed: %+v", res.Failure)
			}
		})
	}
	time.Sleep(50 * time.Millisecond) // all n queue behind the holder
	cancelHolder()
	<-done
	for deadline := time.Now().Add(20 * time.Second); u.arrived.Load() < n && time.Now().Before(deadline); {
		time.Sleep(2 * time.Millisecond)
	}
	if got := u.arrived.Load(); got != n {
		t.Errorf("%d of %d requests reached the upstream", got, n)
	}
	close(u.release)
	wg.Wait()
	if got := u.conns.Load(); got > 4 {
		t.Errorf("one canceled holder made %d waiting requests open %d TLS connections, want at most 4", n, got)
	}
}

// BenchmarkGateQueueDrain wakes a queue of waiters one at a time, as lanes
// pass their wakes on: each wake is O(1), not a copy of the queue.
func BenchmarkGateQueueDrain(b *testing.B) {
	const n = 50_000
	for b.Loop() {
		g := &dialGate{}
		for range n {
			g.queue = append(g.queue, &waiter{t: &gateTurn{g: g}, wake: make(chan struct{})})
		}
		g.mu.Lock()
		for g.head < len(g.queue) {
			g.wakeLocked(1, nil)
		}
		g.mu.Unlock()
	}
}

package redistest

import (
	"bytes"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Tap forwards a loopback port to a Redis server, as Proxy does, and
// records what its clients send: each batch (what one read from a client
// brought: one command, or a pipeline) with the names of its commands and
// when it went on to the server. With Latency set every batch is held that
// long first, as a Redis in another zone adds a round trip's time to each.
// A test counts a request's round trips with it, and which of them came
// before the client had its answer.
type Tap struct {
	ln      net.Listener
	target  string
	mu      sync.Mutex
	latency time.Duration
	batches []Batch
	conns   map[net.Conn]struct{}
	wg      sync.WaitGroup
}

// Batch is one round trip's commands, as a client sent them.
type Batch struct {
	// Sent is when the batch went on to the server, after the latency.
	Sent time.Time
	// Commands are the commands' names, upper case (EVALSHA, GET …).
	Commands []string
}

// StartTap listens on a free loopback port and forwards to target
// (host:port) until the test ends.
func StartTap(t testing.TB, target string) *Tap {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &Tap{ln: ln, target: target, conns: make(map[net.Conn]struct{})}
	p.wg.Go(p.serve)
	t.Cleanup(p.close)
	return p
}

// URL is the redis:// URL of database 0 through the tap.
func (p *Tap) URL() string {
	return "redis://127.0.0.1:" + strconv.Itoa(p.ln.Addr().(*net.TCPAddr).Port) + "/0"
}

// Latency holds every batch d before the server gets it; 0 ends that.
func (p *Tap) Latency(d time.Duration) {
	p.mu.Lock()
	p.latency = d
	p.mu.Unlock()
}

// Reset forgets the batches recorded so far.
func (p *Tap) Reset() {
	p.mu.Lock()
	p.batches = nil
	p.mu.Unlock()
}

// Batches returns the batches recorded since the last Reset, in the order
// they went to the server.
func (p *Tap) Batches() []Batch {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]Batch(nil), p.batches...)
}

func (p *Tap) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			c.Close()
			continue
		}
		p.mu.Lock()
		p.conns[c], p.conns[up] = struct{}{}, struct{}{}
		p.mu.Unlock()
		p.wg.Go(func() { _, _ = io.Copy(c, up); c.Close() })
		p.wg.Go(func() { p.commands(c, up); up.Close() })
	}
}

// commands copies a client's commands to the server, one read at a time,
// recording each read as a batch.
func (p *Tap) commands(c, up net.Conn) {
	buf := make([]byte, 64<<10)
	var pending []byte // a command not yet whole
	for {
		n, err := c.Read(buf)
		if n > 0 {
			pending = append(pending, buf[:n]...)
			var names []string
			names, pending = parseCommands(pending)
			p.mu.Lock()
			d := p.latency
			p.mu.Unlock()
			time.Sleep(d)
			p.mu.Lock()
			if len(names) > 0 {
				p.batches = append(p.batches, Batch{Sent: time.Now(), Commands: names})
			}
			p.mu.Unlock()
			if _, werr := up.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// parseCommands reads the whole RESP commands at the start of b (arrays of
// bulk strings, as clients send them) and returns their names and the
// rest of b.
func parseCommands(b []byte) (names []string, rest []byte) {
	for len(b) > 0 {
		name, n := parseCommand(b)
		if n == 0 {
			break
		}
		names = append(names, name)
		b = b[n:]
	}
	return names, b
}

// parseCommand reads one command at the start of b: its name and length,
// or 0 when it is not whole yet.
func parseCommand(b []byte) (string, int) {
	line := func(at int) (string, int) {
		i := bytes.Index(b[at:], []byte("\r\n"))
		if i < 0 {
			return "", -1
		}
		return string(b[at : at+i]), at + i + 2
	}
	head, at := line(0)
	if at < 0 || !strings.HasPrefix(head, "*") {
		return "", 0
	}
	argc, err := strconv.Atoi(head[1:])
	if err != nil {
		return "", 0
	}
	var name string
	for i := range argc {
		l, next := line(at)
		if next < 0 || !strings.HasPrefix(l, "$") {
			return "", 0
		}
		size, err := strconv.Atoi(l[1:])
		if err != nil || next+size+2 > len(b) {
			return "", 0
		}
		if i == 0 {
			name = strings.ToUpper(string(b[next : next+size]))
		}
		at = next + size + 2
	}
	return name, at
}

func (p *Tap) close() {
	p.ln.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
}

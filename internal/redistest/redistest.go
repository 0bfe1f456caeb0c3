package redistest

import (
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Server is one redis-server owned by a test; t.Cleanup kills it.
type Server struct {
	t    testing.TB
	path string
	port int
	cmd  *exec.Cmd
}

// New picks a free loopback port for a redis-server that is not started yet.
func New(t testing.TB) *Server {
	t.Helper()
	path, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("redis-server not found and CI=true: install it (apt-get install redis-server): %v", err)
		}
		t.Skipf("redis-server not found on PATH; skipping (install redis-server to run this test): %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	s := &Server{t: t, path: path, port: port}
	t.Cleanup(s.Kill)
	return s
}

// Start is New, then Start.
func Start(t testing.TB) *Server {
	t.Helper()
	s := New(t)
	s.Start()
	return s
}

// Addr is host:port.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// URL is the redis:// URL of database 0.
func (s *Server) URL() string { return "redis://" + s.Addr() + "/0" }

// Client returns a client closed at the test's end.
func (s *Server) Client(t testing.TB) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: s.Addr()})
	t.Cleanup(func() { c.Close() })
	return c
}

// Start runs redis-server on the port (again, after Kill: empty, nothing
// saved) and waits until it answers PING.
func (s *Server) Start() {
	s.t.Helper()
	s.cmd = exec.Command(s.path, "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no", "--loglevel", "warning")
	if err := s.cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	c := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1})
	defer c.Close()
	for start := time.Now(); ; time.Sleep(10 * time.Millisecond) { // readiness, not a timed assertion
		if c.Ping(context.Background()).Err() == nil {
			return
		}
		if time.Since(start) > 10*time.Second {
			s.Kill()
			s.t.Fatalf("redis-server on %s did not come up", s.Addr())
		}
	}
}

// Kill stops redis-server abruptly (SIGKILL), as a crash would.
func (s *Server) Kill() {
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Kill()
		_ = s.cmd.Wait()
		s.cmd = nil
	}
}

package redistest

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Server is one redis-server (or sentinel) owned by a test; t.Cleanup kills
// it. Its data directory is a temporary directory of the test, kept across
// Kill and Start, so a cluster node finds its nodes.conf again on restart.
//
// Methods that can fail take the testing.TB of the calling test: a server
// started by a parent test is often killed and restarted by a subtest, and
// a subtest must never fail its parent (FailNow on a parent panics).
type Server struct {
	path  string
	port  int
	dir   string
	conf  string   // a configuration file to start with ("" = none)
	extra []string // more command-line options
	cmd   *exec.Cmd
	// started: the server came up once; its ports are then its own (a
	// cluster node's nodes.conf names them) and are never picked again.
	started bool
}

// lookPath finds a binary of the Redis packages, skipping the test without
// it, except under CI=true, where it fails: CI must install it.
func lookPath(t testing.TB, name, pkg string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s not found and CI=true: install it (apt-get install %s): %v", name, pkg, err)
		}
		t.Skipf("%s not found on PATH; skipping (install %s to run this test): %v", name, pkg, err)
	}
	return path
}

// FreePort returns a loopback port that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// New picks a free loopback port for a redis-server that is not started yet.
func New(t testing.TB) *Server {
	t.Helper()
	s := &Server{path: lookPath(t, "redis-server", "redis-server"), port: FreePort(t), dir: dataDir(t)}
	t.Cleanup(s.Kill)
	return s
}

// dataDir is the test's directory for one server: in memory (/dev/shm)
// where the machine has it, else t.TempDir(). Redis fsyncs its files (a
// cluster node every write and its nodes.conf, a sentinel each rewrite of
// its configuration), and on a loaded disk one fsync took seconds: a
// sentinel whose timer is held up 2s enters TILT mode and does nothing for
// 30s, a cluster node that misses its peers' pings is marked failing. In
// memory an fsync costs nothing and the files still outlive Kill and Start.
func dataDir(t testing.TB) string {
	t.Helper()
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		if dir, err := os.MkdirTemp("/dev/shm", "redistest-"); err == nil {
			t.Cleanup(func() { os.RemoveAll(dir) })
			return dir
		}
	}
	return t.TempDir()
}

// Start is New, then Start.
func Start(t testing.TB) *Server {
	t.Helper()
	s := New(t)
	s.Start(t)
	return s
}

// StartWith is Start with more redis-server options, e.g. "--requirepass", "pw".
func StartWith(t testing.TB, options ...string) *Server {
	t.Helper()
	s := New(t)
	s.extra = options
	s.Start(t)
	return s
}

// Addr is host:port.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

// URL is the redis:// URL of database 0.
func (s *Server) URL() string { return "redis://" + s.Addr() + "/0" }

// Client returns a plain client of this one server, closed at the test's end.
func (s *Server) Client(t testing.TB) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: s.Addr()})
	t.Cleanup(func() { c.Close() })
	return c
}

// Running reports whether the process is started (and not killed).
func (s *Server) Running() bool { return s.cmd != nil }

// Start runs redis-server on the port (again, after Kill: empty, nothing
// saved) and waits until it answers PING; t is the calling test. A port
// FreePort found free can be taken before redis-server binds it (by
// another test's server, or an outbound connection's local port: a CI run
// lost TestSharedStateTopologies to "Address already in use" on a cluster
// bus port): a server that never came up then gets new ports, a few times.
func (s *Server) Start(t testing.TB) {
	t.Helper()
	for try := 1; ; try++ {
		if !s.started {
			_ = os.Remove(filepath.Join(s.dir, "log"))
		}
		up, taken := s.start(t)
		if up {
			s.started = true
			return
		}
		if !taken || s.started || try == 5 {
			log, _ := os.ReadFile(filepath.Join(s.dir, "log"))
			t.Fatalf("redis-server on %s did not come up:\n%s", s.Addr(), log)
		}
		s.port = FreePort(t)
		if i := slices.Index(s.extra, "--cluster-port"); i >= 0 && i+1 < len(s.extra) {
			s.extra[i+1] = strconv.Itoa(FreePort(t))
		}
	}
}

// start runs redis-server once and waits until it answers PING (up); when
// it does not, it is killed, and taken says it could not bind its ports.
func (s *Server) start(t testing.TB) (up, taken bool) {
	t.Helper()
	var args []string
	if s.conf != "" {
		args = append(args, s.conf)
	}
	args = append(args, "--port", strconv.Itoa(s.port), "--bind", "127.0.0.1", "--dir", s.dir,
		"--save", "", "--appendonly", "no", "--loglevel", "warning", "--logfile", filepath.Join(s.dir, "log"))
	args = append(args, s.extra...)
	s.cmd = exec.Command(s.path, args...)
	// The server dies with the test binary, even if the test is killed.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// A short read timeout: a port someone else holds may accept and never
	// answer; the loop asks again.
	c := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1, ReadTimeout: 500 * time.Millisecond})
	defer c.Close()
	for start := time.Now(); ; time.Sleep(10 * time.Millisecond) { // readiness, not a timed assertion
		if err := c.Ping(context.Background()).Err(); err == nil || strings.Contains(err.Error(), "NOAUTH") {
			return true, false // answering (a NOAUTH refusal is an answer)
		}
		if log, _ := os.ReadFile(filepath.Join(s.dir, "log")); bytes.Contains(log, []byte("Address already in use")) {
			s.Kill()
			return false, true
		}
		if time.Since(start) > 30*time.Second { // a failure guard
			s.Kill()
			return false, false
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

// Log returns what the server wrote to its log file (for failure messages).
func (s *Server) Log() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "log"))
	return string(b)
}

// waitFor polls cond every 50ms until it is true, or fails the test after
// within (a failure guard, not a timing assertion).
func waitFor(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("redistest: gave up after %v waiting for %s", within, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

package redistest

import (
	"net"
	"testing"
)

// A port taken between FreePort and redis-server's bind (another test's
// server, an outbound connection's local port) costs a new pick, not the
// test: a CI run lost TestSharedStateTopologies to "Address already in
// use" on a cluster bus port.
func TestStartPicksAgainWhenThePortIsTaken(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	s := New(t)
	taken := l.Addr().(*net.TCPAddr).Port
	s.port = taken
	s.Start(t)
	if s.port == taken {
		t.Fatalf("the server says it runs on the taken port %d", taken)
	}
	if err := s.Client(t).Ping(t.Context()).Err(); err != nil {
		t.Fatalf("ping %s: %v", s.Addr(), err)
	}
}

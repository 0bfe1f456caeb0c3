package server

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/detour-llm/detour/internal/config"
)

// An operator relies on the DNS-rebinding guard judging each request's
// Host on its own: the guard remembers the last Host that named an IP
// address (docs/benchmarks.md, "Round 23"), and that never lets a name
// through, whatever came before or after it, on a loopback connection.
func TestHostGuardRemembersOnlyAddresses(t *testing.T) {
	lo := &net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 8080}
	cfg := &config.Config{}
	for i, tc := range []struct {
		host string
		want bool
	}{
		{"127.0.0.1:8080", true},
		{"127.0.0.1:8080", true},
		{"rebind.evil.example:8080", false},
		{"127.0.0.1:8080", true},
		{"127.0.0.1.evil.example:8080", false},
		{"[::1]:8080", true},
		{"[::1]:8080", true},
		{"localhost:8080", true},
		{"gateway.corp:8080", false},
	} {
		r := httptest.NewRequest(http.MethodGet, "/v1/health", nil)
		r.Host = tc.host
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, lo))
		if got := hostAllowed(cfg, r); got != tc.want {
			t.Errorf("request %d, Host %q: allowed %v, want %v", i, tc.host, got, tc.want)
		}
	}
}

package server

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/detour-llm/detour/internal/config"
)

// The Host guard on connections that did not arrive on loopback (a gateway
// listening on a LAN address): without allowed_hosts any name is answered,
// since the operator's own names cannot be guessed; with it, only the
// listed ones (and IP addresses, localhost). Real listeners only bind
// loopback in tests, so the connection's address is set by hand here; the
// loopback cases are proven end to end in e2e/front_test.go.
func TestHostGuardOffLoopback(t *testing.T) {
	lan := &net.TCPAddr{IP: net.ParseIP("10.1.2.3"), Port: 8080}
	lo := &net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 8080}
	for _, tc := range []struct {
		local   net.Addr
		allowed []string
		host    string
		want    bool
	}{
		{lan, nil, "gateway.corp:8080", true},
		{lan, []string{"gateway.corp"}, "gateway.corp:8080", true},
		{lan, []string{"gateway.corp"}, "rebind.evil.example:8080", false},
		{lan, []string{"gateway.corp"}, "10.1.2.3:8080", true},
		{lo, nil, "gateway.corp:8080", false},
		{lo, nil, "localhost.:8080", true},
		{lo, nil, "evil-localhost:8080", false},
		{lo, nil, "[::1]:8080", true},
		{lo, nil, "127.0.0.1", true},
	} {
		r := httptest.NewRequest(http.MethodGet, "/v1/health", nil)
		r.Host = tc.host
		r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, tc.local))
		if got := hostAllowed(&config.Config{AllowedHosts: tc.allowed}, r); got != tc.want {
			t.Errorf("on %s with allowed_hosts %v, Host %q: allowed %v, want %v", tc.local, tc.allowed, tc.host, got, tc.want)
		}
	}
}

func TestJSONContentType(t *testing.T) {
	for ct, want := range map[string]bool{
		"application/json": true, "application/json; charset=utf-8": true, " APPLICATION/JSON ;x=y": true,
		"application/problem+json": true, "application/+json": false,
		"": false, "text/plain": false, "application/jsonp": false, "text/json": false, "application/json+xml": false,
		"application/x-www-form-urlencoded": false, "multipart/form-data; boundary=x": false, "application/": false,
	} {
		if got := jsonContentType(ct); got != want {
			t.Errorf("%q: %v, want %v", ct, got, want)
		}
	}
}

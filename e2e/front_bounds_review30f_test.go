package e2e

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 30f. docs/security.md: a client "with or without a client key"
// must never "exhaust the gateway's memory". Request headers are read
// before any key is checked, and net/http holds up to its MaxHeaderBytes
// (1 MiB by default) while a client trickles them for the header timeout:
// 48 connections stalled inside ~1000 KiB headers held 51 MiB of the heap.
// The front bounds them at app.MaxHeaderBytes: past it a request is
// refused with 431 at once; headers well over what any SDK sends still
// pass.
func TestRequestHeadersAreBounded(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(ok("model-a", "a"))})
	g := start(t, frontCfg, fs)
	body := `{"model":"a","messages":[{"role":"user","content":"hi"}]}`
	big := g.send(t, http.MethodPost, "/v1/chat/completions", body, "Content-Type", "application/json",
		"X-Padding", strings.Repeat("p", 2*app.MaxHeaderBytes)) // net/http allows 4 KiB of slack past it
	if big.Status != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("headers of %d bytes: status %d, want 431", 2*app.MaxHeaderBytes, big.Status)
	}
	fine := g.send(t, http.MethodPost, "/v1/chat/completions", body, "Content-Type", "application/json",
		"X-Padding", strings.Repeat("p", 16<<10))
	if fine.Status != http.StatusOK {
		t.Errorf("16 KiB of headers: status %d, want 200: %s", fine.Status, fine.Body)
	}
}

// Review 30f. A client key's max_concurrent is taken only after the front
// has read the request's body (admit, then begin/refused), so a key limited
// to one request at a time can hold any number of uploads at once, and
// with them the whole max_inflight_body_bytes allowance every client
// shares: each stalled upload holds its share until the read timeout (60s
// by default), and the key opens new ones. Every other client's body is
// then refused with 503 inflight_body_limit. Here a key with
// max_concurrent: 1 stalls three uploads; another key's request is refused.
func TestOneKeyCannotHoldTheAllowancePastItsConcurrency(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(ok("model-a", "a"), ok("model-a", "a"))})
	yaml := strings.ReplaceAll(`max_body_bytes: 1048576
max_inflight_body_bytes: 2097152
client_keys:
  - {name: slow, key: key-slow-0123456789, max_concurrent: 1}
  - {name: other, key: key-other-0123456789}
`+frontCfg, "{p}", fs["p"].URL)
	url, _ := gatewaytest.Start(t, gatewaytest.Config(t, yaml), app.Options{
		Decisions: decision.Discard, ReadHeaderTimeout: 2 * time.Second, ReadTimeout: 20 * time.Second})
	g := &gateway{URL: url}
	addr := strings.TrimPrefix(url, "http://")
	body := bigBody(900 << 10)
	for range 3 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer key-slow-0123456789\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
			addr, len(body), body[:600<<10])
	}
	time.Sleep(700 * time.Millisecond) // the server has read what they sent
	r := g.send(t, http.MethodPost, "/v1/chat/completions", body, "Content-Type", "application/json", "Authorization", "Bearer key-other-0123456789")
	if r.Status != 200 {
		t.Errorf("another client's request while a max_concurrent: 1 key stalls three uploads: status %d, want 200: %s", r.Status, r.Body)
	}
}

package e2e

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 33e: the front's own answers and refusals, against a client that
// does not behave.

// keyedFrontCfg is frontCfg behind a client key.
const keyedFrontCfg = "client_keys: [client-key-33e]\n" + frontCfg

// dialSmall connects to the gateway with a small receive buffer, so that
// what the client does not read backs up into the gateway's writes soon.
func dialSmall(t *testing.T, url string) net.Conn {
	t.Helper()
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var err error
		_ = c.Control(func(fd uintptr) { err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		return err
	}}
	c, err := d.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedSoon reports whether the gateway closed c within wait, reading
// (and dropping) whatever it still had to say.
func closedSoon(c net.Conn, wait time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(wait))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout() || errors.Is(err, os.ErrDeadlineExceeded))
}

// TestFrontAnswersHaveAWriteDeadline: a client that asks and never reads
// held a handler goroutine and its connection for as long as it liked when
// the answer was the front's own (/v1/models here; a 401, a 404): only
// proxied answers had a write deadline. Now every answer is written within
// 30 s or the connection is closed. Pipelined requests make the answers
// outgrow the socket buffers. About 35 s: skipped with -short.
func TestFrontAnswersHaveAWriteDeadline(t *testing.T) {
	if testing.Short() {
		t.Skip("waits out the 30 s write deadline")
	}
	fs := fakes(t, map[string]upstreamtest.Script{"p": script()})
	g := start(t, keyedFrontCfg, fs)
	c := dialSmall(t, g.URL)
	req := "GET /v1/models HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer client-key-33e\r\n\r\n"
	go func() { // the requests themselves back up too: written aside
		_, _ = io.WriteString(c, strings.Repeat(req, 60000))
	}()
	time.Sleep(34 * time.Second)
	if !closedSoon(c, 10*time.Second) {
		t.Fatal("a client that never read still held its connection after the write deadline")
	}
}

// TestRefusalsBeforeAKeyCloseTheConnection: a 401 (and any refusal made
// before a client key is known) closes the connection, so a scanner
// without a key cannot keep idle connections open for the idle timeout.
func TestRefusalsBeforeAKeyCloseTheConnection(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"p": script()})
	g := start(t, keyedFrontCfg, fs)
	for _, req := range []string{
		"POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer wrong-key-000\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
		"GET /v1/models HTTP/1.1\r\nHost: localhost\r\n\r\n",
	} {
		c := dialSmall(t, g.URL)
		if _, err := io.WriteString(c, req); err != nil {
			t.Fatal(err)
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized || !resp.Close {
			t.Errorf("%s: status %d, Connection: close %v; want 401 and close", strings.Fields(req)[1], resp.StatusCode, resp.Close)
		}
		if !closedSoon(c, 3*time.Second) {
			t.Errorf("%s: the connection stayed open after the 401", strings.Fields(req)[1])
		}
	}
}

// TestBodyTooSlowIs408WithoutAddresses: a body that does not arrive
// within the read timeout is answered 408 with a fixed message; it was a
// 400 quoting the socket's addresses ("read tcp 127.0.0.1:…->…: i/o
// timeout").
func TestBodyTooSlowIs408WithoutAddresses(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"p": script()})
	url, _ := gatewaytest.Start(t, gatewaytest.Config(t, strings.ReplaceAll(frontCfg, "{p}", fs["p"].URL)),
		app.Options{Decisions: decision.Discard, ReadTimeout: time.Second})
	c := dialSmall(t, url)
	if _, err := io.WriteString(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"model\":"); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestTimeout {
		t.Errorf("status %d, want 408: %s", resp.StatusCode, b)
	}
	if strings.Contains(string(b), "127.0.0.1") || strings.Contains(string(b), "tcp") {
		t.Errorf("the answer names the socket: %s", b)
	}
}

// TestCompressedBodyIs415: a body sent with a Content-Encoding other than
// identity is refused as what it is, in the door's envelope; it was read
// as JSON and refused as malformed.
func TestCompressedBodyIs415(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(), "openai": script()})
	g := start(t, messagesCfg, fs)
	for _, tc := range []struct{ path, key, val string }{
		{"/v1/chat/completions", "Authorization", "Bearer client-key-1"},
		{"/v1/messages", "x-api-key", "client-key-1"},
	} {
		r := g.raw(t, http.MethodPost, tc.path, "\x1f\x8b\x08\x00garbage", tc.key, tc.val, "Content-Encoding", "gzip")
		if r.Status != http.StatusUnsupportedMediaType || !strings.Contains(string(r.Body), "Content-Encoding") {
			t.Errorf("%s: status %d, want 415 naming Content-Encoding: %s", tc.path, r.Status, r.Body)
		}
		if !strings.Contains(string(r.Body), `"error"`) {
			t.Errorf("%s: not an error envelope: %s", tc.path, r.Body)
		}
	}
	// identity is no encoding at all.
	r := g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"nope","messages":[]}`,
		"Authorization", "Bearer client-key-1", "Content-Encoding", "identity")
	if r.Status != http.StatusNotFound {
		t.Errorf("identity: status %d, want the unknown model's 404: %s", r.Status, r.Body)
	}
}

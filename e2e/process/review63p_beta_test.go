package process

// Review 63p: the client's anthropic-beta header goes upstream as sent
// (up to the 64 KiB of headers the front reads). An upstream in front of
// which a proxy refuses large headers — nginx's 400 "Request Header Or
// Cookie Too Large", or a balancer that drops the connection — must not
// let a client cool the endpoint for everyone by sending one: since round
// 63 the front refuses more than 4 KiB of them (400 header_too_large).

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// p63HeaderProxy answers a request whose header block passes 8 KiB as
// mode says ("nginx": nginx's 400 page; "drop": closes the connection),
// and any other with a Messages answer.
func p63HeaderProxy(t *testing.T, mode string) (url string, big *atomic.Int64) {
	big = new(atomic.Int64)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				br := bufio.NewReaderSize(c, 1<<20)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					size := 0
					for k, vs := range req.Header {
						for _, v := range vs {
							size += len(k) + len(v) + 4
						}
					}
					io.Copy(io.Discard, req.Body)
					if size > 8<<10 {
						big.Add(1)
						if mode == "drop" {
							c.(*net.TCPConn).SetLinger(0)
							return
						}
						page := "<html>\r\n<head><title>400 Request Header Or Cookie Too Large</title></head>\r\n<body>\r\n<center><h1>400 Bad Request</h1></center>\r\n<center>Request Header Or Cookie Too Large</center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"
						fmt.Fprintf(c, "HTTP/1.1 400 Bad Request\r\nServer: nginx\r\nContent-Type: text/html\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(page), page)
						return
					}
					body := `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"hello"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":2}}`
					fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
				}
			}(c)
		}
	}()
	return "http://" + ln.Addr().String(), big
}

func TestReview63pBigBetaHeaderCoolsNothing(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"nginx", "drop"} {
		t.Run(mode, func(t *testing.T) {
			up, big := p63HeaderProxy(t, mode)
			g := startGateway(t, "G", render(`
health: {failure_threshold: 3, cooldown: 60s}
client_keys:
  - {name: alpha, key: `+p63KeyA+`}
  - {name: beta, key: `+p63KeyB+`}
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{up}", api_key: sk-ant-test-63p}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
`, map[string]string{"up": up}))
			body := `{"model":"claude","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}`
			send := func(key string, beta string) int {
				req, _ := http.NewRequest(http.MethodPost, g.URL+"/v1/messages", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-Api-Key", key)
				req.Header.Set("Anthropic-Version", "2023-06-01")
				if beta != "" {
					req.Header.Set("Anthropic-Beta", beta)
				}
				resp, err := client.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				return resp.StatusCode
			}
			var codes []int
			for i := 0; i < 4; i++ {
				codes = append(codes, send(p63KeyA, strings.Repeat("x", 40<<10)))
			}
			time.Sleep(300 * time.Millisecond)
			e := g.endpoint("claude", "anthropic")
			honest := send(p63KeyB, "")
			t.Logf("%s: four 40 KiB anthropic-beta headers: %v (upstream saw %d); endpoint %s last_class %s; honest key then: %d",
				mode, codes, big.Load(), e.State, e.LastClass, honest)
			if e.State != "healthy" || honest != 200 {
				t.Errorf("%s: one client's header cooled the endpoint for everyone: %s (%s), honest %d", mode, e.State, e.LastClass, honest)
			}
		})
	}
}

// Review 63q: the bound counts each forwarded header line whole, so
// thousands of empty or one-byte anthropic-beta lines (54 KB of headers
// upstream, counted as nothing by their values) are refused at the front,
// and the upstream never sees them: nothing cools.
func TestReview63qManyShortBetaLinesAreRefused(t *testing.T) {
	up, big := p63HeaderProxy(t, "drop")
	g := startGateway(t, "G", render(`
health: {failure_threshold: 3, cooldown: 60s}
client_keys:
  - {name: alpha, key: `+p63KeyA+`}
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{up}", api_key: sk-ant-test-63p}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
`, map[string]string{"up": up}))
	body := `{"model":"claude","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}`
	addr := strings.TrimPrefix(g.URL, "http://")
	send := func(lines int, val string) int {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		var b strings.Builder
		fmt.Fprintf(&b, "POST /v1/messages HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nX-Api-Key: %s\r\nAnthropic-Version: 2023-06-01\r\nContent-Length: %d\r\n", p63KeyA, len(body))
		for range lines {
			b.WriteString("Anthropic-Beta: " + val + "\r\n")
		}
		b.WriteString("\r\n" + body)
		c.Write([]byte(b.String()))
		c.SetReadDeadline(time.Now().Add(20 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("%d lines of %q: %v", lines, val, err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, val := range []string{"", "x"} {
		for range 4 {
			if st := send(3000, val); st != http.StatusBadRequest {
				t.Errorf("3,000 anthropic-beta lines of %q: %d, want 400", val, st)
			}
		}
	}
	if n := big.Load(); n != 0 {
		t.Errorf("the upstream saw %d oversized header blocks", n)
	}
	if e := g.endpoint("claude", "anthropic"); e.State != "healthy" {
		t.Errorf("endpoint %s (%s), want healthy", e.State, e.LastClass)
	}
}

package process

// Review 63p: does one hostile client starve an honest one? The honest
// client's latency and statuses are measured while the hostile one holds
// connections: uploads that declare a body and send none of it, HTTP/2
// prefaces, trickled headers.

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// p63Honest sends n sequential requests as key and returns their statuses
// and the latencies' median and maximum.
func p63Honest(url, key string, n int) (codes map[int]int, p50, worst time.Duration) {
	codes = map[int]int{}
	var lat []time.Duration
	for i := 0; i < n; i++ {
		t0 := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		codes[p63Post(ctx, url, key, false)]++
		cancel()
		lat = append(lat, time.Since(t0))
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	return codes, lat[len(lat)/2], lat[len(lat)-1]
}

// p63Hold opens n connections, each sending head (a request's header
// block, no body), and keeps them open until the returned func is called.
func p63Hold(t *testing.T, addr string, n int, head string) (opened int, release func()) {
	var mu sync.Mutex
	var conns []net.Conn
	var wg sync.WaitGroup
	sem := make(chan struct{}, 64)
	for i := 0; i < n; i++ {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			c, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				return
			}
			if _, err := fmt.Fprint(c, head); err != nil {
				c.Close()
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		})
	}
	wg.Wait()
	return len(conns), func() {
		for _, c := range conns {
			c.Close()
		}
	}
}

// Uploads that declare 8 MiB and send no byte of it: each held the first
// 64 KiB buffer of the body allowance for the read timeout (60 s). With
// the default 64 MiB allowance, 1,024 such connections — about 250 bytes
// each — left nothing for anyone else. Since round 63 an upload holds 512
// bytes before it sends any (docs/config.md, max_inflight_body_bytes).
func TestReview63pEmptyUploadsHoldTheAllowance(t *testing.T) {
	t.Parallel()
	up := p63Fake(t)
	// hostile: a key without max_concurrent (or no client_keys at all, the
	// default): each upload is admitted to read its body.
	g := startGateway(t, "G", p63Config(up.URL, ""))
	codes, p50, worst := p63Honest(g.URL, p63KeyB, 10)
	t.Logf("baseline, honest key beta: %v p50 %v max %v", codes, p50, worst)

	head := "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAuthorization: Bearer " + p63KeyA +
		"\r\nContent-Length: 8388608\r\n\r\n"
	t0 := time.Now()
	n, release := p63Hold(t, g.addr, 1100, head)
	defer release()
	t.Logf("hostile key alpha: %d connections opened in %v, %d bytes each, no body byte", n, time.Since(t0).Round(time.Millisecond), len(head))
	time.Sleep(500 * time.Millisecond)
	codes, p50, worst = p63Honest(g.URL, p63KeyB, 10)
	t.Logf("honest key beta while they wait: %v p50 %v max %v", codes, p50, worst)
	if codes[200] != 10 {
		t.Errorf("an honest key was refused %v while another held %d empty uploads (%d bytes sent in all)", codes, n, n*len(head))
	}
}

// The same with a declared length of 64 KiB (what the first buffer takes)
// or none (chunked), and on a gateway with no client_keys (the default:
// anyone who reaches the port).
func TestReview63pEmptyUploadsFillTheAllowance(t *testing.T) {
	t.Parallel()
	up := p63Fake(t)
	cases := []struct{ name, cfg, auth, frame string }{
		{"key alpha chunked", p63Config(up.URL, ""), "Authorization: Bearer " + p63KeyA + "\r\n", "Transfer-Encoding: chunked"},
		{"key alpha Content-Length 65536", p63Config(up.URL, ""), "Authorization: Bearer " + p63KeyA + "\r\n", "Content-Length: 65536"},
		{"no client_keys chunked", render(`
providers:
  - {name: openai, dialect: openai, base_url: "{up}", api_key: sk-test-63p-provider}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai]}
`, map[string]string{"up": up.URL}), "", "Transfer-Encoding: chunked"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := startGateway(t, "G", c.cfg)
			head := "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" + c.auth + c.frame + "\r\n\r\n"
			n, release := p63Hold(t, g.addr, 1100, head)
			defer release()
			time.Sleep(500 * time.Millisecond)
			honest := p63KeyB
			if c.auth == "" {
				honest = "any"
			}
			codes, p50, worst := p63Honest(g.URL, honest, 10)
			t.Logf("%d empty uploads of %d bytes each (%d KB in all): honest %v p50 %v max %v", n, len(head), n*len(head)/1000, codes, p50, worst)
			if codes[200] != 10 {
				t.Errorf("honest requests refused %v while %d uploads that sent no body byte were open", codes, n)
			}
			// How long: the server's read timeout (60 s) ends them.
		})
	}
}

// A key with max_concurrent holds at most its slots' share.
func TestReview63pEmptyUploadsOfAConcurrencyLimitedKey(t *testing.T) {
	t.Parallel()
	up := p63Fake(t)
	g := startGateway(t, "G", p63Cfg(p63Config(up.URL, "")).replaceAlpha())
	head := "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAuthorization: Bearer " + p63KeyA + "\r\nTransfer-Encoding: chunked\r\n\r\n"
	n, release := p63Hold(t, g.addr, 1100, head)
	defer release()
	time.Sleep(500 * time.Millisecond)
	codes, _, _ := p63Honest(g.URL, p63KeyB, 10)
	t.Logf("max_concurrent 4 key, %d empty uploads: honest %v", n, codes)
	if codes[200] != 10 {
		t.Errorf("honest refused %v", codes)
	}
}

// HTTP/2 prefaces and trickled headers from a client without a key: the
// honest client's latency.
func TestReview63pPrefaceAndSlowHeadersFlood(t *testing.T) {
	t.Parallel()
	up := p63Fake(t)
	g := startGateway(t, "G", p63Config(up.URL, ""))
	_, base, _ := p63Honest(g.URL, p63KeyB, 10)
	// 1,000 connections stalled inside their headers.
	n, release := p63Hold(t, g.addr, 1000, "POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nX-A: ")
	defer release()
	// and a loop of HTTP/2 prefaces with frames (SETTINGS, HEADERS, RST_STREAM) on fresh connections.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var sent int
	var mu sync.Mutex
	frames := "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + "\x00\x00\x00\x04\x00\x00\x00\x00\x00" +
		"\x00\x00\x04\x03\x00\x00\x00\x00\x01\x00\x00\x00\x08"
	for w := 0; w < 4; w++ {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				c, err := net.Dial("tcp", g.addr)
				if err != nil {
					continue
				}
				fmt.Fprint(c, frames)
				c.Close()
				mu.Lock()
				sent++
				mu.Unlock()
			}
		})
	}
	codes, p50, worst := p63Honest(g.URL, p63KeyB, 20)
	close(stop)
	wg.Wait()
	t.Logf("%d stalled header blocks, %d preface connections: honest %v p50 %v (baseline %v) max %v", n, sent, codes, p50, base, worst)
	if codes[200] != 20 {
		t.Errorf("honest client refused: %v", codes)
	}
}

type p63Cfg string

func (c p63Cfg) replaceAlpha() string {
	return strings.Replace(string(c), "{name: alpha, key: "+p63KeyA+"}", "{name: alpha, key: "+p63KeyA+", max_concurrent: 4}", 1)
}

// p63Post sends a chat request with key on ctx; status, or -1 when the
// client gave up.
func p63Post(ctx context.Context, url, key string, stream bool) int {
	body := `{"model":"gpt","messages":[{"role":"user","content":"hi"}]}`
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return -1
	}
	return resp.StatusCode
}

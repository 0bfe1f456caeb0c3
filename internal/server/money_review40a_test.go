package server_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 40a: what a hostile client can do to money and limits, against a
// whole gateway on loopback and fake upstreams on loopback.

// r40aOpen posts a streamed chat request as key and returns the response,
// its body not read.
func r40aOpen(t *testing.T, url, key, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("stream: status %d: %s", resp.StatusCode, b)
	}
	return resp
}

// r40aReadChunks reads n content chunks ("word…") of resp's stream.
func r40aReadChunks(t *testing.T, resp *http.Response, n int) {
	t.Helper()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	got := 0
	for got < n && sc.Scan() {
		if strings.Contains(sc.Text(), `"content":"word`) {
			got++
		}
	}
	if got != n {
		t.Fatalf("read %d of %d content chunks", got, n)
	}
}

// An operator who adds a rate or budget to a key by a reload relies on it
// counting the requests already in flight (docs/config.md, client_keys: "a
// budget or rate a reload adds counts the requests already in flight"),
// including a stream the client leaves before its upstream's count arrives:
// such a stream counts its input and one token per content event it was
// served. The request was admitted while the key had no limits, so it was
// not metered, and its left stream counted nothing at all.
func TestReview40aLeftStreamCountsAgainstALimitAReloadAdded(t *testing.T) {
	const chunks = 400
	up := upstreamtest.New(func(n int, _ upstreamtest.Request) upstreamtest.Step {
		if n > 1 {
			return upstreamtest.Step{Body: upstreamtest.ChatJSON("m", "y")}
		}
		evs := []string{`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`}
		for i := 0; i < chunks; i++ {
			evs = append(evs, r37aChunk(fmt.Sprintf("word%03d ", i)))
		}
		return upstreamtest.Step{Events: evs, Stall: true} // still writing when the client leaves
	})
	t.Cleanup(up.Close)
	before := `
client_keys:
  - {name: team-a, key: key-team-a}
providers:
  - {name: p, dialect: openai, base_url: "{up}", api_key: sk-test-provider-key}
targets:
  - {name: gpt, model: m, providers: [p], price: {input: 1.00, output: 10.00}}
`
	clk := testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	url, a, recs := r37aGateway(t, before, up, clk)

	resp := r40aOpen(t, url, "key-team-a", `{"model":"gpt","stream":true,"messages":[{"role":"user","content":"write 400 words"}]}`)
	r40aReadChunks(t, resp, chunks)
	// The operator cuts the key down while its stream runs.
	after := strings.Replace(before, "key: key-team-a}", "key: key-team-a, rate: {tokens_per_minute: 300}, budget: {usd_per_day: 0.002}}", 1)
	if err := a.Reload(gatewaytest.Config(t, strings.ReplaceAll(after, "{up}", up.URL))); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close() // served 400 chunks: the client leaves
	d := recs.Wait(t, 1)
	at := d.Attempts[0]
	t.Logf("record: outcome %s billable %v usage %+v estimate %+v", d.Outcome, at.Billable, at.Usage, at.Estimate)

	status, body := r37aPost(t, url, "/v1/chat/completions", `{"model":"gpt","messages":[{"role":"user","content":"hi"}]}`, "Authorization", "Bearer "+"key-team-a")
	if status != http.StatusTooManyRequests {
		t.Errorf("after a left stream that served %d chunks (>= %d tokens, >= $%.4f), under a reload's 300 tokens/minute and $0.002/day: status %d, want 429 (%s)",
			chunks, chunks, chunks*10.0/1e6, status, strings.TrimSpace(body))
	}
}

// An operator who gives a key max_concurrent relies on it bounding the
// key's share of the in-flight body allowance every client shares
// (docs/security.md, "Bounded memory": the slot is taken before the body
// is read), and one whose rate or budget has cut a key off relies on it
// holding none (review 37a). Both were checked before the body on every
// door but count_tokens, whose estimate is never refused: a key limited to
// one request at a time, and one over its rate, each stalled three uploads
// to /v1/messages/count_tokens, held the whole allowance, and every other
// key's request was refused with 503 until the read timeout.
func TestReview40aCountTokensUploadsStayWithinTheKeysShare(t *testing.T) {
	for _, tc := range []struct{ name, key, limits string }{
		{"max_concurrent", "key-slow", "max_concurrent: 1"},
		{"over its rate", "key-slow", "rate: {requests_per_minute: 1}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
				return upstreamtest.Step{Body: upstreamtest.ChatJSON("m", "y")}
			})
			t.Cleanup(up.Close)
			cfg := `
max_body_bytes: 1048576
max_inflight_body_bytes: 2097152
client_keys:
  - {name: slow, key: key-slow, ` + tc.limits + `}
  - {name: other, key: key-other}
providers:
  - {name: p, dialect: openai, base_url: "{up}", api_key: sk-test-provider-key}
targets:
  - {name: gpt, model: m, providers: [p]}
`
			clk := testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
			url, _, _ := r37aGateway(t, cfg, up, clk)
			if strings.Contains(tc.limits, "rate") { // its one request of the minute, then a refusal
				r37aPost(t, url, "/v1/chat/completions", `{"model":"gpt","messages":[{"role":"user","content":"hi"}]}`, "Authorization", "Bearer "+tc.key)
				if st, b := r37aPost(t, url, "/v1/chat/completions", `{"model":"gpt","messages":[{"role":"user","content":"hi"}]}`, "Authorization", "Bearer "+tc.key); st != http.StatusTooManyRequests {
					t.Fatalf("second request in the minute: %d %s", st, b)
				}
			}
			addr := strings.TrimPrefix(url, "http://")
			body := `{"model":"gpt","max_tokens":16,"messages":[{"role":"user","content":"` + strings.Repeat("a", 900<<10) + `"}]}`
			for range 3 {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { c.Close() })
				fmt.Fprintf(c, "POST /v1/messages/count_tokens HTTP/1.1\r\nHost: %s\r\nx-api-key: %s\r\nanthropic-version: 2023-06-01\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
					addr, tc.key, len(body), body[:600<<10])
			}
			time.Sleep(700 * time.Millisecond) // the server has read what they sent
			st, b := r37aPost(t, url, "/v1/chat/completions", `{"model":"gpt","messages":[{"role":"user","content":"`+strings.Repeat("b", 900<<10)+`"}]}`, "Authorization", "Bearer "+"key-other")
			if st != http.StatusOK {
				t.Errorf("another key's request while key %q (%s) stalls three count_tokens uploads: status %d, want 200: %.200s", tc.key, tc.limits, st, b)
			}
		})
	}
}

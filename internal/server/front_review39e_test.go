package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 39e: the HTTP front attacked as a hostile or broken client, on
// real sockets.

// r39eChat is a small Chat Completions body for target m.
const r39eChat = `{"model":"m","messages":[{"role":"user","content":"hi"}]}`

// r39eGateway serves one OpenAI target m (client key key-team-a) at a fake
// that answers every call with a short completion.
func r39eGateway(t *testing.T, extra string) (host string, up *upstreamtest.Server) {
	t.Helper()
	up = upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("m", "hello")}
	})
	t.Cleanup(up.Close)
	url, _, _ := r37aGateway(t, extra+teamAConfig("openai"), up, nil)
	return strings.TrimPrefix(url, "http://"), up
}

// r39eAnswers writes raw on a new connection to host and reads every
// answer the gateway gives on it until it closes the connection or stays
// silent for a second.
func r39eAnswers(t *testing.T, host, raw string) []*http.Response {
	t.Helper()
	c, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go io.WriteString(c, raw)
	br := bufio.NewReader(c)
	var out []*http.Response
	for {
		c.SetReadDeadline(time.Now().Add(time.Second))
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return out
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		resp.Body = io.NopCloser(strings.NewReader(string(b)))
		out = append(out, resp)
		if resp.Close {
			return out
		}
	}
}

// chatHead is the head of a POST to /v1/chat/completions from team-a,
// without its framing headers or the blank line.
func r39eChatHead(host string) string {
	return "POST /v1/chat/completions HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: Bearer key-team-a\r\nContent-Type: application/json\r\n"
}

// A gateway behind a proxy is one request-smuggling desync away from
// answering a request nobody sent through the proxy: a message carrying
// both Content-Length and Transfer-Encoding is framed by one reader
// (a proxy) by its length and by the other (net/http) by its chunks, and
// the bytes in between become a second request on the connection. RFC
// 9112 §6.1 requires a server that serves such a message to close the
// connection after answering it; net/http (Go 1.26) keeps it open and
// drops the Content-Length before any handler can see it.
// The front closes the connection after every request with a chunked body
// (docs/security.md, "Hostile clients at the HTTP front"), so bytes after
// the chunks are never read as a request; requests framed by
// Content-Length alone stay on a kept-alive, pipelined connection.
func TestReview39eChunkedRequestEndsItsConnection(t *testing.T) {
	host, up := r39eGateway(t, "")
	chunked := fmt.Sprintf("%x\r\n%s\r\n0\r\n\r\n", len(r39eChat), r39eChat)
	smuggled := "GET /v1/models HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: Bearer key-team-a\r\n\r\n"
	for _, tc := range []struct{ name, framing string }{
		// A proxy reading by Content-Length forwards the chunks and the
		// "smuggled" request as one body; net/http reads the chunks alone.
		{"Content-Length and chunked", fmt.Sprintf("Content-Length: %d\r\nTransfer-Encoding: chunked\r\n", len(chunked)+len(smuggled))},
		{"chunked", "Transfer-Encoding: chunked\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := r39eAnswers(t, host, r39eChatHead(host)+tc.framing+"\r\n"+chunked+smuggled)
			if len(got) == 0 || got[0].StatusCode != http.StatusOK {
				t.Fatalf("the chunked request itself was not served: %d answers", len(got))
			}
			if len(got) > 1 {
				t.Errorf("the bytes after the chunks were served as a request of their own (%d): "+
					"the connection must close after a chunked request (RFC 9112 §6.1)", got[1].StatusCode)
			}
			if !got[0].Close {
				t.Errorf("the answer to a chunked request does not say Connection: close")
			}
		})
	}
	// Framed by Content-Length alone, pipelined requests share the connection.
	one := r39eChatHead(host) + fmt.Sprintf("Content-Length: %d\r\n\r\n", len(r39eChat)) + r39eChat
	if got := r39eAnswers(t, host, one+one+one); len(got) != 3 || got[0].Close || got[2].StatusCode != http.StatusOK {
		t.Errorf("three pipelined requests framed by Content-Length: %d answers, want 3 on one connection", len(got))
	}
	if n := up.Calls(); n != 5 {
		t.Errorf("the upstream had %d calls, want 5 (two chunked requests, three pipelined)", n)
	}
}

// A refusal quotes what the client sent (a model no route has, a role, a
// number no field can hold), and Detour builds and holds that answer after
// the body's bytes went back to max_inflight_body_bytes, for as long as the
// client takes to read it (up to the 30 s write timeout). Quoted whole,
// invalid UTF-8 came out three times its size: a 2 MiB body was answered
// with 6 MiB, so a handful of clients that never read held the gateway's
// memory far past the allowance. Every door's error message is now cut to
// 16 KiB, still naming what was wrong and, for an unknown model, the
// known ones (docs/security.md, "Bounded memory").
func TestReview39eRefusalsQuotingTheRequestAreBounded(t *testing.T) {
	up := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Body: `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}`}
	})
	t.Cleanup(up.Close)
	url, _, _ := r37aGateway(t, teamAConfig("anthropic"), up, nil)
	bad := strings.Repeat("\xff", 2<<20) // 2 MiB that is not UTF-8: each byte is quoted as U+FFFD
	digits := "1" + strings.Repeat("0", 2<<20)
	for _, tc := range []struct {
		name, path, body string
		status           int
		says             string
	}{
		{"unknown model", "/v1/chat/completions", `{"model":"` + bad + `","messages":[]}`, 404, "known: m"},
		{"unknown model, Messages door", "/v1/messages", `{"model":"` + bad + `","max_tokens":1,"messages":[]}`, 404, "known: m"},
		{"role, Messages door", "/v1/messages", `{"model":"m","max_tokens":1,"messages":[{"role":"` + bad + `","content":"hi"}]}`, 400, "messages.0.role"},
		{"item type, Responses door", "/v1/responses", `{"model":"m","input":[{"type":"` + bad + `"}]}`, 400, "input item type"},
		{"number, Responses door", "/v1/responses", `{"model":"m","max_output_tokens":` + digits + `,"input":"hi"}`, 400, "max_output_tokens"},
		{"role, translated for an Anthropic target", "/v1/chat/completions", `{"model":"m","messages":[{"role":"` + bad + `","content":"hi"}]}`, 400, "unknown message role"},
		{"number, translated for an Anthropic target", "/v1/chat/completions", `{"model":"m","max_tokens":` + digits + `,"messages":[{"role":"user","content":"hi"}]}`, 400, "max_tokens"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := r37aPost(t, url, tc.path, tc.body, "Authorization", "Bearer key-team-a", "Anthropic-Version", "2023-06-01")
			if status != tc.status || !strings.Contains(body, tc.says) {
				t.Fatalf("%d %.300s; want %d saying %q", status, body, tc.status, tc.says)
			}
			if len(body) > 64<<10 {
				t.Errorf("a %d-byte request was refused with %d bytes: a refusal must not grow with what it quotes", len(tc.body), len(body))
			}
			var env map[string]any
			if err := json.Unmarshal([]byte(body), &env); err != nil || env["error"] == nil {
				t.Errorf("the refusal is not an error envelope: %v", err)
			}
		})
	}
	if n := up.Calls(); n != 0 {
		t.Errorf("refused requests reached the upstream %d times", n)
	}
}

// Malformed or hostile HTTP framing is refused before any upstream call and
// never leaves the connection out of step with the client: a client (or
// a proxy in front) relies on each answer ending where its request did.
// net/http does most of this; the test pins it, with Detour's own part (a
// body over max_body_bytes refused by its declared size without asking for
// it, a broken chunk answered 400 in the envelope) — review 39e.
func TestReview39eMalformedFramingIsRefusedUpstreamUnseen(t *testing.T) {
	host, up := r39eGateway(t, "max_body_bytes: 1024\n")
	head := r39eChatHead(host)
	sized := fmt.Sprintf("Content-Length: %d\r\n\r\n", len(r39eChat)) + r39eChat
	for _, tc := range []struct {
		name, raw string
		status    int // of the first answer
		envelope  bool
		more      int // answers after the first on the same connection
	}{
		{"two Content-Lengths that differ", head + fmt.Sprintf("Content-Length: %d\r\nContent-Length: 3\r\n\r\n", len(r39eChat)) + r39eChat, 400, false, 0},
		{"a transfer coding other than chunked", head + "Transfer-Encoding: gzip, chunked\r\n\r\n" + "0\r\n\r\n", 501, false, 0},
		{"Expect: 100-continue for a body past max_body_bytes", head + "Expect: 100-continue\r\nContent-Length: 5000\r\n\r\n", 413, true, 0},
		{"a chunk-size line of 100 KB", head + "Transfer-Encoding: chunked\r\n\r\n" + strings.Repeat("0", 100<<10) + "1\r\n{\r\n0\r\n\r\n", 400, true, 0},
		{"a chunk extension of 100 KB", head + "Transfer-Encoding: chunked\r\n\r\n" + "1;x=" + strings.Repeat("y", 100<<10) + "\r\n{\r\n0\r\n\r\n", 400, true, 0},
		{"HTTP/2 with prior knowledge", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 400, false, 0},
		// The oversized body, sent whole anyway, is skipped, and the
		// request after it is read where it starts.
		{"a request pipelined after a body past max_body_bytes", head + "Content-Length: 5000\r\n\r\n" + strings.Repeat("x", 5000) + head + sized, 413, true, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := r39eAnswers(t, host, tc.raw)
			if len(got) == 0 {
				t.Fatal("no answer")
			}
			if got[0].StatusCode != tc.status {
				t.Fatalf("status %d, want %d", got[0].StatusCode, tc.status)
			}
			if tc.envelope {
				var env struct {
					Error struct{ Message, Code string }
				}
				b, _ := io.ReadAll(got[0].Body)
				if err := json.Unmarshal(b, &env); err != nil || env.Error.Message == "" {
					t.Errorf("not the OpenAI error envelope: %q", b)
				}
			}
			if len(got)-1 != tc.more {
				t.Errorf("%d answers after the first on the connection, want %d", len(got)-1, tc.more)
			}
			for _, r := range got[1:] {
				if r.StatusCode != http.StatusOK {
					t.Errorf("the pipelined request: %d, want 200", r.StatusCode)
				}
			}
		})
	}
	if n := up.Calls(); n != 1 {
		t.Errorf("the upstream had %d calls, want 1 (the pipelined request only)", n)
	}
}

// A client that opens a stream and never reads it holds its upstream only
// until one write to it has waited 30 s (the client write timeout): then
// the upstream call is cancelled, the decision record says the client left
// (outcome canceled, the attempt not counted against the endpoint), and
// every other client was served at full speed meanwhile — review 39e.
func TestReview39eStreamNeverReadReleasesItsUpstream(t *testing.T) {
	if testing.Short() {
		t.Skip("slow: waits out the 30 s client write timeout")
	}
	big := strings.Repeat("y", 64<<10)
	parts := make([]string, 600) // 37.5 MiB: more than the sockets on both sides hold
	for i := range parts {
		parts[i] = big
	}
	evs := upstreamtest.ChatStream("m", parts...)
	up := upstreamtest.New(func(_ int, r upstreamtest.Request) upstreamtest.Step {
		if r.Streamed() {
			return upstreamtest.Step{Events: evs, EventDelay: 5 * time.Millisecond}
		}
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("m", "hello")}
	})
	t.Cleanup(up.Close)
	url, _, recs := r37aGateway(t, teamAConfig("openai"), up, nil)
	host := strings.TrimPrefix(url, "http://")
	c, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	body := `{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	fmt.Fprintf(c, "%sContent-Length: %d\r\n\r\n%s", r39eChatHead(host), len(body), body)
	resp, err := http.ReadResponse(bufio.NewReaderSize(c, 1024), nil)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("the stream did not start: %v", err)
	}
	// The client reads nothing more. Others keep asking, once a second.
	start := time.Now()
	for up.Gone() == 0 {
		if time.Since(start) > 50*time.Second {
			t.Fatal("the upstream of a stream nobody reads was still held after 50 s")
		}
		t0 := time.Now()
		if status, body := r37aPost(t, url, "/v1/chat/completions", r39eChat, "Authorization", "Bearer key-team-a"); status != http.StatusOK {
			t.Fatalf("another request while the stream was stalled: %d %s", status, body)
		}
		if d := time.Since(t0); d > 2*time.Second {
			t.Errorf("another request took %v while the stream was stalled", d)
		}
		time.Sleep(time.Second)
	}
	if held := time.Since(start); held < 20*time.Second {
		t.Errorf("the upstream was released after %v, before the write timeout", held)
	}
	d := recs.ByID(t, resp.Header.Get("X-Detour-Decision"))
	if d.Outcome != "canceled" || len(d.Attempts) != 1 || d.Attempts[0].Counted || d.Attempts[0].Evidence != "client write failed" {
		t.Errorf("record: outcome %q, attempts %+v; want canceled, one uncounted attempt whose evidence is the failed write", d.Outcome, d.Attempts)
	}
}

// An operator reading the decision record (and a key's limits and budget)
// relies on one request being charged to one key, the one the front
// admitted: on /v1/messages x-api-key is read before Authorization, and of
// two Authorization headers the first; no client credential reaches the
// upstream — review 39e.
func TestReview39eOneKeyIsChargedWhenTwoAreSent(t *testing.T) {
	up := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Body: `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}`}
	})
	t.Cleanup(up.Close)
	url, _, recs := r37aGateway(t, `
client_keys:
  - {name: team-a, key: key-team-a}
  - {name: team-b, key: key-team-b}
providers:
  - {name: p, dialect: anthropic, base_url: "{up}", api_key: sk-test-provider-key}
targets:
  - {name: m, model: m, providers: [p]}
`, up, nil)
	host := strings.TrimPrefix(url, "http://")
	msg := `{"model":"m","max_tokens":8,"messages":[{"role":"user","content":"hi"}]}`
	post := func(path, body, keys string) *http.Response {
		raw := "POST " + path + " HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\nAnthropic-Version: 2023-06-01\r\n" +
			keys + fmt.Sprintf("Content-Length: %d\r\nConnection: close\r\n\r\n", len(body)) + body
		got := r39eAnswers(t, host, raw)
		if len(got) != 1 {
			t.Fatalf("%d answers", len(got))
		}
		return got[0]
	}
	charged := func(resp *http.Response) string {
		if resp.StatusCode != http.StatusOK {
			b, _ := io.ReadAll(resp.Body)
			t.Fatalf("%d %s", resp.StatusCode, b)
		}
		return recs.ByID(t, resp.Header.Get("X-Detour-Decision")).Client
	}
	if c := charged(post("/v1/messages", msg, "X-Api-Key: key-team-b\r\nAuthorization: Bearer key-team-a\r\n")); c != "team-b" {
		t.Errorf("x-api-key team-b with Bearer team-a: charged to %q, want team-b", c)
	}
	if resp := post("/v1/messages", msg, "X-Api-Key: wrong\r\nAuthorization: Bearer key-team-a\r\n"); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong x-api-key beside a right Bearer: %d, want 401", resp.StatusCode)
	}
	if c := charged(post("/v1/chat/completions", r39eChat, "Authorization: Bearer key-team-b\r\nAuthorization: Bearer key-team-a\r\n")); c != "team-b" {
		t.Errorf("two Authorization headers, team-b first: charged to %q, want team-b", c)
	}
	for _, r := range up.Requests() {
		for name, vs := range r.Header {
			for _, v := range vs {
				if strings.Contains(v, "key-team-") {
					t.Errorf("the upstream got the client's key in %s", name)
				}
			}
		}
	}
}

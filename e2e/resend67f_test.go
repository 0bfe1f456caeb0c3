package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/detour-llm/detour/internal/decision"
)

// Build 67f: a served answer is not sent again. anthropic-sdk-go v2.17.0
// (internal/requestconfig: shouldRetryDroppedBody) sends a non-streamed POST
// again when the connection drops while the answer's body is read, even
// after a 200, unless the answer says x-should-retry: false. Through Detour
// that resend is a second upstream call, billed again and charged to the key
// again: one answer paid twice. Every whole 2xx Detour writes now says
// x-should-retry: false (internal/server/finish.go, finishWhole).
//
// The real SDK calls a real Detour through a loopback proxy that cuts the
// first connection after the response's headers and part of its body; the
// upstream is a loopback httptest server that counts its calls. Before the
// change: two upstream calls, two records, the key charged twice, and the
// SDK returned the second answer as if nothing had happened. openai-go
// v3.102.0 reads a 2xx body after its retry loop, so it never resends one;
// its case is here as the control, one call before and after.
func TestBuild67fSDKDoesNotResendAServedAnswer(t *testing.T) {
	for _, sdk := range []string{"anthropic-sdk-go", "openai-go"} {
		t.Run(sdk, func(t *testing.T) {
			t.Parallel() // the SDK's backoff before a resend, on the old code
			var calls atomic.Int32
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "application/json")
				text := strings.Repeat("Pride and Prejudice. ", 100) // a body long enough to cut in the middle
				if strings.HasSuffix(r.URL.Path, "/messages") {
					io.WriteString(w, `{"id":"msg_01","type":"message","role":"assistant","model":"claude-opus-4-5",`+
						`"content":[{"type":"text","text":"`+text+`"}],"stop_reason":"end_turn","stop_sequence":null,`+
						`"usage":{"input_tokens":1000,"output_tokens":200}}`)
					return
				}
				io.WriteString(w, `{"id":"c","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,`+
					`"message":{"role":"assistant","content":"`+text+`"},"finish_reason":"stop"}],`+
					`"usage":{"prompt_tokens":1000,"completion_tokens":200,"total_tokens":1200}}`)
			}))
			t.Cleanup(up.Close)
			g := start(t, strings.ReplaceAll(`
client_keys:
  - {name: team-a, key: key-team-a, budget: {usd_per_day: 100}}
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{up}", api_key: `+secret+`}
  - {name: openai, dialect: openai, base_url: "{up}", api_key: `+secret+`}
targets:
  - {name: claude, model: claude-opus-4-5, providers: [anthropic], price: {input: 5, output: 25}}
  - {name: gpt, model: gpt-4o, providers: [openai], price: {input: 5, output: 25}}
routes:
  - {name: deep, targets: [claude]}
  - {name: chat, targets: [gpt]}
`, "{up}", up.URL), nil)
			px := cutProxy67f(t, strings.TrimPrefix(g.URL, "http://"), 40)

			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var (
				err    error
				header http.Header
			)
			if sdk == "anthropic-sdk-go" {
				c := anthropic.NewClient(aoption.WithBaseURL("http://"+px+"/"), aoption.WithAPIKey("key-team-a"),
					aoption.WithMiddleware(func(r *http.Request, next aoption.MiddlewareNext) (*http.Response, error) {
						resp, err := next(r)
						if resp != nil && header == nil {
							header = resp.Header.Clone()
						}
						return resp, err
					}))
				_, err = c.Messages.New(ctx, anthropic.MessageNewParams{Model: "deep", MaxTokens: 300,
					Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("summarise the book"))}})
			} else {
				c := openai.NewClient(option.WithBaseURL("http://"+px+"/v1/"), option.WithAPIKey("key-team-a"),
					option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
						resp, err := next(r)
						if resp != nil && header == nil {
							header = resp.Header.Clone()
						}
						return resp, err
					}))
				_, err = c.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{Model: "chat",
					Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("summarise the book")}})
			}
			t.Logf("%s: upstream calls %d; first answer's X-Should-Retry %q; the SDK returned %v", sdk, calls.Load(), header.Get("X-Should-Retry"), err)

			if n := calls.Load(); n != 1 {
				t.Errorf("the upstream was called %d times for one request whose answer was served (and cut on its way to the client); want 1: the SDK sent it again and it was paid again", n)
			}
			// The SDK reports the cut connection, not an API error and not an answer.
			var aerr *anthropic.Error
			var oerr *openai.Error
			if err == nil || errors.As(err, &aerr) || errors.As(err, &oerr) {
				t.Errorf("the SDK returned %v; want the connection's error (the body was cut)", err)
			}
			if v := header.Get("X-Should-Retry"); v != "false" {
				t.Errorf("the 200's X-Should-Retry %q, want false", v)
			}

			// The decision log: one record, one billable attempt, the answer's usage.
			d := g.recs.wait(t, 1)
			billable := 0
			for _, a := range d.Attempts {
				if a.Billable {
					billable++
				}
			}
			if d.Outcome != decision.OutcomeOK || billable != 1 || d.Usage == nil || d.Usage.PromptTokens != 1000 || d.Usage.CompletionTokens != 200 {
				b, _ := json.Marshal(d)
				t.Errorf("record: %s; want one billable success of 1000+200 tokens", b)
			}
			// The key is charged once: $0.01 (1000 in at $5, 200 out at $25 per million).
			if used := usdUsed67f(t, g, "team-a"); !near(used, 0.01) {
				t.Errorf("team-a's usd_per_day used $%.6f, want $0.010000 (one answer)", used)
			}
		})
	}
}

// usdUsed67f is what the console says key name has used of its usd_per_day.
func usdUsed67f(t *testing.T, g *gateway, name string) float64 {
	t.Helper()
	resp, err := http.Get(g.URL + "/ui/api/keys")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var page struct {
		Keys []struct {
			Name   string `json:"name"`
			Limits []struct {
				Limit string  `json:"limit"`
				Used  float64 `json:"used"`
			} `json:"limits"`
		} `json:"keys"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&page); err != nil {
		t.Fatal(err)
	}
	for _, k := range page.Keys {
		for _, l := range k.Limits {
			if k.Name == name && l.Limit == "usd_per_day" {
				return l.Used
			}
		}
	}
	t.Fatalf("no usd_per_day for %s: %+v", name, page)
	return 0
}

// cutProxy67f listens on loopback and forwards each connection to target;
// on the first connection it forwards the first response's headers and
// keep bytes of its body, then closes both ends (a connection cut while
// the body is read). It returns its host:port.
func cutProxy67f(t *testing.T, target string, keep int) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var (
		first atomic.Bool
		wg    sync.WaitGroup
		mu    sync.Mutex
		open  []net.Conn
	)
	track := func(cs ...net.Conn) {
		mu.Lock()
		open = append(open, cs...)
		mu.Unlock()
	}
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range open {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			track(c, u)
			cut := first.CompareAndSwap(false, true)
			wg.Add(2)
			go func() { // client to Detour
				defer wg.Done()
				io.Copy(u, c)
				u.Close()
			}()
			go func() { // Detour to client
				defer wg.Done()
				defer c.Close()
				defer u.Close()
				if !cut {
					io.Copy(c, u)
					return
				}
				var got []byte
				buf := make([]byte, 4096)
				for {
					n, err := u.Read(buf)
					got = append(got, buf[:n]...)
					if i := bytes.Index(got, []byte("\r\n\r\n")); i >= 0 && len(got) >= i+4+keep {
						c.Write(got[:i+4+keep])
						return
					}
					if err != nil {
						c.Write(got)
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

package process

// Review 63p: a hostile client at the protocol level, against a real
// `detour serve`: the fake provider and the configuration its tests share.

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const (
	p63KeyA = "ka-63p-Aq81Zt7x"
	p63KeyB = "kb-63p-Bq81Zt7x"
)

// p63Upstream is an OpenAI-compatible fake: it counts calls, the calls in
// progress (and their peak), keeps every request's headers, and holds each
// answer while hold is set.
type p63Upstream struct {
	URL              string
	calls, cur, peak atomic.Int64
	mu               sync.Mutex
	headers          []http.Header
	hold             atomic.Int64 // ms to hold each answer
	stream           atomic.Bool
}

func p63Fake(t testing.TB) *p63Upstream {
	u := &p63Upstream{}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		u.calls.Add(1)
		n := u.cur.Add(1)
		defer u.cur.Add(-1)
		for {
			p := u.peak.Load()
			if n <= p || u.peak.CompareAndSwap(p, n) {
				break
			}
		}
		u.mu.Lock()
		u.headers = append(u.headers, r.Header.Clone())
		u.mu.Unlock()
		if d := u.hold.Load(); d > 0 {
			select {
			case <-time.After(time.Duration(d) * time.Millisecond):
			case <-r.Context().Done():
				return
			}
		}
		var req struct {
			Stream bool `json:"stream"`
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"c1","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"hello"},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":2,"total_tokens":7}}`)
		_ = req
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	u.URL = "http://" + ln.Addr().String()
	return u
}

func p63Config(up string, extra string) string {
	return render(`
log: {level: debug}
client_keys:
  - {name: alpha, key: `+p63KeyA+`}
  - {name: beta, key: `+p63KeyB+`}
`+extra+`
providers:
  - {name: openai, dialect: openai, base_url: "{up}", api_key: sk-test-63p-provider}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai]}
`, map[string]string{"up": up})
}

func errorsAs(err error, ne *net.Error) bool {
	for e := err; e != nil; {
		if n, ok := e.(net.Error); ok {
			*ne = n
			return true
		}
		u, ok := e.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		e = u.Unwrap()
	}
	return false
}

// clientsOf lists the client of every decision record (the key charged).
func (g *gateway) p63Clients() map[string]int {
	out := map[string]int{}
	for _, d := range g.decisions() {
		out[d.Client]++
	}
	return out
}

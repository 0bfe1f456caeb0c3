package e2e

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 52: b0f329c excuses a committed stream's cut "after its client
// held the relay back" (watchdog.heldBack: 1 s of slow writes in all,
// the last within 2 minutes). The excuse is read whenever st.Next fails —
// also when the error is the idle clock's expiry, a clock that by
// construction times the upstream only (paused while the client is
// written to). So an upstream that goes silent mid-answer, seconds after
// the client was briefly slow and then caught up, is excused: the stall,
// entirely the upstream's, counts against nobody.

// r52Burst is a stream chunk of ~30 KB: a burst of them fills the socket
// buffers between the gateway and a client that stops reading.
var r52Burst = `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"` + strings.Repeat("token ", 5000) + `"},"finish_reason":null}]}` + "\n\n"

var r52Small = `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"more"},"finish_reason":null}]}` + "\n\n"

// r52Upstream bursts ~6 MB (the client stalls on it; the burst itself
// fits in the socket buffers, so the upstream's writes finish at once),
// then sends small chunks every 100 ms for steady, counted from the
// request's start, then does end(w, r). The client stops reading for its
// first 3 s: with steady 8 s, the end comes ~5 s after it caught up.
func r52Upstream(steady time.Duration, end func(w http.ResponseWriter, r *http.Request)) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		for i := 0; i < 200; i++ {
			if _, err := io.WriteString(w, r52Burst); err != nil {
				return
			}
		}
		rc.Flush()
		for time.Since(t0) < steady {
			if _, err := io.WriteString(w, r52Small); err != nil {
				return
			}
			rc.Flush()
			time.Sleep(100 * time.Millisecond)
		}
		end(w, r)
	}))
}

func r52SlowThenRead(t *testing.T, srv *httptest.Server) {
	t.Helper()
	t.Cleanup(srv.Close)
	cfg := `
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `, idle_timeout: 2s}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai]}
routes:
  - {name: deep, targets: [gpt]}
`
	g := start(t, cfg, map[string]*upstreamtest.Server{"openai": {Server: srv}})
	req, _ := http.NewRequest(http.MethodPost, g.URL+"/v1/chat/completions", strings.NewReader(`{"model":"deep","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1024)
	resp.Body.Read(buf)
	time.Sleep(3 * time.Second) // the client is slow for 3 s, then reads at full speed
	caughtUp := time.Now()
	b, _ := io.ReadAll(resp.Body)
	t.Logf("the stream ended %v after the client began reading again", time.Since(caughtUp).Round(100*time.Millisecond))
	resp.Body.Close()
	d := g.recs.wait(t, 1)
	tail := string(b)
	if len(tail) > 300 {
		tail = tail[len(tail)-300:]
	}
	a := d.Attempts[0]
	t.Logf("outcome %s; attempts %q; class %s; evidence %q; counted %v; client tail %q", d.Outcome, steps(d), a.Class, a.Evidence, a.Counted, tail)
	if !a.Counted {
		t.Errorf("the upstream failed the stream seconds after the client had caught up (the relay read it at full speed meanwhile), and the failure counted against nobody: %s (%s)", a.Class, a.Evidence)
	}
}

// The upstream, ~5 s after the client caught up, goes silent mid-answer
// past idle_timeout (2 s): a stall the idle clock, which never runs while
// the client is written to, saw entirely on the upstream's side.
func TestR52IdleStallAfterASlowMomentCountsAgainstTheUpstream(t *testing.T) {
	r52SlowThenRead(t, r52Upstream(8*time.Second, func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 20*time.Second)
		defer cancel()
		<-ctx.Done() // silent: the model hung
	}))
}

// The upstream, ~5 s after the client caught up, crashes mid-answer (the
// connection is reset): the relay had been reading it at full speed, so
// no send_timeout of the upstream's front ("between two successive write
// operations", nginx) can be the client's doing.
func TestR52CrashAfterASlowMomentCountsAgainstTheUpstream(t *testing.T) {
	r52SlowThenRead(t, r52Upstream(8*time.Second, func(w http.ResponseWriter, r *http.Request) {
		panic(http.ErrAbortHandler)
	}))
}

// Review 52: 597cba8 reads a non-integer count as its floor "in every
// dialect", but the doors that translate a chat stream (Responses,
// Messages) read each chunk with chat.ReadStreamChunk, whose usage is
// ints: an OpenAI-compatible upstream that puts usage on its finishing
// chunk with "completion_tokens": 37.25 (easyllm's server,
// philschmid/easyllm#42) has that chunk skipped by the door — its finish
// and its usage with it.
func TestR52FloatCountOnAChatFinishThroughTheTranslatingDoors(t *testing.T) {
	events := []string{
		`data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"the answer"},"finish_reason":null}]}`,
		`data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":9,"completion_tokens":37.25,"total_tokens":46.25}}`,
		`data: [DONE]`,
	}
	whole := append([]string(nil), events...)
	whole[1] = strings.NewReplacer("37.25", "37", "46.25", "46").Replace(whole[1])
	length := append([]string(nil), events...)
	length[1] = strings.Replace(length[1], `"finish_reason":"stop"`, `"finish_reason":"length"`, 1)
	for _, tc := range []struct {
		name, path, body, want string
		events                 []string
	}{
		{"responses", "/v1/responses", `{"model":"deep","stream":true,"input":"hi"}`, `"output_tokens":37`, events},
		{"messages", "/v1/messages", `{"model":"deep","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"hi"}]}`, `"output_tokens":37`, events},
		{"messages, cut at max_tokens", "/v1/messages", `{"model":"deep","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"hi"}]}`, `"stop_reason":"max_tokens"`, length},
		{"responses control (37)", "/v1/responses", `{"model":"deep","stream":true,"input":"hi"}`, `"output_tokens":37`, whole},
		{"messages control (37)", "/v1/messages", `{"model":"deep","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"hi"}]}`, `"output_tokens":37`, whole},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := `
providers:
  - {name: up, dialect: openai, base_url: "{up}", api_key: ` + secret + `}
targets:
  - {name: first, model: m, providers: [up]}
routes:
  - {name: deep, targets: [first]}
`
			fs := fakes(t, map[string]upstreamtest.Script{"up": script(upstreamtest.Step{Events: tc.events})})
			g := start(t, cfg, fs)
			r := g.raw(t, http.MethodPost, tc.path, tc.body)
			d := g.recs.wait(t, 1)
			t.Logf("status %d, outcome %s, attempts %q, usage %+v\n%s", r.Status, d.Outcome, steps(d), d.Attempts[0].Usage, r.Body)
			if !strings.Contains(string(r.Body), tc.want) {
				t.Errorf("the client's stream lacks %s (the upstream's finishing chunk, usage on it, was skipped by the door)", tc.want)
			}
		})
	}
}

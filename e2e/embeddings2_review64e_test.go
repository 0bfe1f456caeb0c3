package e2e

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A resend answered as a stream, and one whose body is cut.
func TestReview64eResendStreamAndCut(t *testing.T) {
	t.Run("stream", func(t *testing.T) {
		fs := fakes(t, map[string]upstreamtest.Script{
			"strict": p64eRefuseThen(p64eVLLM, upstreamtest.Step{Events: []string{p64eFloats, "[DONE]"}}),
			"other":  script(upstreamtest.Step{Body: p64eB64}),
		})
		g := start(t, base64RefusedCfg, fs)
		r := g.raw(t, http.MethodPost, "/v1/embeddings", p64eBody)
		d := g.recs.wait(t, 1)
		n, with := p64eCalls(fs["strict"])
		on, owith := p64eCalls(fs["other"])
		// An event stream is no embeddings answer: a server error, tried
		// once more, then the next target, as after a first attempt.
		if r.Status != 200 || n != 3 || with != 1 || on != 1 || owith != 1 {
			t.Errorf("client %d; strict %d (%d with the member), other %d (%d with); steps %q", r.Status, n, with, on, owith, steps(d))
		}
	})
	t.Run("cut", func(t *testing.T) {
		var calls, member atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			buf := make([]byte, 1<<16)
			k, _ := r.Body.Read(buf)
			if strings.Contains(string(buf[:k]), "encoding_format") {
				member.Add(1)
				w.WriteHeader(400)
				w.Write([]byte(p64eVLLM))
				return
			}
			hj, _ := w.(http.Hijacker)
			c, bw, _ := hj.Hijack()
			fmt.Fprintf(bw, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(p64eFloats), p64eFloats[:40])
			bw.Flush()
			c.Close()
		}))
		defer srv.Close()
		fs := fakes(t, map[string]upstreamtest.Script{"other": script(upstreamtest.Step{Body: p64eB64})})
		cfg := strings.Replace(base64RefusedCfg, `"{strict}"`, `"`+srv.URL+`"`, 1)
		g := start(t, cfg, fs)
		r := g.raw(t, http.MethodPost, "/v1/embeddings", p64eBody)
		d := g.recs.wait(t, 1)
		on, owith := p64eCalls(fs["other"])
		t.Logf("client %d %.200s", r.Status, r.Body)
		t.Logf("steps %q strict %d(%d) other %d(%d) %s", steps(d), calls.Load(), member.Load(), on, owith, p64eDump(t, d.Attempts))
		if owith != on || on == 0 {
			t.Errorf("next target not sent base64")
		}
	})
}

// failsOnceThenRefusesBase64 answers its first call with a 500 (its
// endpoint cools at failure_threshold 1), then refuses base64 as old vLLM
// does and serves floats without it.
func failsOnceThenRefusesBase64() upstreamtest.Script {
	var n atomic.Int32
	then := p64eRefuseThen(p64eVLLM, upstreamtest.Step{Body: p64eFloats})
	return func(i int, r upstreamtest.Request) upstreamtest.Step {
		if n.Add(1) == 1 {
			return upstreamtest.Step{Status: 500, Body: `{"error":{"message":"internal","type":"server_error"}}`}
		}
		return then(i, r)
	}
}

// Probes: a cooling endpoint's probe refused then resent; and the budget
// stopping the resend gives the probe back.
func TestReview64eProbeRefusedThenResent(t *testing.T) {
	strict := failsOnceThenRefusesBase64()
	fs := fakes(t, map[string]upstreamtest.Script{
		"strict": strict,
		"other":  script(upstreamtest.Step{Body: p64eB64}),
	})
	cfg := "health: {failure_threshold: 1, cooldown: 300ms, max_cooldown: 1m}\n" + base64RefusedCfg
	g := start(t, cfg, fs)
	g.raw(t, http.MethodPost, "/v1/embeddings", p64eBody)
	t.Logf("1: %q", steps(g.recs.wait(t, 1)))
	time.Sleep(400 * time.Millisecond)
	r := g.raw(t, http.MethodPost, "/v1/embeddings", p64eBody)
	d := g.recs.wait(t, 2)
	t.Logf("2: %d %q %s", r.Status, steps(d), p64eDump(t, d.Attempts))
	h := g.health(t)
	t.Logf("health: %s", p64eDump(t, h.Endpoints))
	if len(d.Attempts) != 2 || !d.Attempts[0].Probe || !d.Attempts[1].Probe || r.Status != 200 {
		t.Errorf("probe not resent as the probe")
	}
}

func TestReview64eProbeBudgetGivesBack(t *testing.T) {
	strict := failsOnceThenRefusesBase64()
	fs := fakes(t, map[string]upstreamtest.Script{"strict": strict})
	cfg := `
health: {failure_threshold: 1, cooldown: 300ms, max_cooldown: 1m}
providers:
  - {name: strict, dialect: openai, base_url: "{strict}", api_key: ` + secret + `}
targets:
  - {name: bge, model: bge-m3, providers: [strict]}
routes:
  - {name: vectors, targets: [bge], max_attempts: 1}
`
	g := start(t, cfg, fs)
	g.raw(t, http.MethodPost, "/v1/embeddings", p64eBody)
	t.Logf("1: %q", steps(g.recs.wait(t, 1)))
	time.Sleep(400 * time.Millisecond)
	r := g.raw(t, http.MethodPost, "/v1/embeddings", p64eBody)
	d := g.recs.wait(t, 2)
	t.Logf("2: %d %q", r.Status, steps(d))
	r = g.raw(t, http.MethodPost, "/v1/embeddings", `{"model":"vectors","input":["alpha","beta"]}`)
	d = g.recs.wait(t, 3)
	t.Logf("3: %d %q %s", r.Status, steps(d), p64eDump(t, d.Attempts))
	if r.Status != 200 || len(d.Attempts) != 1 || !d.Attempts[0].Probe {
		t.Errorf("the probe slot was not given back: third request %d %s", r.Status, p64eDump(t, d))
	}
}

// Hostile client bodies.
func TestReview64eHostileClient(t *testing.T) {
	// resent: the request is base64 to the adapters, and strict serves it
	// on the resend (other is never asked).
	cases := []struct {
		name, body, refusal string
		resent              bool
	}{
		{"echo", `{"model":"vectors","input":["how base64 encoding works","beta"],"encoding_format":"base64"}`,
			`{"error":{"message":"Invalid input 'how base64 encoding works': contains a forbidden word","type":"invalid_request_error","param":"input","code":null}}`, false},
		{"duplicate key", `{"model":"vectors","input":["alpha","beta"],"encoding_format":"base64","encoding_format":"base64"}`, p64eVLLM, false},
		{"float then base64", `{"model":"vectors","input":["alpha","beta"],"encoding_format":"float","encoding_format":"base64"}`, p64eVLLM, false},
		{"base64 then float", `{"model":"vectors","input":["alpha","beta"],"encoding_format":"base64","encoding_format":"float"}`, p64eVLLM, false},
		{"escaped key", `{"model":"vectors","input":["alpha","beta"],"encoding\u005fformat":"base64"}`, p64eVLLM, true},
		{"escaped value", `{"model":"vectors","input":["alpha","beta"],"encoding_format":"base\u0036\u0034"}`, p64eVLLM, true},
		{"nested member", `{"model":"vectors","input":["alpha","beta"],"extra_body":{"encoding_format":"base64"},"encoding_format":"base64"}`, p64eVLLM, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{
				"strict": func(_ int, r upstreamtest.Request) upstreamtest.Step {
					if strings.Contains(string(r.Body), `encoding_format`) || strings.Contains(string(r.Body), `encoding\u005fformat`) || strings.Contains(string(r.Body), "how base64") {
						return upstreamtest.Step{Status: 400, Body: c.refusal}
					}
					return upstreamtest.Step{Body: p64eFloats}
				},
				"other": script(upstreamtest.Step{Body: p64eB64}),
			})
			g := start(t, base64RefusedCfg, fs)
			r := g.raw(t, http.MethodPost, "/v1/embeddings", c.body)
			if r.Status == 400 && len(fs["strict"].Requests()) == 0 {
				t.Logf("front refused: %s", r.Body)
				return
			}
			d := g.recs.wait(t, 1)
			var bodies []string
			for _, q := range fs["strict"].Requests() {
				bodies = append(bodies, string(q.Body))
			}
			on, _ := p64eCalls(fs["other"])
			t.Logf("client %d %.160s", r.Status, r.Body)
			t.Logf("steps %q other %d; strict got %q", steps(d), on, bodies)
			if len(bodies) > 2 {
				t.Errorf("strict sent %d requests", len(bodies))
			}
			if c.resent && (r.Status != 200 || len(bodies) != 2 || on != 0 || !strings.Contains(string(r.Body), `"AACAPwAAoD8AAMA/"`)) {
				t.Errorf("not served by the resend: client %d %.160s; strict %d requests, other %d", r.Status, r.Body, len(bodies), on)
			}
		})
	}
}

// The too-large message as the client reads it (no other target).
func TestReview64eTooLargeClientMessage(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"object":"list","data":[{"index":0,"embedding":[`)
	for b.Len() < 65<<20 {
		b.WriteString("0.0123456789,")
	}
	b.WriteString(`1]},{"index":1,"embedding":[1]}],"usage":{"prompt_tokens":4,"total_tokens":4}}`)
	fs := fakes(t, map[string]upstreamtest.Script{
		"strict": p64eRefuseThen(p64eVLLM, upstreamtest.Step{Body: b.String()}),
	})
	g := start(t, p64eStrictOnlyCfg, fs)
	r := g.raw(t, http.MethodPost, "/v1/embeddings", p64eBody)
	d := g.recs.wait(t, 1)
	t.Logf("client %d should-retry=%q attempts=%q %s", r.Status, r.Header.Get("X-Should-Retry"), r.Header.Get("X-Detour-Attempts"), r.Body)
	t.Logf("steps %q messages %q | %q", steps(d), d.Attempts[0].Message, d.Attempts[len(d.Attempts)-1].Message)
	if strings.Contains(string(r.Body), "…") || strings.Contains(d.Attempts[len(d.Attempts)-1].Message, "…") {
		t.Errorf("the too-large message has a masked word")
	}
}

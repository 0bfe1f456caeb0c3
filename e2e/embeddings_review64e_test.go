package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 64e: a hostile upstream and client against the embeddings door's
// resend without encoding_format (docs/doors.md, "Servers that refuse
// base64"): billed once, never looped, failover as after a first attempt,
// probes kept, other doors never resent.

const p64eFloats = `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[1,1.25,1.5]},{"object":"embedding","index":1,"embedding":[2,2.25,2.5]}],"model":"bge-m3","usage":{"prompt_tokens":4,"total_tokens":4}}`
const p64eB64 = `{"object":"list","data":[{"object":"embedding","index":0,"embedding":"AACAPwAAoD8AAMA/"},{"object":"embedding","index":1,"embedding":"AAAAQAAAEEAAACBA"}],"model":"text-embedding-3-small","usage":{"prompt_tokens":4,"total_tokens":4}}`
const p64eVLLM = `{"object":"error","message":"base64 encoding is not currently supported","type":"BadRequestError","param":null,"code":400}`
const p64eBody = `{"model":"vectors","input":["alpha","beta"],"encoding_format":"base64"}`

// p64eStrictOnlyCfg is a route of one embeddings target at the refusing
// server "strict", with nowhere else to go.
const p64eStrictOnlyCfg = `
providers:
  - {name: strict, dialect: openai, base_url: "{strict}", api_key: ` + secret + `}
targets:
  - {name: bge, model: bge-m3, providers: [strict]}
routes:
  - {name: vectors, targets: [bge]}
`

func p64eDump(t *testing.T, v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// p64eRefuseThen refuses any request naming encoding_format, and answers
// the others by steps (the last repeats).
func p64eRefuseThen(refusal string, steps ...upstreamtest.Step) upstreamtest.Script {
	k := 0
	return func(_ int, r upstreamtest.Request) upstreamtest.Step {
		if strings.Contains(string(r.Body), `"encoding_format"`) {
			return upstreamtest.Step{Status: 400, Body: refusal}
		}
		k++
		if k > len(steps) {
			return steps[len(steps)-1]
		}
		return steps[k-1]
	}
}

func p64eCalls(s *upstreamtest.Server) (n int, withMember int) {
	for _, r := range s.Requests() {
		n++
		if strings.Contains(string(r.Body), "encoding_format") {
			withMember++
		}
	}
	return
}

// The refusal carries usage (a server that counts what it refused), the
// target is priced, the key is budgeted: one attempt billed, one cost.
func TestReview64eRefusalUsageNotBilled(t *testing.T) {
	ref := `{"object":"error","message":"base64 encoding is not currently supported","type":"BadRequestError","param":null,"code":400,"usage":{"prompt_tokens":999999,"total_tokens":999999}}`
	fs := fakes(t, map[string]upstreamtest.Script{
		"strict": p64eRefuseThen(ref, upstreamtest.Step{Body: p64eFloats}),
		"other":  script(upstreamtest.Step{Status: 500, Body: `{"error":{"message":"not to be called"}}`}),
	})
	cfg := `
client_keys:
  - {name: team, key: key-team, budget: {usd_per_day: 5}, max_concurrent: 1}
providers:
  - {name: strict, dialect: openai, base_url: "{strict}", api_key: ` + secret + `}
  - {name: other, dialect: openai, base_url: "{other}", api_key: ` + secret + `}
targets:
  - {name: bge, model: bge-m3, providers: [strict], price: {input: 1000, output: 0}}
  - {name: small, model: text-embedding-3-small, providers: [other]}
routes:
  - {name: vectors, targets: [bge, small], max_billable_attempts: 1}
`
	g := start(t, cfg, fs)
	r := g.raw(t, http.MethodPost, "/v1/embeddings", p64eBody, "Authorization", "Bearer key-team")
	if r.Status != 200 || !strings.Contains(string(r.Body), `"AACAPwAAoD8AAMA/"`) {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	d := g.recs.wait(t, 1)
	t.Logf("record: %s", p64eDump(t, d))
	if len(d.Attempts) != 2 || d.Attempts[0].Billable || d.Attempts[0].Usage != nil || d.Attempts[0].CostUSD.Known() && float64(*d.Attempts[0].CostUSD) != 0 ||
		!d.Attempts[1].Billable || d.Usage == nil || d.Usage.TotalTokens != 4 || d.CostUSD == nil || float64(*d.CostUSD) > 0.0041 {
		t.Errorf("billed wrong: %s", p64eDump(t, d))
	}
}

// max_attempts 1: the resend is not made. What is the client told?
func TestReview64eMaxAttemptsOne(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"strict": p64eRefuseThen(p64eVLLM, upstreamtest.Step{Body: p64eFloats}),
		"other":  script(upstreamtest.Step{Body: p64eB64}),
	})
	cfg := `
providers:
  - {name: strict, dialect: openai, base_url: "{strict}", api_key: ` + secret + `}
  - {name: other, dialect: openai, base_url: "{other}", api_key: ` + secret + `}
targets:
  - {name: bge, model: bge-m3, providers: [strict]}
  - {name: small, model: text-embedding-3-small, providers: [other]}
routes:
  - {name: vectors, targets: [bge, small], max_attempts: 1}
`
	g := start(t, cfg, fs)
	r := g.raw(t, http.MethodPost, "/v1/embeddings", p64eBody)
	d := g.recs.wait(t, 1)
	n, _ := p64eCalls(fs["strict"])
	// The refusal is passed on (docs/doors.md): the client's SDK gets the
	// upstream's 400, and no other target is asked.
	if n != 1 || r.Status != http.StatusBadRequest || len(d.Attempts) != 1 {
		t.Errorf("max_attempts 1: strict called %d times, client %d %s, %d attempts", n, r.Status, r.Body, len(d.Attempts))
	}
}

// The resend fails as a first attempt would, and the walk goes on as after
// one: a server error is retried once at the same endpoint (without the
// member), a rate limit or a timeout moves on; the next target is sent
// base64.
func TestReview64eResendFailsAsAFirstAttempt(t *testing.T) {
	serverErr := upstreamtest.Step{Status: 500, Body: `{"error":{"message":"internal","type":"server_error"}}`}
	for _, c := range []struct {
		name    string
		then    []upstreamtest.Step
		timeout string // the strict provider's, when set
		calls   int    // strict's calls, the refused one included
	}{
		{"server error", []upstreamtest.Step{serverErr, serverErr}, "", 3},
		{"rate limit", []upstreamtest.Step{{Status: 429, Header: map[string]string{"Retry-After": "30"}, Body: `{"error":{"message":"Rate limit reached","type":"rate_limit_error"}}`}}, "", 2},
		{"timeout", []upstreamtest.Step{{Delay: 2 * time.Second, Body: p64eFloats}}, "timeout: 300ms, ", 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{
				"strict": p64eRefuseThen(p64eVLLM, c.then...),
				"other":  script(upstreamtest.Step{Body: p64eB64}),
			})
			cfg := strings.Replace(base64RefusedCfg, `{name: strict, dialect: openai, `, `{name: strict, dialect: openai, `+c.timeout, 1)
			g := start(t, cfg, fs)
			r := g.raw(t, http.MethodPost, "/v1/embeddings", p64eBody)
			d := g.recs.wait(t, 1)
			n, with := p64eCalls(fs["strict"])
			on, owith := p64eCalls(fs["other"])
			if r.Status != 200 || n != c.calls || with != 1 || on != 1 || owith != 1 {
				t.Errorf("client %d; strict %d calls (%d with the member), want %d (1); other %d (%d with), want 1 (1); steps %q",
					r.Status, n, with, c.calls, on, owith, steps(d))
			}
		})
	}
}

// Two endpoints of one target, both refusing: each is resent once, the
// second is first sent base64.
func TestReview64eTwoEndpointsSameTarget(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"a": p64eRefuseThen(p64eVLLM, upstreamtest.Step{Status: 500, Body: `{"error":{"message":"internal","type":"server_error"}}`}),
		"b": p64eRefuseThen(p64eVLLM, upstreamtest.Step{Body: p64eFloats}),
	})
	cfg := `
providers:
  - {name: a, dialect: openai, base_url: "{a}", api_key: ` + secret + `}
  - {name: b, dialect: openai, base_url: "{b}", api_key: ` + secret + `}
targets:
  - {name: bge, model: bge-m3, providers: [a, b]}
routes:
  - {name: vectors, targets: [bge]}
`
	g := start(t, cfg, fs)
	r := g.raw(t, http.MethodPost, "/v1/embeddings", p64eBody)
	d := g.recs.wait(t, 1)
	an, aw := p64eCalls(fs["a"])
	bn, bw := p64eCalls(fs["b"])
	t.Logf("steps %q", steps(d))
	if r.Status != 200 || !strings.Contains(string(r.Body), `"AACAPwAAoD8AAMA/"`) || an != 3 || aw != 1 || bn != 2 || bw != 1 {
		t.Errorf("client %d %s; a %d (%d with), b %d (%d with)", r.Status, r.Body, an, aw, bn, bw)
	}
}

// Answers to the resend that are not floats.
func TestReview64eOddResendAnswers(t *testing.T) {
	cases := []struct{ name, body string }{
		{"base64 after all", p64eB64},
		{"empty data", `{"object":"list","data":[],"usage":{"prompt_tokens":4,"total_tokens":4}}`},
		{"null vectors", `{"object":"list","data":[{"index":0,"embedding":null},{"index":1,"embedding":null}],"usage":{"prompt_tokens":4,"total_tokens":4}}`},
		{"wrong count", `{"object":"list","data":[{"index":0,"embedding":[1,2]}],"usage":{"prompt_tokens":4,"total_tokens":4}}`},
		{"mixed", `{"object":"list","data":[{"index":0,"embedding":"AACAPwAAoD8AAMA/"},{"index":1,"embedding":[2,2.25,2.5]}],"usage":{"prompt_tokens":4,"total_tokens":4}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{
				"strict": p64eRefuseThen(p64eVLLM, upstreamtest.Step{Body: c.body}),
				"other":  script(upstreamtest.Step{Status: 503, Body: `{"error":{"message":"down","type":"server_error"}}`}),
			})
			g := start(t, base64RefusedCfg, fs)
			r := g.raw(t, http.MethodPost, "/v1/embeddings", p64eBody)
			d := g.recs.wait(t, 1)
			n, with := p64eCalls(fs["strict"])
			on, owith := p64eCalls(fs["other"])
			body := string(r.Body)
			if len(body) > 400 {
				body = body[:400]
			}
			t.Logf("client %d %s", r.Status, body)
			t.Logf("steps %q strict %d(%d) other %d(%d)", steps(d), n, with, on, owith)
			if r.Status == 200 && strings.Contains(string(r.Body), `"embedding":[`) {
				t.Errorf("a client that asked base64 got JSON floats: %s", body)
			}
		})
	}
}

// A chat request (and a Responses one) carrying encoding_format base64,
// answered with a 400 naming base64: never resent.
func TestReview64eOtherDoorsNotResent(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"strict": script(upstreamtest.Step{Status: 400, Body: p64eVLLM}),
		"other":  script(upstreamtest.Step{Status: 400, Body: p64eVLLM}),
	})
	g := start(t, p64eStrictOnlyCfg, fs)
	g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"vectors","messages":[{"role":"user","content":"hi"}],"encoding_format":"base64"}`)
	g.raw(t, http.MethodPost, "/v1/responses", `{"model":"vectors","input":"hi","encoding_format":"base64"}`)
	g.raw(t, http.MethodPost, "/v1/messages", `{"model":"vectors","max_tokens":10,"messages":[{"role":"user","content":"hi"}],"encoding_format":"base64"}`, "anthropic-version", "2023-06-01")
	for i := 1; i <= 3; i++ {
		d := g.recs.wait(t, i)
		t.Logf("%d: %q", i, steps(d))
		if len(d.Attempts) > 1 {
			t.Errorf("a %s request was sent %d times", d.API, len(d.Attempts))
		}
	}
}

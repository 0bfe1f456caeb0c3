package e2e

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 65h: a hostile review of round 65 beyond the classifier (the
// legacy Completions door, a bare 404 on a claimed path, resent_without).

// r65hCompletionsLogprobsAnswer writes, as vLLM's /v1/completions does, a
// whole text_completion for a request asking n choices of tokens tokens
// with logprobs k: each token carries its token, its logprob, its text
// offset and a dict of its k most likely alternatives. It returns the
// bytes written.
func r65hCompletionsLogprobsAnswer(w io.Writer, n, tokens, k int) int64 {
	var total int64
	put := func(s string) {
		m, _ := io.WriteString(w, s)
		total += int64(m)
	}
	var alts []string
	for i := range k {
		alts = append(alts, fmt.Sprintf(`" tok%02d":-%d.0123456`, i, i+1))
	}
	top := "{" + strings.Join(alts, ",") + "}"
	rep := func(s string) string { return strings.TrimSuffix(strings.Repeat(s+",", 64), ",") }
	put(`{"id":"cmpl-r65h","object":"text_completion","created":1733450000,"model":"qwen-coder","choices":[`)
	for c := range n {
		if c > 0 {
			put(",")
		}
		put(fmt.Sprintf(`{"index":%d,"text":"%s","logprobs":{"tokens":[`, c, strings.Repeat(" the", tokens)))
		for _, part := range []string{`" the"`, `-0.0123456`, `4`, top} {
			for i := 0; i < tokens/64; i++ {
				if i > 0 {
					put(",")
				}
				put(rep(part))
			}
			switch part {
			case `" the"`:
				put(`],"token_logprobs":[`)
			case `-0.0123456`:
				put(`],"text_offset":[`)
			case `4`:
				put(`],"top_logprobs":[`)
			}
		}
		put(`]},"finish_reason":"length","stop_reason":null}`)
	}
	put(fmt.Sprintf(`],"usage":{"prompt_tokens":20,"completion_tokens":%d,"total_tokens":%d}}`, n*tokens, n*tokens+20))
	return total
}

// A Completions client asks a healthy vLLM endpoint for 8 choices of up to
// 32,000 tokens with logprobs 20 (vLLM's default max_logprobs): an honest
// answer of ~80 MB, past the 64 MiB Detour holds. The chat door files
// such an answer as overflow (hostile 51: the size is the request's: not
// counted, not asked again, the client's limits charged its output's
// floor). The Completions door read the chat door's test on w.call.Body,
// which a passthrough leaves empty, and a Completions request's logprobs
// is a number, not true: the answer was server_error — counted against the
// endpoint, retried (run and billed again), so two such requests cooled
// the endpoint for every client — and its output was charged nothing.
func TestReview65hCompletionsLogprobsAnswerCoolsAHealthyEndpoint(t *testing.T) {
	var calls atomic.Int32
	var sent atomic.Int64
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		sent.Store(r65hCompletionsLogprobsAnswer(w, 8, 32000, 20))
	}))
	t.Cleanup(up.Close)
	g := start(t, `
client_keys: [client-key-1]
health: {failure_threshold: 3}
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: `+secret+`, completions: true}
targets:
  - {name: a, model: qwen-coder, providers: [p], price: {input: 1, output: 100}}
routes:
  - {name: r, targets: [a]}
`, map[string]*upstreamtest.Server{"p": {Server: up}})
	body := `{"model":"r","prompt":"def fib(n):","n":8,"max_tokens":32000,"logprobs":20}`
	for i := 1; i <= 2; i++ {
		r := g.raw(t, http.MethodPost, "/v1/completions", body, "Authorization", "Bearer client-key-1")
		d := g.recs.wait(t, i)
		for deadline := time.Now().Add(10 * time.Second); sent.Load() == 0 && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond)
		}
		if sent.Load() <= 64<<20 {
			t.Fatalf("the honest answer is only %d bytes", sent.Load())
		}
		var att []string
		for _, a := range d.Attempts {
			out := 0
			if a.Estimate != nil {
				out = a.Estimate.OutputTokens
			}
			att = append(att, fmt.Sprintf("%s counted=%v billable=%v %s estimated_output=%d", a.Class, a.Counted, a.Billable, a.Action, out))
		}
		t.Logf("request %d: %d, attempts %q, body %.160s", i, r.Status, att, r.Body)
		if len(d.Attempts) != 1 || d.Attempts[0].Counted || d.Attempts[0].Class != "overflow" {
			t.Errorf("request %d: the answer's size (what the client asked for) was the endpoint's failure: %q", i, att)
		}
		if a := d.Attempts[0]; a.Estimate == nil || a.Estimate.OutputTokens == 0 {
			t.Errorf("request %d: an answer of ~%d MB of 256,000 tokens charged the client's limits no output", i, sent.Load()>>20)
		}
	}
	if e, _ := g.health(t).Endpoint("a", "p"); e.State != "healthy" || e.Failures != 0 {
		t.Errorf("after two client requests the endpoint is %q with %d failures: a client's request cooled a healthy provider", e.State, e.Failures)
	}
	t.Logf("upstream calls: %d", calls.Load())
}

// resent_without says a refusal was answered by sending the same endpoint
// the request again without the member; the console's Unknowns and last
// failure, and --suggest, leave such an attempt out. A walk whose budget
// was spent by the refusal (max_attempts, which the client may lower with
// X-Detour-Max-Attempts, or the deadline) sends nothing again, and the
// refusal is the client's answer — but the record said resent_without and
// the operator's views hid it.
func TestReview65hResentWithoutOnlyWhenResent(t *testing.T) {
	temperature := `{"error":{"message":"Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}}`
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			if strings.Contains(string(r.Body), `"temperature"`) {
				return upstreamtest.Step{Status: 400, Body: temperature}
			}
			return ok("gpt-5", "Hello.")
		},
	})
	g := start(t, `
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: `+secret+`}
targets:
  - {name: gpt, model: gpt-5, providers: [openai]}
routes:
  - {name: r, targets: [gpt]}
`, fs)
	r := g.raw(t, http.MethodPost, "/v1/messages", `{"model":"r","max_tokens":100,"temperature":0.2,"messages":[{"role":"user","content":"hi"}]}`,
		"x-api-key", "k", "X-Detour-Max-Attempts", "1")
	d := g.recs.wait(t, 1)
	t.Logf("%d %.200s; steps %v", r.Status, r.Body, steps(d))
	if n := len(fs["openai"].Requests()); n != 1 {
		t.Fatalf("%d upstream calls, want 1 (max_attempts 1)", n)
	}
	if a := d.Attempts[len(d.Attempts)-1]; a.ResentWithout != "" || a.Handled() {
		t.Errorf("the refusal the client was answered with says resent_without %q, and is left out of the console's Unknowns and last failure: nothing was sent again", a.ResentWithout)
	}
}

// A bare 404 to a claimed path (completions: true) is read as the path
// missing (unknown: nothing cools, the walk moves on). "Bare" was the
// classifier's status:404 evidence, which is also a 404 whose words it
// does not know: a gone model on a server that words it its own way
// ("Deployment llama-3 has been retired", "unknown engine llama-3") never
// cooled, every request paid its round trip first, and the record said
// "no words … check the provider's completions: true". An answer naming
// the endpoint's model is about the model, not the path.
func TestReview65hGoneModelIn404WordsTheClassifierDoesNotKnowStillCools(t *testing.T) {
	for _, body := range []string{
		`{"error":{"message":"Deployment llama-3 has been retired"}}`,
		`{"error":{"message":"unknown engine llama-3"}}`,
		`{"detail":"No deployment named llama-3"}`,
	} {
		g, _, _ := r65fGateway(t, map[string]upstreamtest.Script{
			"lacks": script(upstreamtest.Step{Status: 404, Body: body}),
			"vllm":  script(upstreamtest.Step{Body: `{"id":"cmpl-1","object":"text_completion","created":1,"model":"qwen-coder","choices":[{"index":0,"text":"ok","finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`}),
		})
		g.raw(t, http.MethodPost, "/v1/completions", `{"model":"local-first","prompt":"x"}`, "Authorization", "Bearer key-all")
		d := g.recs.wait(t, 1)
		if a := d.Attempts[0]; a.Class != "unavailable" || strings.Contains(a.Evidence, "no words") {
			t.Errorf("%s: the gone model's 404 was read %s %q", body, a.Class, a.Evidence)
		}
	}
}

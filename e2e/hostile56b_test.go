package e2e

import (
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// TestProbeHostile56bFlappingAccountPagesOncePerInterval: an account whose
// upstream answers a real quota 429 (openai-insufficient-quota-429) and then
// serves, over and over (an intermittent key or billing check), with
// min_interval 1h and a short account_cooldown. Each recovery rearmed the
// page, so every cycle paged again: a page and a recovery per
// account_cooldown (8 pages and 7 recoveries in 8 s). The page is rearmed
// once an interval now: a page, its recovery, a second page and its
// recovery (which says that further changes are not posted until the
// interval has passed), then nothing.
func TestProbeHostile56bFlappingAccountPagesOncePerInterval(t *testing.T) {
	h := newHook(t)
	quota := corpus(t, "openai-insufficient-quota-429")
	flap := func(n int, _ upstreamtest.Request) upstreamtest.Step {
		if n%2 == 1 {
			return quota
		}
		return ok("model-a", "back")
	}
	fs := fakes(t, map[string]upstreamtest.Script{"p": flap, "q": script(ok("model-b", "backup"))})
	g := start(t, `
alerts: {webhook: "`+h.URL+`", min_interval: 1h}
health: {account_cooldown: 1s}
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: sk-test-p}
  - {name: q, dialect: openai, base_url: "{q}", api_key: sk-test-q}
targets:
  - {name: a, model: model-a, providers: [p]}
  - {name: b, model: model-b, providers: [q]}
routes:
  - {name: r, targets: [a, b]}
`, fs)
	deadline := time.Now().Add(8 * time.Second)
	for time.Now().Before(deadline) {
		g.post(t, "r", "").wantStatus(t, 200)
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	pages, recoveries, last := 0, 0, ""
	for _, p := range h.alerts() {
		if p["provider"] != "p" {
			continue
		}
		switch p["event"] {
		case "page":
			pages++
		case "recovered":
			recoveries++
		}
		last = fmt.Sprint(p["event"])
	}
	t.Logf("in 8s with min_interval 1h: %d pages, %d recoveries for p (upstream calls %d)", pages, recoveries, fs["p"].Calls())
	if fs["p"].Calls() < 6 {
		t.Fatalf("the account flapped %d times: not the case tested", fs["p"].Calls())
	}
	if pages != 2 || recoveries != 2 || last != "recovered" {
		t.Errorf("a flapping account within min_interval (1h): %d pages, %d recoveries, last %q; want two pages and their recoveries", pages, recoveries, last)
	}
}

// TestProbeHostile56bRepetitiveGzipStreamIsNoBomb: a model stuck repeating
// one token until its max_tokens (a known failure of small models), served
// by an OpenAI-compatible server (vLLM's chunk shape:
// vllm/entrypoints/openai/protocol.py ChatCompletionStreamResponse) behind
// a proxy that gzips the stream in blocks rather than per event. 50,000
// identical chunks are ~9.5 MB decoded and ~10 KB coded: the ratio bound of
// dispatch/coding.go (256× past 8 MiB) cuts this legitimate answer as a
// "compression bomb" (server_error) after the client has been streamed
// 8 MiB of it.
func TestProbeHostile56bRepetitiveGzipStreamIsNoBomb(t *testing.T) {
	const n = 50_000
	chunk := `{"id":"chatcmpl-9f2c1e7a5b3d4c6e","object":"chat.completion.chunk","created":1733500000,"model":"model-a","choices":[{"index":0,"delta":{"content":" the"},"logprobs":null,"finish_reason":null}]}`
	coded := 0
	g := start(t, twoTargets, h55Fakes(t, func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Content-Encoding", "gzip")
		cw := &countingWriter{w: w}
		zw := gzip.NewWriter(cw)
		io.WriteString(zw, `data: {"id":"chatcmpl-9f2c1e7a5b3d4c6e","object":"chat.completion.chunk","created":1733500000,"model":"model-a","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`+"\n\n")
		for range n {
			io.WriteString(zw, "data: "+chunk+"\n\n")
		}
		io.WriteString(zw, `data: {"id":"chatcmpl-9f2c1e7a5b3d4c6e","object":"chat.completion.chunk","created":1733500000,"model":"model-a","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"length"}]}`+"\n\ndata: [DONE]\n\n")
		zw.Close()
		coded = cw.n
	}))
	body := `{"model":"r","stream":true,"max_tokens":50000,"messages":[{"role":"user","content":"hi"}]}`
	resp, err := http.Post(g.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	all, _ := io.ReadAll(resp.Body)
	got := strings.Count(string(all), `" the"`)
	d := g.recs.wait(t, 1)
	var steps []string
	for _, a := range d.Attempts {
		steps = append(steps, a.Target+"/"+a.Provider+" "+a.Class+" "+a.Evidence)
	}
	tail := string(all)
	if len(tail) > 400 {
		tail = tail[len(tail)-400:]
	}
	t.Logf("upstream sent %d KB gzip; client status %d, %d of %d tokens, finish length %v, [DONE] %v; attempts %v; tail %q",
		coded>>10, resp.StatusCode, got, n, strings.Contains(string(all), `"finish_reason":"length"`), strings.Contains(string(all), "[DONE]"), steps, tail)
	if got != n || !strings.Contains(string(all), `"finish_reason":"length"`) {
		t.Errorf("a legitimate repetitive stream was cut as a compression bomb: %d of %d tokens reached the client; attempts %v", got, n, steps)
	}
}

type countingWriter struct {
	w io.Writer
	n int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += n
	return n, err
}

// TestProbeHostile56bRecoveryFromAnotherModelIsNotBack: one account, two
// models; the first's allowance is spent (a real quota 429, as Gemini's
// per-model daily quota is), the second serves. The account's probe may be
// any model's request: the second model's answer closes the account, and
// the operator was told "provider p is back (quota) ... its requests go to
// it again" while every request of the first model still failed, and the
// page that followed could arrive before it. The recovery now says which
// target answered, and a page never overtakes a recovery being posted: the
// last word is the first model's page.
func TestProbeHostile56bRecoveryFromAnotherModelIsNotBack(t *testing.T) {
	h := newHook(t)
	// Gemini's per-model daily allowance spent (corpus: QuotaFailure
	// "input_token_count per model per day", class quota).
	quota := corpus(t, "gemini-429-free-tier-input-tokens-per-model-per-day-quotavalue-6000000")
	const flash = `{"candidates":[{"content":{"parts":[{"text":"fine"}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":1,"totalTokenCount":4},"modelVersion":"gemini-2.5-flash"}`
	fs := fakes(t, map[string]upstreamtest.Script{"q": script(ok("model-b", "backup"))})
	fs["p"] = upstreamtest.New(func(n int, r upstreamtest.Request) upstreamtest.Step {
		if strings.Contains(r.Path, "gemini-2.5-pro") {
			return quota
		}
		return upstreamtest.Step{Body: flash}
	})
	t.Cleanup(fs["p"].Close)
	g := start(t, `
alerts: {webhook: "`+h.URL+`", min_interval: 1h}
health: {account_cooldown: 1s}
providers:
  - {name: p, dialect: gemini, base_url: "{p}", api_key: test-gemini-key-0123456789}
  - {name: q, dialect: openai, base_url: "{q}", api_key: sk-test-q}
targets:
  - {name: a, model: gemini-2.5-pro, providers: [p]}
  - {name: c, model: gemini-2.5-flash, providers: [p]}
  - {name: b, model: model-b, providers: [q]}
routes:
  - {name: r, targets: [a, b]}
  - {name: r2, targets: [c, b]}
`, fs)
	g.post(t, "r", "").wantStatus(t, 200)  // pro: its allowance spent, paged; b serves
	time.Sleep(1200 * time.Millisecond)    // the account's cooldown is over
	g.post(t, "r2", "").wantStatus(t, 200) // flash: the account's probe
	g.post(t, "r", "").wantStatus(t, 200)  // pro: still spent
	time.Sleep(500 * time.Millisecond)
	var seq []string
	for _, p := range h.alerts() {
		if p["provider"] == "p" {
			seq = append(seq, fmt.Sprint(p["event"], " ", p["class"], " ", p["target"]))
		}
	}
	t.Logf("webhook posts for p: %v; pro calls+flash calls %d", seq, fs["p"].Calls())
	if want := []string{"page quota <nil>", "recovered quota c", "page quota <nil>"}; strings.Join(seq, "|") != strings.Join(want, "|") {
		t.Errorf("posted %v (in the order received), want %v: the recovery names the target that answered (c, gemini-2.5-flash), and the spent model's page comes after it", seq, want)
	}
}

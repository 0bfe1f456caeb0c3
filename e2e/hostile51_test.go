package e2e

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Round 51, hostile helper h51: a client (holding a valid key) against the
// trust promises of docs/security.md: "nothing a client sends can cool a
// provider … or be billed twice for one call".

// h51LogprobsAnswer writes, as an OpenAI-compatible server does, a whole
// chat.completion for a request asking n choices with logprobs and
// top_logprobs: 20 (OpenAI's maximum): every generated token carries its
// own ChatCompletionTokenLogprob and 20 alternatives (the shape of the
// OpenAI OpenAPI spec, ChatCompletionTokenLogprob: token, logprob, bytes,
// top_logprobs[{token, logprob, bytes}]). The answer is ~1.3 KB a token,
// so n=4 choices of 14,000 tokens each (inside gpt-4o's 16,384 output
// tokens) is ~73 MB: an honest answer to what the client asked, past the
// 64 MiB Detour holds. It returns the bytes written.
func h51LogprobsAnswer(w io.Writer, n, tokens int) int64 {
	var total int64
	put := func(s string) {
		k, _ := io.WriteString(w, s)
		total += int64(k)
	}
	alt := `{"token":" the","logprob":-0.0123,"bytes":[32,116,104,101]}`
	top := strings.TrimSuffix(strings.Repeat(alt+",", 20), ",")
	entry := `{"token":" the","logprob":-0.0123,"bytes":[32,116,104,101],"top_logprobs":[` + top + `]}`
	// 64 entries at a time keep the writes few.
	chunk := strings.TrimSuffix(strings.Repeat(entry+",", 64), ",")
	put(`{"id":"chatcmpl-h51","object":"chat.completion","created":1733450000,"model":"gpt-4o-2024-08-06","choices":[`)
	for c := 0; c < n; c++ {
		if c > 0 {
			put(",")
		}
		put(fmt.Sprintf(`{"index":%d,"message":{"role":"assistant","content":"%s","refusal":null},"logprobs":{"content":[`, c, strings.Repeat(" the", tokens)))
		for i := 0; i < tokens/64; i++ {
			if i > 0 {
				put(",")
			}
			put(chunk)
		}
		put(`],"refusal":null},"finish_reason":"length"}`)
	}
	put(fmt.Sprintf(`],"usage":{"prompt_tokens":20,"completion_tokens":%d,"total_tokens":%d},"system_fingerprint":"fp_h51"}`, n*tokens, n*tokens+20))
	return total
}

const h51LogprobsCfg = `
client_keys: [client-key-1]
health: {failure_threshold: 3}
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: ` + secret + `}
targets:
  - {name: a, model: gpt-4o, providers: [p]}
routes:
  - {name: r, targets: [a]}
`

// TestH51LogprobsAnswerCoolsAHealthyEndpoint: a client asks a healthy
// OpenAI endpoint for n=4 choices with logprobs and top_logprobs 20, a
// request OpenAI's API documents and answers in full (n up to 128,
// top_logprobs up to 20). The honest answer is ~73 MB, past the 64 MiB
// Detour holds. Detour files it as server_error ("a broken upstream's",
// commit 1ca0da7): counted against the endpoint, retried once (the
// provider runs and bills the same 56,000 output tokens again), and after
// two such requests (four counted failures, failure_threshold 3) the
// endpoint cools for every client. The size is the request's, exactly as
// for embeddings (vectorsTooLarge): it must be overflow, not counted, not
// retried, and the endpoint must stay healthy.
func TestH51LogprobsAnswerCoolsAHealthyEndpoint(t *testing.T) {
	var calls atomic.Int32
	var sent atomic.Int64
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		sent.Store(h51LogprobsAnswer(w, 4, 14000))
	}))
	t.Cleanup(up.Close)
	g := start(t, h51LogprobsCfg, map[string]*upstreamtest.Server{"p": {Server: up}})
	body := `{"model":"r","messages":[{"role":"user","content":"Write a long story."}],"n":4,"max_tokens":16000,"logprobs":true,"top_logprobs":20}`
	for i := 1; i <= 2; i++ {
		r := g.raw(t, http.MethodPost, "/v1/chat/completions", body, "Authorization", "Bearer client-key-1")
		d := g.recs.wait(t, i)
		var att []string
		for _, a := range d.Attempts {
			att = append(att, fmt.Sprintf("%s counted=%v billable=%v %s", a.Class, a.Counted, a.Billable, a.Action))
		}
		t.Logf("request %d: status %d, x-should-retry %q, upstream answer %d bytes, attempts %q, body %.200s",
			i, r.Status, r.Header.Get("X-Should-Retry"), sent.Load(), att, r.Body)
		for deadline := time.Now().Add(10 * time.Second); sent.Load() == 0 && time.Now().Before(deadline); {
			time.Sleep(10 * time.Millisecond) // the upstream's handler counts what it wrote once the gateway hung up
		}
		if sent.Load() <= 64<<20 {
			t.Fatalf("the honest answer is only %d bytes", sent.Load())
		}
		for _, a := range d.Attempts {
			if a.Counted {
				t.Errorf("request %d: the answer's size (what the client asked for) counted against the endpoint: %q", i, att)
				break
			}
		}
		if len(d.Attempts) > 1 {
			t.Errorf("request %d: the same ~73 MB answer was asked for and billed %d times for one call: %q", i, len(d.Attempts), att)
		}
	}
	h := g.health(t)
	if e, _ := h.Endpoint("a", "p"); e.State != "healthy" || e.Failures != 0 {
		t.Errorf("after two client requests the endpoint is %q with %d failures (last_class %q): a client's request cooled a healthy provider for everyone",
			e.State, e.Failures, e.LastClass)
	}
	t.Logf("upstream calls: %d", calls.Load())
}

const h51EmbedCfg = `
client_keys: [client-key-1]
providers:
  - {name: p1, dialect: openai, base_url: "{p1}", api_key: ` + secret + `}
  - {name: p2, dialect: openai, base_url: "{p2}", api_key: ` + secret + `}
targets:
  - {name: big, model: text-embedding-3-large, providers: [p1, p2]}
routes:
  - {name: vectors, targets: [big]}
`

// h51EmbeddingsServer answers OpenAI's embeddings shape (object list, data
// [{object embedding, index, embedding}], model, usage) with
// text-embedding-3-large's default 3,072 float dimensions for every input,
// as OpenAI does for encoding_format "float".
func h51EmbeddingsServer(t *testing.T, calls *atomic.Int32) *upstreamtest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		var req struct {
			Input []string `json:"input"`
		}
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &req)
		w.Header().Set("Content-Type", "application/json")
		vec := strings.TrimSuffix(strings.Repeat("-0.0180421963,", 3072), ",")
		_, _ = io.WriteString(w, `{"object":"list","data":[`)
		for i := range req.Input {
			if i > 0 {
				_, _ = io.WriteString(w, ",")
			}
			_, _ = io.WriteString(w, fmt.Sprintf(`{"object":"embedding","index":%d,"embedding":[%s]}`, i, vec))
		}
		_, _ = io.WriteString(w, fmt.Sprintf(`],"model":"text-embedding-3-large","usage":{"prompt_tokens":%d,"total_tokens":%d}}`, 4*len(req.Input), 4*len(req.Input)))
	}))
	t.Cleanup(srv.Close)
	return &upstreamtest.Server{Server: srv}
}

// TestH51EmbeddingsOverflowPaidAtEveryEndpoint: round 50 made an
// embeddings answer past 64 MiB "settled: not asked again at that
// endpoint" because "the same endpoint would answer the same, billed
// again" — but overflow keeps NextEndpoint (policy.For), so a target served
// by two accounts (or any route of the same model twice) runs the same
// 2,048 × 3,072 float request at each of them: the same ~82 MB answer, the
// same model, the same size, paid once per endpoint for one call. The size
// is the request's and the gateway's bound is the same everywhere: one
// billable attempt is all the request can ever cost.
func TestH51EmbeddingsOverflowPaidAtEveryEndpoint(t *testing.T) {
	var c1, c2 atomic.Int32
	fs := map[string]*upstreamtest.Server{"p1": h51EmbeddingsServer(t, &c1), "p2": h51EmbeddingsServer(t, &c2)}
	g := start(t, h51EmbedCfg, fs)
	in := make([]string, 2048)
	for i := range in {
		in[i] = fmt.Sprintf("chunk %d", i)
	}
	b, _ := json.Marshal(map[string]any{"model": "vectors", "input": in, "encoding_format": "float"})
	r := g.raw(t, http.MethodPost, "/v1/embeddings", string(b), "Authorization", "Bearer client-key-1")
	d := g.recs.wait(t, 1)
	billable := 0
	var att []string
	for _, a := range d.Attempts {
		if a.Billable {
			billable++
		}
		att = append(att, fmt.Sprintf("%s/%s %s billable=%v %s", a.Target, a.Provider, a.Class, a.Billable, a.Action))
	}
	t.Logf("status %d, x-should-retry %q, calls p1=%d p2=%d, attempts %q", r.Status, r.Header.Get("X-Should-Retry"), c1.Load(), c2.Load(), att)
	if billable > 1 || c1.Load()+c2.Load() > 1 {
		t.Errorf("one embeddings call whose answer is too large for the gateway anywhere was run and billed %d times (upstream calls %d): %q",
			billable, c1.Load()+c2.Load(), att)
	}
}

// TestH51RestartForgetsSpendOfARequestThatCrossedMidnight: the live limits
// count a request's spend when it ends (limit.Spend: windows(k.Name,
// l.now())), but the budget restore of round 50 (app.spentSince) files a
// record under its "time", when the request began. A request that began
// before midnight UTC (or before the 1st of the month) and ended after it
// was charged to today's (this month's) budget while the process ran, and
// after any restart it is charged to yesterday's (last month's): today's
// budget is given back. A client with a long stream (a thinking model's
// answer, a 10-minute agent turn) started at 23:55 spends its whole day's
// budget on it, and after the next deploy is served again.
func TestH51RestartForgetsSpendOfARequestThatCrossedMidnight(t *testing.T) {
	log := filepath.Join(t.TempDir(), "decisions.jsonl")
	now := time.Now().UTC()
	midnight := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	began := midnight.Add(-time.Minute)
	ended := now.Add(-time.Second) // after midnight: the live limits charged today
	ms := float64(ended.Sub(began).Milliseconds())
	rec := fmt.Sprintf(`{"id":"x1","time":"%s","route":"claude","client":"coder","stream":true,"outcome":"ok","status":200,"ms":%.0f,`+
		`"attempts":[{"target":"claude","provider":"anthropic","billable":true,"cost_usd":1.1854675,"ms":%.0f}]}`+"\n",
		began.Format(time.RFC3339Nano), ms, ms)
	if err := os.WriteFile(log, []byte(rec), 0o600); err != nil {
		t.Fatal(err)
	}
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(claudeAnswer()), "relay": script()})
	g := start(t, "decisions: {path: "+log+"}\n"+cacheCfg, fs)
	r := g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"claude","messages":[{"role":"user","content":"hi"}]}`,
		"Authorization", "Bearer key-coder")
	if r.Status != http.StatusTooManyRequests {
		t.Errorf("a key that spent $1.19 of its $1 day today (a request begun at %s, ended at %s, charged today while the process ran) "+
			"is served again after a restart: %d, upstream calls %d", began.Format(time.RFC3339), ended.Format(time.RFC3339), r.Status, fs["anthropic"].Calls())
	}
}

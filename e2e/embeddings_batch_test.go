package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"

	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Gemini's batchEmbedContents takes at most 100 texts per call; an OpenAI
// embeddings request may carry 2048 (LangChain sends up to 1000, the AI
// SDK up to 2048). Detour sends a larger request to a gemini target as
// several calls within one attempt and joins the vectors in input order
// (docs/doors.md, "Embeddings"). A failed batch fails the attempt with its
// own answer; the batches before it ran and were billed.

const batchCfg = `
client_keys:
  - {name: open, key: key-open}
  - {name: tiny, key: key-tiny, budget: {usd_per_day: 0.000000001}}
providers:
  - {name: gemini, dialect: gemini, base_url: "{gemini}", api_key: ` + secret + `}
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
targets:
  - {name: gem, model: gemini-embedding-001, providers: [gemini], dimensions: 3, price: {input: 0.15, output: 0}}
  - {name: small, model: text-embedding-3-small, providers: [openai], dimensions: 3}
routes:
  - {name: gem-first, targets: [gem, small]}
  - {name: gem-strict, targets: [gem, small], max_billable_attempts: 1}
`

// geminiEmbedder is a Gemini batchEmbedContents fake: the text "t<i>" gets
// the vector [i, 1, 2]. A call with more than 100 texts gets Gemini's own
// 400. fail, when it returns a step for the n-th call, answers it instead.
// It records how many texts each call carried.
type geminiEmbedder struct {
	mu    sync.Mutex
	sizes []int
	fail  func(n int) *upstreamtest.Step
	delay time.Duration
}

func (g *geminiEmbedder) script(n int, r upstreamtest.Request) upstreamtest.Step {
	var req struct {
		Requests []struct {
			Content struct {
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"content"`
			OutputDimensionality int `json:"outputDimensionality"`
		} `json:"requests"`
	}
	_ = json.Unmarshal(r.Body, &req)
	g.mu.Lock()
	g.sizes = append(g.sizes, len(req.Requests))
	fail := g.fail
	g.mu.Unlock()
	if fail != nil {
		if st := fail(n); st != nil {
			return *st
		}
	}
	if len(req.Requests) > 100 {
		return upstreamtest.Step{Status: 400, Body: `{"error":{"code":400,"message":"* BatchEmbedContentsRequest.requests: at most 100 requests can be in one batch\n","status":"INVALID_ARGUMENT"}}`}
	}
	embs := make([]string, len(req.Requests))
	for i, one := range req.Requests {
		if one.OutputDimensionality != 3 || len(one.Content.Parts) != 1 {
			return upstreamtest.Step{Status: 400, Body: `{"error":{"code":400,"message":"bad test request","status":"INVALID_ARGUMENT"}}`}
		}
		embs[i] = `{"values":[` + strings.TrimPrefix(one.Content.Parts[0].Text, "t") + `,1,2]}`
	}
	return upstreamtest.Step{Body: `{"embeddings":[` + strings.Join(embs, ",") + `]}`, Delay: g.delay}
}

func (g *geminiEmbedder) batchSizes() []int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]int(nil), g.sizes...)
}

// texts are n inputs "t0" … "t<n-1>".
func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "t" + strconv.Itoa(i)
	}
	return out
}

func embedTexts(model string, n int) openai.EmbeddingNewParams {
	return openai.EmbeddingNewParams{Model: model, Input: openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: texts(n)}}
}

func startBatches(t *testing.T, cfg string, gem *geminiEmbedder, openaiSteps ...upstreamtest.Step) (*gateway, map[string]*upstreamtest.Server) {
	t.Helper()
	up := openaiEcho
	if len(openaiSteps) > 0 {
		up = script(openaiSteps...)
	}
	fs := fakes(t, map[string]upstreamtest.Script{"gemini": gem.script, "openai": up})
	return start(t, cfg, fs), fs
}

// openaiEcho answers an OpenAI embeddings request with one vector per
// input text: an answer short of them is refused (review 63c).
func openaiEcho(_ int, r upstreamtest.Request) upstreamtest.Step {
	var in struct {
		Input []string `json:"input"`
	}
	json.Unmarshal(r.Body, &in)
	l := provider.EmbeddingList{Object: "list", Model: "text-embedding-3-small", Usage: provider.EmbeddingUsage{PromptTokens: 4, TotalTokens: 4}}
	for i := range in.Input {
		l.Data = append(l.Data, provider.EmbeddingData{Object: "embedding", Index: i, Embedding: json.RawMessage(`[0.1,0.2,0.3]`)})
	}
	b, _ := json.Marshal(l)
	return upstreamtest.Step{Body: string(b)}
}

// attemptJSON is the decision record's attempt i as JSON.
func attemptJSON(t *testing.T, d *decision.Decision, i int) string {
	t.Helper()
	if i >= len(d.Attempts) {
		t.Fatalf("no attempt %d: %+v", i, d.Attempts)
	}
	b, _ := json.Marshal(d.Attempts[i])
	return string(b)
}

func TestEmbeddingsGeminiOver100InBatches(t *testing.T) {
	gem := &geminiEmbedder{}
	g, fs := startBatches(t, batchCfg, gem)
	res, err := sdkAs(g, "key-open").Embeddings.New(context.Background(), embedTexts("gem", 250))
	if err != nil {
		t.Fatalf("250 inputs through a gemini target: %v (batches sent %v)", err, gem.batchSizes())
	}
	if got := fmt.Sprint(gem.batchSizes()); got != "[100 100 50]" {
		t.Errorf("batches sent: %s, want [100 100 50]", got)
	}
	if len(res.Data) != 250 {
		t.Fatalf("got %d embeddings, want 250", len(res.Data))
	}
	for i, e := range res.Data {
		// The fake's vector of input i is [i, 1, 2], which reaches the
		// client scaled to unit length: its first two values' ratio is i.
		if int(e.Index) != i || len(e.Embedding) != 3 || math.Round(e.Embedding[0]/e.Embedding[1]) != float64(i) {
			t.Fatalf("embedding %d: index %d vector %v: not the vector of input %d", i, e.Index, e.Embedding, i)
		}
	}
	if res.Model != "gemini-embedding-001" || res.Usage.PromptTokens != 0 {
		t.Errorf("model %q usage %+v", res.Model, res.Usage)
	}
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "gem/gemini ok done")
	if a := attemptJSON(t, d, 0); !strings.Contains(a, `"batches":{"of":3,"answered":3}`) || !strings.Contains(a, `"billable":true`) {
		t.Errorf("attempt: %s", a)
	}
	if !d.CostUnknown || d.Usage != nil {
		t.Errorf("request cost_unknown %v usage %+v: Gemini counts no tokens", d.CostUnknown, d.Usage)
	}
	if fs["openai"].Calls() != 0 {
		t.Errorf("openai called %d times", fs["openai"].Calls())
	}
	// 100 inputs or fewer stay one call, and the record says nothing of batches.
	if _, err := sdkAs(g, "key-open").Embeddings.New(context.Background(), embedTexts("gem", 100)); err != nil {
		t.Fatal(err)
	}
	if got := gem.batchSizes(); len(got) != 4 || got[3] != 100 {
		t.Errorf("batches sent: %v, want one more of 100", got)
	}
	if a := attemptJSON(t, g.recs.wait(t, 2), 0); strings.Contains(a, "batches") {
		t.Errorf("a request in one call records batches: %s", a)
	}
}

// rateLimited is Gemini's per-minute 429 (rate_limited, no wait named: no
// retry on the same endpoint).
var rateLimited = upstreamtest.Step{Status: 429, Body: `{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}`}

func failCall(k int, st upstreamtest.Step) func(int) *upstreamtest.Step {
	return func(n int) *upstreamtest.Step {
		if n == k {
			return &st
		}
		return nil
	}
}

// A failed second batch fails the attempt with that batch's answer and
// class; the first batch ran, so the attempt is billable (its cost unknown:
// Gemini counts no tokens). The route moves on, and the next target embeds
// every input: no answer mixes two models' vectors.
func TestEmbeddingsGeminiBatchFailureFailsOver(t *testing.T) {
	gem := &geminiEmbedder{fail: failCall(2, rateLimited)}
	g, fs := startBatches(t, batchCfg, gem)
	res, err := sdkAs(g, "key-open").Embeddings.New(context.Background(), embedTexts("gem-first", 250))
	if err != nil {
		t.Fatal(err)
	}
	if res.Model != "text-embedding-3-small" {
		t.Errorf("answer from %q, want the openai target's alone", res.Model)
	}
	if got := fmt.Sprint(gem.batchSizes()); got != "[100 100]" {
		t.Errorf("batches sent: %s, want [100 100] (none after the failed one)", got)
	}
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "gem/gemini rate_limited next_target", "small/openai ok done")
	a := attemptJSON(t, d, 0)
	for _, want := range []string{`"status":429`, `"billable":true`, `"cost_unknown":true`, `"batches":{"of":3,"answered":1}`, `"evidence":"gemini:status=RESOURCE_EXHAUSTED"`} {
		if !strings.Contains(a, want) {
			t.Errorf("attempt lacks %s: %s", want, a)
		}
	}
	if !d.CostUnknown {
		t.Error("request cost_unknown false: a billable attempt's cost is unknown")
	}
	if n := fs["openai"].Calls(); n != 1 {
		t.Errorf("openai calls %d", n)
	}
}

// max_billable_attempts: 1 never pays two vendors for one call: once a
// batch has run at the gemini target, a later batch's failure ends the
// request with that failure. A failure of the first batch ran nothing, so
// the route still moves on.
func TestEmbeddingsGeminiBatchFailureIsBillable(t *testing.T) {
	gem := &geminiEmbedder{fail: failCall(2, rateLimited)}
	g, fs := startBatches(t, batchCfg, gem)
	_, err := sdkAs(g, "key-open").Embeddings.New(context.Background(), embedTexts("gem-strict", 250))
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 {
		t.Fatalf("after a failed second batch under max_billable_attempts 1: %v, want the batch's 429", err)
	}
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "gem/gemini rate_limited stop")
	wantSkip(t, d, "small/openai", "budget spent: max_billable_attempts 1")
	if fs["openai"].Calls() != 0 {
		t.Error("the second vendor was paid too")
	}

	// A fresh gateway (the first cooled the gemini endpoint): its first call fails.
	gem = &geminiEmbedder{fail: failCall(1, rateLimited)}
	g, _ = startBatches(t, batchCfg, gem)
	if _, err := sdkAs(g, "key-open").Embeddings.New(context.Background(), embedTexts("gem-strict", 250)); err != nil {
		t.Fatalf("a failed first batch ran nothing: %v", err)
	}
	d = g.recs.wait(t, 1)
	wantSteps(t, d, "gem/gemini rate_limited next_target", "small/openai ok done")
	if a := attemptJSON(t, d, 0); !strings.Contains(a, `"billable":false`) || !strings.Contains(a, `"batches":{"of":3,"answered":0}`) {
		t.Errorf("attempt: %s", a)
	}
}

// The batches that ran count against a client's budget even when a later
// one fails: their input, estimated (Gemini counts no tokens), is spent.
func TestEmbeddingsGeminiFailedBatchesStillSpend(t *testing.T) {
	gem := &geminiEmbedder{fail: failCall(2, rateLimited)}
	cfg := strings.Replace(batchCfg, "{name: gem-first, targets: [gem, small]}", "{name: gem-only, targets: [gem]}", 1)
	g, _ := startBatches(t, cfg, gem)
	_, err := sdkAs(g, "key-tiny").Embeddings.New(context.Background(), embedTexts("gem-only", 250))
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 {
		t.Fatalf("first request: %v, want the batch's 429", err)
	}
	g.recs.wait(t, 1)
	r := g.raw(t, "POST", "/v1/embeddings", `{"model":"gem-only","input":"t1"}`, "Authorization", "Bearer key-tiny")
	if r.Status != 429 || !strings.Contains(string(r.Body), "client_budget_exceeded") {
		t.Errorf("after a batch ran on a tiny budget: %d %s, want 429 client_budget_exceeded", r.Status, r.Body)
	}
}

// Each batch is one upstream call with the provider's own timeout; the
// route's deadline covers the whole attempt, every batch together.
func TestEmbeddingsGeminiBatchTimeouts(t *testing.T) {
	cfg := strings.Replace(batchCfg, `api_key: `+secret+`}`, `api_key: `+secret+`, timeout: 1s}`, 1)
	cfg = strings.Replace(cfg, "max_billable_attempts: 1}", "deadline: 1500ms}", 1)
	gem := &geminiEmbedder{delay: 600 * time.Millisecond}
	g, fs := startBatches(t, cfg, gem)
	// Three calls of 600ms: 1.8s in all, each within the 1s timeout.
	if _, err := sdkAs(g, "key-open").Embeddings.New(context.Background(), embedTexts("gem-first", 250)); err != nil {
		t.Fatalf("three batches each within the provider's timeout: %v", err)
	}
	wantSteps(t, g.recs.wait(t, 1), "gem/gemini ok done")

	// The same under a 1.5s deadline: it passes during the third call.
	_, err := sdkAs(g, "key-open").Embeddings.New(context.Background(), embedTexts("gem-strict", 250))
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 504 {
		t.Fatalf("batches past the route's deadline: %v, want 504", err)
	}
	d := g.recs.wait(t, 2)
	wantSteps(t, d, "gem/gemini timeout stop")
	a := attemptJSON(t, d, 0)
	for _, want := range []string{`"evidence":"timeout:deadline"`, `"counted":false`, `"billable":true`, `"batches":{"of":3,"answered":2}`} {
		if !strings.Contains(a, want) {
			t.Errorf("attempt lacks %s: %s", want, a)
		}
	}
	if fs["openai"].Calls() != 0 {
		t.Errorf("openai called after the deadline")
	}
}

// Every call is translated before the first is sent: an input Gemini
// cannot take (an empty text) in the second batch sends nothing to Gemini,
// and the client is told its own index of it.
func TestEmbeddingsGeminiBatchesTranslatedFirst(t *testing.T) {
	gem := &geminiEmbedder{}
	g, fs := startBatches(t, batchCfg, gem)
	p := embedTexts("gem-first", 250)
	p.Input.OfArrayOfStrings[150] = ""
	if _, err := sdkAs(g, "key-open").Embeddings.New(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "gem/gemini unknown next_target", "small/openai ok done")
	if n := fs["gemini"].Calls(); n != 0 {
		t.Errorf("gemini got %d calls for a request it cannot take", n)
	}
	if a := attemptJSON(t, d, 0); !strings.Contains(a, `"evidence":"translate"`) || !strings.Contains(a, `"billable":false`) {
		t.Errorf("attempt: %s", a)
	}
	p.Model = "gem"
	_, err := sdkAs(g, "key-open").Embeddings.New(context.Background(), p)
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || !strings.Contains(apiErr.Message, "input 150 is empty") {
		t.Errorf("the gemini target alone: %v, want a 400 naming input 150", err)
	}
	if n := fs["gemini"].Calls(); n != 0 {
		t.Errorf("gemini got %d calls", n)
	}
}

// A call that fails with a class the same endpoint is tried again for (a
// server error, retried once) is where the retry starts: the calls
// answered before it are not sent, nor billed, twice. The vectors are
// the same model's, from the same endpoint.
func TestEmbeddingsGeminiRetryResumes(t *testing.T) {
	overloaded := upstreamtest.Step{Status: 503, Body: `{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`}
	gem := &geminiEmbedder{fail: failCall(2, overloaded)}
	g, fs := startBatches(t, batchCfg, gem)
	res, err := sdkAs(g, "key-open").Embeddings.New(context.Background(), embedTexts("gem-first", 250))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(gem.batchSizes()); got != "[100 100 100 50]" {
		t.Errorf("calls sent: %s, want [100 100 100 50] (the retry starts at the failed batch)", got)
	}
	if len(res.Data) != 250 {
		t.Fatalf("got %d embeddings", len(res.Data))
	}
	for i, e := range res.Data {
		if int(e.Index) != i || math.Round(e.Embedding[0]/e.Embedding[1]) != float64(i) { // [i, 1, 2] at unit length
			t.Fatalf("embedding %d: index %d vector %v", i, e.Index, e.Embedding)
		}
	}
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "gem/gemini server_error retry", "gem/gemini ok done")
	if a := attemptJSON(t, d, 0); !strings.Contains(a, `"batches":{"of":3,"answered":1}`) || !strings.Contains(a, `"billable":true`) {
		t.Errorf("first attempt: %s", a)
	}
	if a := attemptJSON(t, d, 1); !strings.Contains(a, `"batches":{"of":3,"reused":1,"answered":2}`) {
		t.Errorf("retry: %s", a)
	}
	if fs["openai"].Calls() != 0 {
		t.Error("openai called")
	}
}

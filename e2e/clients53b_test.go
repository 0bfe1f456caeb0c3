package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"

	"strings"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Probe 53b: a client developer of embeddings through /v1/embeddings. Each
// test failed before round 53.

const p53bCfg = `
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
  - {name: gemini, dialect: gemini, base_url: "{gemini}", api_key: ` + secret + `}
targets:
  - {name: small, model: text-embedding-3-small, providers: [openai]}
  - {name: gem, model: gemini-embedding-001, providers: [gemini]}
routes:
  - {name: vec-gpt, targets: [small]}
  - {name: vec-both, targets: [small, gem]}
`

// p53bOpenAI answers one vector per input as OpenAI does, whatever the
// input's shape (a flat token array is one input).
func p53bOpenAI(_ int, r upstreamtest.Request) upstreamtest.Step {
	var req struct {
		Input json.RawMessage `json:"input"`
	}
	_ = json.Unmarshal(r.Body, &req)
	n := 1
	var list []json.RawMessage
	if json.Unmarshal(req.Input, &list) == nil && len(list) > 0 && (list[0][0] == '"' || list[0][0] == '[') {
		n = len(list)
	}
	data := make([]string, n)
	for i := range data {
		data[i] = `{"object":"embedding","index":` + itoa(i) + `,"embedding":[0.6,0.8,0]}`
	}
	return upstreamtest.Step{Body: `{"object":"list","data":[` + strings.Join(data, ",") + `],"model":"text-embedding-3-small","usage":{"prompt_tokens":3000,"total_tokens":3000}}`}
}

// TestC53bFlatTokenArrayOfOneLongText: the OpenAI cookbook's
// "Embedding texts that are longer than the model's maximum context
// length" (openai/openai-cookbook examples/Embedding_long_inputs.ipynb,
// cells 2/7/9: get_embedding(truncate_text_tokens(long_text)), input a
// flat list of up to 8191 tiktoken ids) and openai-go's
// EmbeddingNewParamsInputUnion.OfArrayOfTokens send ONE text as one flat
// token array. A text of 3000 tokens is one input, within OpenAI's 8192
// tokens per input; Detour counts each token as an input and refuses it.
func TestC53bFlatTokenArrayOfOneLongText(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"openai": p53bOpenAI, "gemini": script()})
	g := start(t, p53bCfg, fs)
	toks := make([]int64, 3000)
	for i := range toks {
		toks[i] = int64(1000 + i%5000)
	}
	e, err := sdk(g).Embeddings.New(context.Background(), openai.EmbeddingNewParams{Model: "vec-gpt", Input: openai.EmbeddingNewParamsInputUnion{OfArrayOfTokens: toks}})
	if err != nil {
		t.Fatalf("one text of 3000 tokens as a token array: %v (upstream calls %d)", err, fs["openai"].Calls())
	}
	if len(e.Data) != 1 {
		t.Errorf("want one vector: %+v", e)
	}
}

// TestC53bEmbeddingsUsageOfTotalTokensOnlyIsInput: Voyage AI's
// embeddings API is OpenAI-shaped (POST {base}/v1/embeddings, "input",
// "model", an answer {"object":"list","data":[{"object":"embedding",
// "embedding",...,"index"}],"model","usage":{"total_tokens":N}}), and its
// own client reads only usage.total_tokens (voyage-ai/voyageai-python
// voyageai/object/embeddings.py: self.total_tokens +=
// response.usage.total_tokens). An embeddings answer has no output: every
// token it counts is input. Detour counts the tokens beyond prompt_tokens
// as output (dispatch/usage.go account), so at an embeddings price
// (input 0.06, output 0) the request costs $0 and a budget never moves.
func TestC53bEmbeddingsUsageOfTotalTokensOnlyIsInput(t *testing.T) {
	cfg := `
client_keys:
  - {name: team, key: key-team, budget: {usd_per_day: 1}}
providers:
  - {name: voyage, dialect: openai, base_url: "{voyage}", api_key: ` + secret + `}
targets:
  - {name: v3, model: voyage-3.5, providers: [voyage], price: {input: 0.06, output: 0}}
routes:
  - {name: vectors, targets: [v3]}
`
	fs := fakes(t, map[string]upstreamtest.Script{"voyage": script(upstreamtest.Step{Body: `{"object":"list","data":[{"object":"embedding","embedding":[0.6,0.8],"index":0}],"model":"voyage-3.5","usage":{"total_tokens":1000000}}`})})
	g := start(t, cfg, fs)
	r := g.raw(t, "POST", "/v1/embeddings", `{"model":"vectors","input":["a long document"],"encoding_format":"float"}`, "Authorization", "Bearer key-team")
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	d := g.recs.wait(t, 1)
	b, _ := json.Marshal(d.Attempts)
	if d.CostUSD == nil || !d.CostUSD.Known() || len(d.Attempts) != 1 || d.Attempts[0].Usage == nil || d.Attempts[0].Usage.PromptTokens != 1000000 {
		t.Fatalf("1,000,000 embedded tokens at $0.06/M should cost $0.06 as input; attempts %s", b)
	}
	if got := float64(*d.CostUSD); got < 0.059 {
		t.Errorf("cost %v, want $0.06 (1M input tokens at $0.06/M); attempts %s", got, b)
	}
}

// TestC53bNodeSDKFlatTokenArray: the same as
// TestC53bFlatTokenArrayOfOneLongText with the openai Node SDK
// (embeddings.create takes input: number[], "a single text as an array of
// tokens"; it asks for base64 and decodes).
func TestC53bNodeSDKFlatTokenArray(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"openai": p53bOpenAI, "gemini": script()})
	g := start(t, p53bCfg, fs)
	out := p53bNode(t, g.URL, `import OpenAI from "openai";
const client = new OpenAI({ baseURL: process.env.DETOUR_URL + "/v1", apiKey: "k", maxRetries: 0 });
const input = Array.from({ length: 3000 }, (_, i) => 1000 + (i % 5000));
try {
  const r = await client.embeddings.create({ model: "vec-gpt", input });
  console.log(JSON.stringify({ ok: true, n: r.data.length, dims: r.data[0].embedding.length }));
} catch (e) {
  console.log(JSON.stringify({ ok: false, status: e.status, message: e.message }));
}
`)
	if !strings.Contains(out, `"ok":true`) {
		t.Errorf("openai Node SDK, one text of 3000 tokens: %s", out)
	}
}

// TestC53bAISDKEmbedThroughAVoyageTarget: the Vercel AI SDK reads an
// embeddings answer with a schema that requires usage.prompt_tokens when
// usage is present (@ai-sdk/openai dist/index.js
// openaiTextEmbeddingResponseSchema: usage: z.object({ prompt_tokens:
// z.number() }).nullish(); the same in @ai-sdk/openai-compatible). An
// OpenAI-shaped upstream whose usage is {"total_tokens": N} (Voyage AI;
// see TestC53bEmbeddingsUsageOfTotalTokensOnlyIsInput) passes
// through Detour untouched, and embed() throws a type-validation error:
// the door does not answer OpenAI's usage shape although it read the count.
func TestC53bAISDKEmbedThroughAVoyageTarget(t *testing.T) {
	cfg := `
providers:
  - {name: voyage, dialect: openai, base_url: "{voyage}", api_key: ` + secret + `}
targets:
  - {name: v3, model: voyage-3.5, providers: [voyage]}
routes:
  - {name: vectors, targets: [v3]}
`
	fs := fakes(t, map[string]upstreamtest.Script{"voyage": script(upstreamtest.Step{Body: `{"object":"list","data":[{"object":"embedding","embedding":[0.6,0.8],"index":0}],"model":"voyage-3.5","usage":{"total_tokens":5}}`})})
	g := start(t, cfg, fs)
	out := p53bNode(t, g.URL, `import { embed } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
const openai = createOpenAI({ baseURL: process.env.DETOUR_URL + "/v1", apiKey: "k" });
try {
  const r = await embed({ model: openai.embedding("vectors"), value: "sunny day at the beach", maxRetries: 0 });
  console.log(JSON.stringify({ ok: true, embedding: r.embedding, usage: r.usage }));
} catch (e) {
  console.log(JSON.stringify({ ok: false, name: e.name, message: String(e.message).slice(0, 300) }));
}
`)
	if !strings.Contains(out, `"ok":true`) {
		t.Errorf("AI SDK embed through a Voyage-shaped target: %s", out)
	}
}

// TestC53bTokenArrayInputEstimate: when an OpenAI-compatible
// upstream reports no usage, a client key's limits count the input
// estimated from "the bytes of its JSON strings at 4 bytes a token"
// (docs/config.md, client_keys). Token-array input (LangChain Python's
// OpenAIEmbeddings default, check_embedding_ctx_length) holds no strings:
// 16,000 tokens sent are estimated as 10 (the model name's and
// encoding_format's bytes), although a token array counts its tokens
// exactly. Low severity: it needs an upstream that takes token arrays and
// reports no usage.
func TestC53bTokenArrayInputEstimate(t *testing.T) {
	cfg := `
client_keys:
  - {name: team, key: key-team, budget: {usd_per_day: 1}}
providers:
  - {name: up, dialect: openai, base_url: "{up}", api_key: ` + secret + `}
targets:
  - {name: m, model: bge-m3, providers: [up], price: {input: 0.1, output: 0}}
routes:
  - {name: vectors, targets: [m]}
`
	fs := fakes(t, map[string]upstreamtest.Script{"up": script(upstreamtest.Step{Body: `{"object":"list","model":"bge-m3","data":[{"index":0,"object":"embedding","embedding":[0.6,0.8]},{"index":1,"object":"embedding","embedding":[0.6,0.8]}]}`})})
	g := start(t, cfg, fs)
	toks := make([]string, 8000)
	for i := range toks {
		toks[i] = "9906"
	}
	r := g.raw(t, "POST", "/v1/embeddings", `{"model":"vectors","input":[[`+strings.Join(toks, ",")+`],[`+strings.Join(toks, ",")+`]],"encoding_format":"base64"}`, "Authorization", "Bearer key-team")
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	d := g.recs.wait(t, 1)
	b, _ := json.Marshal(d.Attempts)
	if len(d.Attempts) != 1 || d.Attempts[0].Estimate == nil || d.Attempts[0].Estimate.InputTokens < 16000 {
		t.Errorf("16,000 tokens sent as token arrays, no usage answered: want an input estimate of 16,000; attempts %s", b)
	}
}

// p53bNode runs js (an ES module) with the installed npm clients
// ($DETOUR_CLIENTS_DIR/node_modules) and DETOUR_URL set; it returns stdout.
func p53bNode(t *testing.T, url, js string) string {
	t.Helper()
	dir := os.Getenv("DETOUR_CLIENTS_DIR")
	if dir == "" {
		dir = filepath.Join(os.Getenv("HOME"), ".cache", "detour", "npm-clients")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "openai")); err != nil {
		t.Skipf("no npm clients in %s", dir)
	}
	work := t.TempDir()
	if err := os.Symlink(filepath.Join(dir, "node_modules"), filepath.Join(work, "node_modules")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(work, "p.mjs"), []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", filepath.Join(work, "p.mjs"))
	cmd.Env = append(os.Environ(), "DETOUR_URL="+url)
	cmd.Dir = work
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	return string(out)
}

package e2e

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Round 50, helper c50f: the less-probed doors as real clients use them:
// /v1/embeddings (the AI SDK's embedMany, openai-python's default base64 to
// an OpenAI-compatible server), /v1/models (openai-go and anthropic-sdk-go
// list and retrieve), and /v1/messages/count_tokens as Claude Code calls it
// on a route without Claude.

const c50fCfg = `
client_keys: [client-key-1]
providers:
  - {name: gemini, dialect: gemini, base_url: "{gemini}", api_key: ` + secret + `}
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
targets:
  - {name: gem3072, model: gemini-embedding-001, providers: [gemini]}
  - {name: tei, model: bge-small-en-v1.5, providers: [openai]}
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
routes:
  - {name: gem-vectors, targets: [gem3072]}
  - {name: tei-vectors, targets: [tei]}
  - {name: openai/gpt-4o, targets: [gpt]}
  - {name: via-gpt, targets: [gpt]}
  - {name: gem-then-tei, targets: [gem3072, tei]}
`

// c50fGemini3072 is a Gemini batchEmbedContents fake answering every text
// with gemini-embedding-001's default 3072-dimension vector, already of
// unit length (Gemini normalizes its 3072 output: ai.google.dev/gemini-api/
// docs/embeddings), written compactly with float32 precision: every value
// 1/sqrt(3072). Compact is the smallest Gemini's answer can be.
func c50fGemini3072(n int, r upstreamtest.Request) upstreamtest.Step {
	var req struct {
		Requests []json.RawMessage `json:"requests"`
	}
	_ = json.Unmarshal(r.Body, &req)
	if len(req.Requests) > 100 {
		return upstreamtest.Step{Status: 400, Body: `{"error":{"code":400,"message":"* BatchEmbedContentsRequest.requests: at most 100 requests can be in one batch\n","status":"INVALID_ARGUMENT"}}`}
	}
	vals := strings.TrimSuffix(strings.Repeat("0.018042196,", 3072), ",")
	one := `{"values":[` + vals + `]}`
	embs := make([]string, len(req.Requests))
	for i := range embs {
		embs[i] = one
	}
	return upstreamtest.Step{Body: `{"embeddings":[` + strings.Join(embs, ",") + `]}`}
}

// The AI SDK's embedMany with @ai-sdk/openai (or openai-compatible) pointed
// at Detour: maxEmbeddingsPerCall = 2048 and encoding_format 'float'
// (vercel/ai packages/openai/src/embedding/openai-embedding-model.ts), so a
// 2048-chunk call is one request; it reads response.data.map(e =>
// e.embedding), in order. To gemini-embedding-001 at its default 3072
// dimensions Detour makes 21 calls; the client needs 2048 vectors.
func TestC50fAISDKEmbedMany2048Gemini3072(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"gemini": c50fGemini3072, "openai": script(ok("x", "x"))})
	g := start(t, c50fCfg, fs)
	in := make([]string, 2048)
	for i := range in {
		in[i] = "chunk " + string(rune('a'+i%26))
	}
	b, _ := json.Marshal(map[string]any{"model": "gem-vectors", "input": in, "encoding_format": "float"})
	r := g.raw(t, http.MethodPost, "/v1/embeddings", string(b), "Authorization", "Bearer client-key-1")
	// ~82 MB of JSON floats is past the 64 MiB the gateway holds: one pass
	// of batch calls, paid once, then a 413 the client does not retry,
	// naming the remedy; the endpoint does not cool (a client's request
	// size is no evidence about it).
	d := g.recs.wait(t, 1)
	if r.Status != http.StatusRequestEntityTooLarge || r.Header.Get("X-Should-Retry") != "false" || len(fs["gemini"].Requests()) > 21 ||
		len(d.Attempts) != 1 || d.Attempts[0].Counted || !strings.Contains(string(r.Body), "base64") {
		t.Errorf("status %d (x-should-retry %q) after %d Gemini calls; attempts %d, first %s: %.400s", r.Status,
			r.Header.Get("X-Should-Retry"), len(fs["gemini"].Requests()), len(d.Attempts), attemptJSON(t, d, 0), r.Body)
	}
}

// openai-python's embeddings.create sends encoding_format "base64" when the
// caller names none (and decodes it), so LangChain's OpenAIEmbeddings,
// LlamaIndex's OpenAIEmbedding and Chroma's OpenAIEmbeddingFunction all ask
// for base64. An OpenAI-compatible server that answers floats anyway (the
// TEI/Ollama shape) must still give base64 little-endian float32s, in
// input order, with usage kept.
func TestC50fOpenAIPythonBase64FromCompatFloats(t *testing.T) {
	ans := `{"object":"list","data":[{"object":"embedding","embedding":[0.5,-0.25,0.125],"index":0},{"object":"embedding","embedding":[1,0,-1],"index":1}],"model":"BAAI/bge-small-en-v1.5","usage":{"prompt_tokens":7,"total_tokens":7}}`
	fs := fakes(t, map[string]upstreamtest.Script{"gemini": c50fGemini3072, "openai": script(upstreamtest.Step{Body: ans})})
	g := start(t, c50fCfg, fs)
	r := g.raw(t, http.MethodPost, "/v1/embeddings", `{"input":["hello world","second doc"],"model":"tei-vectors","encoding_format":"base64","user":"u-1"}`, "Authorization", "Bearer client-key-1")
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	var out struct {
		Data []struct {
			Index     int    `json:"index"`
			Embedding string `json:"embedding"`
		} `json:"data"`
		Usage struct {
			PromptTokens int `json:"prompt_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(r.Body, &out); err != nil || len(out.Data) != 2 {
		t.Fatalf("%v: %s", err, r.Body)
	}
	want := [][]float32{{0.5, -0.25, 0.125}, {1, 0, -1}}
	for i, d := range out.Data {
		raw, err := base64.StdEncoding.DecodeString(d.Embedding)
		if err != nil || len(raw) != 12 || d.Index != i {
			t.Fatalf("vector %d: %v %q", i, err, d.Embedding)
		}
		for k := range 3 {
			if v := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*k:])); v != want[i][k] {
				t.Errorf("vector %d value %d: %v", i, k, v)
			}
		}
	}
	if out.Usage.PromptTokens != 7 {
		t.Errorf("usage lost: %s", r.Body)
	}
	up := string(fs["openai"].Requests()[0].Body)
	if !strings.Contains(up, `"user":"u-1"`) || !strings.Contains(up, `"model":"bge-small-en-v1.5"`) {
		t.Errorf("upstream body %s", up)
	}
}

// openai-go's Models.List (auto-paging) and Models.Get, as LiteLLM's and
// Continue's model checks read them, including a route named like a
// LiteLLM model ("openai/gpt-4o": openai-go puts it in the path as is).
func TestC50fModelsListAndRetrieveOpenAI(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"gemini": c50fGemini3072, "openai": script(ok("x", "x"))})
	g := start(t, c50fCfg, fs)
	c := openai.NewClient(option.WithBaseURL(g.URL+"/v1/"), option.WithAPIKey("client-key-1"), option.WithMaxRetries(0))
	ids := map[string]bool{}
	it := c.Models.ListAutoPaging(context.Background())
	for it.Next() {
		ids[it.Current().ID] = true
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"gem-vectors", "openai/gpt-4o", "via-gpt"} {
		if !ids[want] {
			t.Errorf("list lacks %s: %v", want, ids)
		}
	}
	for _, id := range []string{"openai/gpt-4o", "via-gpt"} {
		m, err := c.Models.Get(context.Background(), id)
		if err != nil || m.ID != id || m.Object != "model" {
			t.Errorf("retrieve %s: %v %+v", id, err, m)
		}
	}
	_, err := c.Models.Get(context.Background(), "no-such-model")
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 404 {
		t.Errorf("unknown model: %v", err)
	}
}

// anthropic-sdk-go's Models.ListAutoPaging (after_id/has_more) and
// Models.Get, as Claude Code's model picker and the SDKs call them.
func TestC50fModelsListAndRetrieveAnthropic(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"gemini": c50fGemini3072, "openai": script(ok("x", "x"))})
	g := start(t, c50fCfg, fs)
	c := anthropicSDK(g, nil)
	n := 0
	it := c.Models.ListAutoPaging(context.Background(), anthropic.ModelListParams{Limit: anthropic.Int(2)})
	seen := map[string]bool{}
	for it.Next() {
		if seen[it.Current().ID] {
			t.Fatalf("model %s listed twice (paging loops)", it.Current().ID)
		}
		seen[it.Current().ID] = true
		if n++; n > 50 {
			t.Fatal("paging does not end")
		}
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	if !seen["openai/gpt-4o"] || !seen["via-gpt"] {
		t.Errorf("list: %v", seen)
	}
	m, err := c.Models.Get(context.Background(), "openai/gpt-4o", anthropic.ModelGetParams{})
	if err != nil || m.ID != "openai/gpt-4o" {
		t.Errorf("get: %v %+v", err, m)
	}
}

// Claude Code's count_tokens on a route without Claude, with a tool_result
// holding a screenshot (its Read tool on an image), an MCP tool, tool_choice
// and thinking: an estimate that counts the image.
func TestC50fCountTokensScreenshotToolResult(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"gemini": c50fGemini3072, "openai": script(ok("x", "x"))})
	g := start(t, c50fCfg, fs)
	png := "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
	body := func(withImage bool) string {
		img := ""
		if withImage {
			img = `,{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + png + `"}}`
		}
		return `{"model":"via-gpt","system":[{"type":"text","text":"You are Claude Code.","cache_control":{"type":"ephemeral"}}],` +
			`"thinking":{"type":"enabled","budget_tokens":4000},"tool_choice":{"type":"auto"},` +
			`"tools":[{"name":"mcp__github__get_issue","description":"Get an issue","input_schema":{"type":"object","properties":{"n":{"type":"number"}}}},{"name":"Read","description":"Read a file","input_schema":{"type":"object","properties":{"file_path":{"type":"string"}},"required":["file_path"]}}],` +
			`"messages":[{"role":"user","content":"look at shot.png"},{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01","name":"Read","input":{"file_path":"shot.png"}}]},` +
			`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01","content":[{"type":"text","text":"image"}` + img + `]}]}]}`
	}
	count := func(b string) int {
		r := g.raw(t, http.MethodPost, "/v1/messages/count_tokens?beta=true", b, "x-api-key", "client-key-1", "anthropic-version", "2023-06-01", "anthropic-beta", "token-counting-2024-11-01")
		if r.Status != 200 {
			t.Fatalf("status %d: %s", r.Status, r.Body)
		}
		var out struct {
			InputTokens int `json:"input_tokens"`
		}
		json.Unmarshal(r.Body, &out)
		return out.InputTokens
	}
	plain, shot := count(body(false)), count(body(true))
	if plain <= 0 || shot-plain < 1600 {
		t.Errorf("estimate without image %d, with %d: the screenshot is not counted", plain, shot)
	}
}

// The same embedMany call (2048 values, floats) to OpenAI's own
// text-embedding-3-large (3072 dimensions), which takes 2048 inputs in one
// request ("any array must be 2048 dimensions or less", OpenAI's API
// reference) and answers them in one body of about 80 MB: values as
// OpenAI writes them (0.0023064255 in its reference's example).
func TestC50fAISDKEmbedMany2048OpenAILarge(t *testing.T) {
	vec := `{"object":"embedding","index":%d,"embedding":[` + strings.TrimSuffix(strings.Repeat("0.0180421959,", 3072), ",") + `]}`
	var sb strings.Builder
	sb.WriteString(`{"object":"list","data":[`)
	for i := range 2048 {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(strings.Replace(vec, "%d", strconv.Itoa(i), 1))
	}
	sb.WriteString(`],"model":"text-embedding-3-large","usage":{"prompt_tokens":8192,"total_tokens":8192}}`)
	ans := sb.String()
	fs := fakes(t, map[string]upstreamtest.Script{"gemini": c50fGemini3072, "openai": script(upstreamtest.Step{Body: ans}, upstreamtest.Step{Body: ans}, upstreamtest.Step{Body: ans})})
	g := start(t, c50fCfg, fs)
	in := make([]string, 2048)
	for i := range in {
		in[i] = "chunk"
	}
	b, _ := json.Marshal(map[string]any{"model": "tei-vectors", "input": in, "encoding_format": "float"})
	r := g.raw(t, http.MethodPost, "/v1/embeddings", string(b), "Authorization", "Bearer client-key-1")
	d := g.recs.wait(t, 1)
	if r.Status != http.StatusRequestEntityTooLarge || r.Header.Get("X-Should-Retry") != "false" || len(fs["openai"].Requests()) != 1 || d.Attempts[0].Counted ||
		!strings.Contains(string(r.Body), "base64") {
		t.Errorf("answer %d bytes; status %d (x-should-retry %q) after %d OpenAI calls; attempts %d, first %s: %.300s", len(ans), r.Status,
			r.Header.Get("X-Should-Retry"), len(fs["openai"].Requests()), len(d.Attempts), attemptJSON(t, d, 0), r.Body)
	}
}

// The openai Node SDK (v5+) builds GET /models/{id} with its path helper,
// which percent-encodes the id: a LiteLLM-style route name "openai/gpt-4o"
// arrives as /v1/models/openai%2Fgpt-4o.
func TestC50fModelsRetrieveEncodedSlash(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"gemini": c50fGemini3072, "openai": script(ok("x", "x"))})
	g := start(t, c50fCfg, fs)
	for _, h := range [][]string{{"Authorization", "Bearer client-key-1"}, {"x-api-key", "client-key-1", "anthropic-version", "2023-06-01"}} {
		r := g.raw(t, http.MethodGet, "/v1/models/openai%2Fgpt-4o", "", h...)
		var m struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(r.Body, &m); r.Status != 200 || m.ID != "openai/gpt-4o" {
			t.Errorf("%v: %d %s", h, r.Status, r.Body)
		}
	}
}

// Batches a RAG loader sends: an empty string among the texts (an empty
// page; Gemini is refused it by Detour, OpenAI judges it), and one token
// array (openai-python's OfArrayOfTokens shape, tiktoken ids). On a route
// [gemini, openai-compatible] both move on to the second target, which
// gets the body as the client sent it.
func TestC50fEmptyStringAndTokensMoveOn(t *testing.T) {
	two := `{"object":"list","data":[{"object":"embedding","embedding":[0.6,0.8],"index":0},{"object":"embedding","embedding":[0.8,0.6],"index":1}],"model":"bge","usage":{"prompt_tokens":3,"total_tokens":3}}`
	// A flat token array is one text: one vector (review 63c: an answer
	// short or long of the inputs is refused).
	one := `{"object":"list","data":[{"object":"embedding","embedding":[0.6,0.8],"index":0}],"model":"bge","usage":{"prompt_tokens":2,"total_tokens":2}}`
	for _, tc := range []struct{ name, input, ans string }{
		{"empty string", `["page one",""]`, two},
		{"token array", `[9906,1917]`, one},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"gemini": c50fGemini3072, "openai": script(upstreamtest.Step{Body: tc.ans})})
			g := start(t, c50fCfg, fs)
			r := g.raw(t, http.MethodPost, "/v1/embeddings", `{"input":`+tc.input+`,"model":"gem-then-tei","encoding_format":"float"}`, "Authorization", "Bearer client-key-1")
			if r.Status != 200 || len(fs["gemini"].Requests()) != 0 || len(fs["openai"].Requests()) != 1 {
				t.Fatalf("status %d, gemini %d calls, openai %d: %s", r.Status, len(fs["gemini"].Requests()), len(fs["openai"].Requests()), r.Body)
			}
			if up := string(fs["openai"].Requests()[0].Body); !strings.Contains(up, `"input":`+tc.input) {
				t.Errorf("upstream body %s", up)
			}
		})
	}
}

// The Anthropic SDKs' beta count_tokens takes mcp_servers (the MCP
// connector) and server tools beside client tools; on a route without
// Claude the answer is an estimate, never a 400 the caller cannot act on.
func TestC50fCountTokensMCPAndServerTools(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"gemini": c50fGemini3072, "openai": script(ok("x", "x"))})
	g := start(t, c50fCfg, fs)
	body := `{"model":"via-gpt","messages":[{"role":"user","content":"What tools do you have?"}],` +
		`"mcp_servers":[{"type":"url","url":"https://example-server.modelcontextprotocol.io/sse","name":"example-mcp","authorization_token":"tok"}],` +
		`"tools":[{"type":"web_search_20250305","name":"web_search","max_uses":5},{"type":"text_editor_20250728","name":"str_replace_based_edit_tool"},{"name":"get_weather","description":"Get the weather","input_schema":{"type":"object","properties":{"city":{"type":"string"}}}}]}`
	r := g.raw(t, http.MethodPost, "/v1/messages/count_tokens", body, "x-api-key", "client-key-1", "anthropic-version", "2023-06-01", "anthropic-beta", "mcp-client-2025-04-04")
	var out struct {
		InputTokens int `json:"input_tokens"`
	}
	if json.Unmarshal(r.Body, &out); r.Status != 200 || out.InputTokens <= 0 {
		t.Errorf("status %d: %s", r.Status, r.Body)
	}
	if n := len(fs["openai"].Requests()); n != 0 {
		t.Errorf("an estimate called the upstream %d times", n)
	}
}

// LangChain's OpenAIEmbeddings with check_embedding_ctx_length=False (what
// its docs tell users of non-OpenAI servers to set) sends chunk_size = 1000
// texts per request through openai-python, which asks for base64: to
// gemini-embedding-001 at 3072 dimensions, ten calls, 1000 vectors of 3072
// float32s, in order.
func TestC50fLangChain1000Base64Gemini3072(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"gemini": c50fGemini3072, "openai": script(ok("x", "x"))})
	g := start(t, c50fCfg, fs)
	in := make([]string, 1000)
	for i := range in {
		in[i] = "doc " + strconv.Itoa(i)
	}
	b, _ := json.Marshal(map[string]any{"model": "gem-vectors", "input": in, "encoding_format": "base64"})
	r := g.raw(t, http.MethodPost, "/v1/embeddings", string(b), "Authorization", "Bearer client-key-1")
	if r.Status != 200 {
		t.Fatalf("status %d: %.300s", r.Status, r.Body)
	}
	var out struct {
		Data []struct {
			Index     int    `json:"index"`
			Embedding string `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(r.Body, &out); err != nil || len(out.Data) != 1000 || len(fs["gemini"].Requests()) != 10 {
		t.Fatalf("%v: %d vectors, %d calls", err, len(out.Data), len(fs["gemini"].Requests()))
	}
	for i, d := range out.Data {
		raw, err := base64.StdEncoding.DecodeString(d.Embedding)
		if err != nil || len(raw) != 4*3072 || d.Index != i {
			t.Fatalf("vector %d: %v, %d bytes, index %d", i, err, len(raw), d.Index)
		}
	}
}

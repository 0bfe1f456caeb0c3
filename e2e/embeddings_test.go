package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// /v1/embeddings through a real gateway with openai-go's embeddings client:
// the same engine as chat (classes, failover, record with api
// "embeddings"), across the openai and gemini dialects (docs/doors.md).

const embeddingsCfg = `
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
  - {name: gemini, dialect: gemini, base_url: "{gemini}", api_key: ` + secret + `}
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
targets:
  - {name: small, model: text-embedding-3-small, providers: [openai], dimensions: 3}
  - {name: gem, model: gemini-embedding-001, providers: [gemini], dimensions: 3}
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
routes:
  - {name: vectors, targets: [small, gem]}
  - {name: mixed, targets: [claude, small]}
`

const openaiVectors = `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,0.2,0.3]},{"object":"embedding","index":1,"embedding":[0.4,0.5,0.6]}],"model":"text-embedding-3-small","usage":{"prompt_tokens":4,"total_tokens":4}}`

func embedTwo(model string) openai.EmbeddingNewParams {
	return openai.EmbeddingNewParams{Model: model, Input: openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: []string{"alpha", "beta"}}}
}

func TestEmbeddingsPlain(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai":    script(upstreamtest.Step{Body: openaiVectors}),
		"gemini":    script(ok("x", "x")),
		"anthropic": script(ok("x", "x")),
	})
	g := start(t, embeddingsCfg, fs)
	e, err := sdk(g).Embeddings.New(context.Background(), embedTwo("vectors"))
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Data) != 2 || e.Data[1].Embedding[2] != 0.6 || e.Usage.TotalTokens != 4 {
		t.Errorf("embeddings: %+v", e)
	}
	// The target's declared dimensions travel when the client names none.
	var up struct {
		Model      string `json:"model"`
		Dimensions int    `json:"dimensions"`
	}
	json.Unmarshal(fs["openai"].Requests()[0].Body, &up)
	if up.Model != "text-embedding-3-small" || up.Dimensions != 3 || fs["openai"].Requests()[0].Path != "/embeddings" {
		t.Errorf("upstream got %s at %s", fs["openai"].Requests()[0].Body, fs["openai"].Requests()[0].Path)
	}
	d := g.recs.wait(t, 1)
	if d.API != "embeddings" || d.Usage == nil || d.Usage.TotalTokens != 4 {
		t.Errorf("decision: api %q usage %+v", d.API, d.Usage)
	}
	wantSteps(t, d, "small/openai ok done")
}

// openai answers 500 (retried once, then the next target); Gemini's
// batchEmbedContents answer comes back as an OpenAI list.
func TestEmbeddingsFailoverToGemini(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai":    script(corpus(t, "openai-model-overloaded-server-error-503")),
		"gemini":    script(upstreamtest.Step{Body: `{"embeddings":[{"values":[0.6,0.8,0]},{"values":[0,0.6,0.8]}]}`}),
		"anthropic": script(ok("x", "x")),
	})
	g := start(t, embeddingsCfg, fs)
	e, err := sdk(g).Embeddings.New(context.Background(), embedTwo("vectors"))
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Data) != 2 || e.Data[0].Embedding[0] != 0.6 || e.Data[1].Embedding[2] != 0.8 || e.Model != "gemini-embedding-001" {
		t.Errorf("embeddings: %+v", e)
	}
	req := fs["gemini"].Requests()[0]
	var up struct {
		Requests []struct {
			Model                string `json:"model"`
			OutputDimensionality int    `json:"outputDimensionality"`
		} `json:"requests"`
	}
	json.Unmarshal(req.Body, &up)
	if req.Path != "/v1beta/models/gemini-embedding-001:batchEmbedContents" || len(up.Requests) != 2 || up.Requests[0].OutputDimensionality != 3 {
		t.Errorf("gemini got %s at %s", req.Body, req.Path)
	}
	wantSteps(t, g.recs.wait(t, 1), "small/openai server_error retry", "small/openai server_error next_target", "gem/gemini ok done")
}

// An Anthropic target has no embeddings: skipped with the reason recorded;
// a route with nothing else is a 400 before any upstream is called.
func TestEmbeddingsSkipDialectWithout(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai":    script(upstreamtest.Step{Body: openaiVectors}),
		"gemini":    script(ok("x", "x")),
		"anthropic": script(ok("x", "x")),
	})
	g := start(t, embeddingsCfg, fs)
	if _, err := sdk(g).Embeddings.New(context.Background(), embedTwo("mixed")); err != nil {
		t.Fatal(err)
	}
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "small/openai ok done")
	wantSkip(t, d, "claude/anthropic", "dialect anthropic serves no embeddings")
	_, err := sdk(g).Embeddings.New(context.Background(), embedTwo("claude"))
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 {
		t.Errorf("claude embeddings: %v", err)
	}
	p := embedTwo("vectors")
	p.Input = openai.EmbeddingNewParamsInputUnion{}
	if _, err := sdk(g).Embeddings.New(context.Background(), p); !errors.As(err, &apiErr) || apiErr.StatusCode != 400 {
		t.Errorf("no input: %v", err)
	}
	if fs["anthropic"].Calls() != 0 || fs["openai"].Calls() != 1 {
		t.Errorf("calls: anthropic %d openai %d", fs["anthropic"].Calls(), fs["openai"].Calls())
	}
}

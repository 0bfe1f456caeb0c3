package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/rawjson"
)

var _ provider.Embedder = Adapter{}

// NewEmbeddingsRequest POSTs the client's body to {base_url}/embeddings with
// only "model" replaced: input (strings or token arrays), dimensions,
// encoding_format and user reach the upstream as sent, and the upstream
// does the base64 encoding itself.
func (Adapter) NewEmbeddingsRequest(ctx context.Context, ep provider.Endpoint, req *provider.Request) (*http.Request, error) {
	body, err := req.WithModel(ep.Model)
	if err != nil {
		return nil, err
	}
	hr, err := provider.NewPost(ctx, ep.BaseURL, "/embeddings", body, nil)
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json")
	if ep.APIKey != "" {
		hr.Header.Set("Authorization", "Bearer "+ep.APIKey)
	}
	return hr, nil
}

// EmbeddingsResponse checks that a 2xx body is an embeddings list (a "data"
// array) and passes it through untouched, unless the client asked for
// "encoding_format": "base64" and the upstream (an OpenAI-compatible
// server that ignores the member) answered lists of floats: those become
// base64 as OpenAI encodes them, so the client decodes what it asked for.
func (Adapter) EmbeddingsResponse(req *provider.Request, body []byte, _ provider.Endpoint) ([]byte, error) {
	var probe struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &probe); err != nil {
		return nil, err
	}
	if len(probe.Data) == 0 || probe.Data[0] != '[' {
		return nil, errors.New("openai: embeddings response has no data array")
	}
	body = inputUsage(body)
	if req == nil {
		return body, nil
	}
	if e, err := provider.EmbeddingsOf(req); err != nil || !e.Base64 {
		return body, nil
	}
	if b, err := base64Data(body); err == nil {
		return b, nil
	}
	// An answer this reading cannot re-encode (a number float64 refuses,
	// nested lists) is still an answer: passed on as the upstream sent it,
	// never a failure that would be retried and billed again.
	return body, nil
}

// inputUsage gives an answer whose usage counts only total_tokens (Voyage
// AI's: voyage-ai/voyageai-python reads usage.total_tokens alone) the same
// count as prompt_tokens: an embeddings answer has no output, so every
// token is input. Without it the tokens were priced as output, which an
// embeddings price makes free (a budget never moved), and the Vercel AI
// SDK, which requires usage.prompt_tokens, refused the answer (probe 53b).
// Any other body is returned as it came.
func inputUsage(body []byte) []byte {
	us, ue, err := rawjson.MemberSpan(body, "usage")
	if err != nil || us < 0 {
		return body
	}
	var u map[string]json.RawMessage
	if json.Unmarshal(body[us:ue], &u) != nil || u == nil || u["prompt_tokens"] != nil {
		return body
	}
	total, ok := u["total_tokens"]
	if !ok || !rawjson.Set(total) {
		return body
	}
	u["prompt_tokens"] = total
	b, err := json.Marshal(u)
	if err != nil {
		return body
	}
	return rawjson.Replace(body, us, ue, b)
}

// base64Data re-encodes every embedding of an embeddings list that is a
// list of numbers as base64 float32s; the body is returned as it was when
// none is.
func base64Data(body []byte) ([]byte, error) {
	var list map[string]json.RawMessage
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, err
	}
	var data []map[string]json.RawMessage
	if err := json.Unmarshal(list["data"], &data); err != nil {
		return nil, fmt.Errorf("openai: embeddings data: %w", err)
	}
	changed := false
	for i, d := range data {
		emb := bytes.TrimSpace(d["embedding"])
		if len(emb) == 0 || emb[0] != '[' {
			continue
		}
		var values []float64
		if err := json.Unmarshal(emb, &values); err != nil {
			return nil, fmt.Errorf("openai: embedding %d: %w", i, err)
		}
		d["embedding"] = provider.Base64Floats(values)
		changed = true
	}
	if !changed {
		return body, nil
	}
	b, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	list["data"] = b
	return json.Marshal(list)
}

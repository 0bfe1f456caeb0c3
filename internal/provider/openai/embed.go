package openai

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/rawjson"
)

var _ provider.Embedder = Adapter{}

// NewEmbeddingsRequest POSTs the client's body to {base_url}/embeddings with
// only "model" replaced: input (strings or token arrays), dimensions,
// encoding_format and user reach the upstream as sent, and the upstream
// does the base64 encoding itself. (An endpoint that refuses base64 is
// sent req without encoding_format by dispatch, embedformat.go; Embeddings
// still says Base64, and EmbeddingsResponse encodes its floats.)
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

// EmbeddingsResponse checks that a 2xx body is an embeddings list whose
// "data" holds one usable vector per input (checkVectors) and passes it
// through, but for what the client needs of it: the vectors in input
// order, each with its index, and, when the client asked for
// "encoding_format": "base64" and the upstream (an OpenAI-compatible
// server that ignores the member) answered lists of floats, those as
// base64 as OpenAI encodes them, so the client decodes what it asked for.
func (Adapter) EmbeddingsResponse(req *provider.Request, body []byte, _ provider.Endpoint) ([]byte, error) {
	if !json.Valid(body) {
		return nil, errors.New("openai: embeddings response is not JSON")
	}
	ds, de, err := rawjson.MemberSpan(body, "data")
	if err != nil || ds < 0 || body[ds] != '[' {
		return nil, errors.New("openai: embeddings response has no data array")
	}
	n, b64 := -1, false // not known: no request to read (a test's)
	if req != nil {
		if e, err := provider.EmbeddingsOf(req); err == nil {
			n, b64 = e.Inputs(), e.Base64
		}
	}
	if body, err = checkVectors(body, ds, de, n, b64); err != nil {
		return nil, err
	}
	return inputUsage(body), nil
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

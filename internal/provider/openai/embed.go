package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/detour-llm/detour/internal/provider"
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
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, ep.BaseURL+"/embeddings", bytes.NewReader(body))
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
// array) and passes it through untouched.
func (Adapter) EmbeddingsResponse(_ *provider.Request, body []byte, _ provider.Endpoint) ([]byte, error) {
	var probe struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &probe); err != nil {
		return nil, err
	}
	if len(probe.Data) == 0 || probe.Data[0] != '[' {
		return nil, errors.New("openai: embeddings response has no data array")
	}
	return body, nil
}

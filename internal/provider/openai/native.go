package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/sse"
)

var _ provider.Native = Adapter{}

// Serves reports whether the upstream serves api as is: the Responses
// API, when the provider says so (Adapter.Responses).
func (a Adapter) Serves(api string) bool { return a.Responses && api == provider.APIResponses }

// NativeRequest POSTs the client's Responses body, only "model" replaced,
// to {base_url}/responses.
func (Adapter) NativeRequest(ctx context.Context, ep provider.Endpoint, req *provider.NativeRequest) (*http.Request, error) {
	body, err := (&provider.Request{Body: req.Body}).WithModel(ep.Model)
	if err != nil {
		return nil, err
	}
	hr, err := provider.NewPost(ctx, ep.BaseURL, "/responses", body, nil)
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Content-Type", "application/json")
	if req.Stream {
		hr.Header.Set("Accept", "text/event-stream")
	} else {
		hr.Header.Set("Accept", "application/json")
	}
	if ep.APIKey != "" {
		hr.Header.Set("Authorization", "Bearer "+ep.APIKey)
	}
	return hr, nil
}

// responsesUsage is the Responses API's usage object.
type responsesUsage struct {
	InputTokens        int `json:"input_tokens"`
	OutputTokens       int `json:"output_tokens"`
	InputTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"input_tokens_details"`
}

func (u *responsesUsage) usage() *provider.Usage {
	if u == nil {
		return nil
	}
	out := &provider.Usage{PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens, TotalTokens: u.InputTokens + u.OutputTokens}
	if d := u.InputTokensDetails; d != nil && d.CachedTokens > 0 {
		out.PromptTokensDetails = &provider.TokenDetails{CachedTokens: d.CachedTokens}
	}
	return out
}

// NativeAnswer checks a Responses answer ("object":"response") and returns
// its usage.
func (Adapter) NativeAnswer(_ string, body []byte) (*provider.Usage, error) {
	var r struct {
		Object string          `json:"object"`
		Usage  *responsesUsage `json:"usage"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, err
	}
	if r.Object != "response" {
		return nil, errors.New("openai: answer is not a response object")
	}
	return r.Usage.usage(), nil
}

// NativeStream reads a Responses event stream: deltas and output items are
// content, response.completed and response.incomplete finish and end it
// (with usage), response.failed and error events are errors.
func (Adapter) NativeStream(_ string, body io.Reader, _ provider.Endpoint) provider.Stream {
	return &responsesStream{r: sse.NewReader(body, 0)}
}

type responsesStream struct{ r *sse.Reader }

func (s *responsesStream) Next() (provider.Event, error) {
	out, decode, err := provider.NextEvent(s.r)
	if !decode {
		return out, err
	}
	if bytes.Equal(out.Raw, sse.Done) {
		out.Done = true
		return out, nil
	}
	var e struct {
		Type     string `json:"type"`
		Response *struct {
			Usage *responsesUsage `json:"usage"`
		} `json:"response"`
	}
	if json.Unmarshal(out.Raw, &e) != nil {
		out.Malformed = true
		return out, nil
	}
	out.Chunks = [][]byte{out.Raw}
	switch e.Type {
	case "error", "response.failed":
		out.Error = true
	case "response.output_text.delta", "response.refusal.delta", "response.function_call_arguments.delta",
		"response.reasoning_summary_text.delta":
		out.Content = true
	case "response.completed", "response.incomplete":
		if e.Response != nil {
			out.Usage = e.Response.Usage.usage()
		}
		out.Content, out.Finished, out.Done = true, true, true
	}
	return out, nil
}

package e2e

import (
	"context"
	"errors"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 63c: the gateway's own refusals carry a request id as its
// dispatched answers do (X-Request-Id and Request-Id), so
// anthropic-sdk-go's Error.RequestID and openai-go's x-request-id are
// never empty: a user's error message leads the operator to the request.

func TestGatewayRefusalsCarryRequestID(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(), "openai": script()})
	g := start(t, messagesCfg, fs)
	oa := []string{"Authorization", "Bearer client-key-1"}
	an := []string{"x-api-key", "client-key-1", "anthropic-version", "2023-06-01"}
	for _, k := range []struct {
		name, method, path, body string
		status                   int
		h                        []string
	}{
		{"embeddings front 400", "POST", "/v1/embeddings", `{"model":"cheap","input":"a","encoding_format":"int8"}`, 400, oa},
		{"embeddings unknown model", "POST", "/v1/embeddings", `{"model":"nope","input":"a"}`, 404, oa},
		{"chat unknown model", "POST", "/v1/chat/completions", `{"model":"nope","messages":[{"role":"user","content":"hi"}]}`, 404, oa},
		{"chat 401", "POST", "/v1/chat/completions", `{"model":"cheap","messages":[{"role":"user","content":"hi"}]}`, 401, []string{"Authorization", "Bearer wrong"}},
		{"responses unknown model", "POST", "/v1/responses", `{"model":"nope","input":"hi"}`, 404, oa},
		{"models 404", "GET", "/v1/models/nope", "", 404, oa},
		{"models 401", "GET", "/v1/models", "", 401, []string{"Authorization", "Bearer wrong"}},
		{"anthropic models 404", "GET", "/v1/models/nope", "", 404, an},
		{"count_tokens unknown model", "POST", "/v1/messages/count_tokens", `{"model":"nope","messages":[{"role":"user","content":"x"}]}`, 404, an},
		{"count_tokens estimate", "POST", "/v1/messages/count_tokens", `{"model":"cheap","messages":[{"role":"user","content":"x"}]}`, 200, an},
		{"messages unknown model", "POST", "/v1/messages", `{"model":"nope","max_tokens":5,"messages":[{"role":"user","content":"x"}]}`, 404, an},
		{"messages 401", "POST", "/v1/messages", `{"model":"deep","max_tokens":5,"messages":[{"role":"user","content":"x"}]}`, 401, []string{"x-api-key", "wrong"}},
		{"unknown path", "POST", "/v1/messages/batches", `{}`, 404, an},
	} {
		r := g.raw(t, k.method, k.path, k.body, k.h...)
		id := r.Header.Get("X-Request-Id")
		if r.Status != k.status || len(id) != 16 || r.Header.Get("Request-Id") != id {
			t.Errorf("%s: %d, X-Request-Id %q, Request-Id %q", k.name, r.Status, id, r.Header.Get("Request-Id"))
		}
	}
	// As the SDKs read them.
	_, err := anthropicSDK(g, nil).Models.Get(context.Background(), "nope", anthropic.ModelGetParams{})
	var ae *anthropic.Error
	if !errors.As(err, &ae) || ae.StatusCode != 404 || ae.RequestID == "" {
		t.Errorf("anthropic-sdk-go Models.Get: %v", err)
	}
	_, err = anthropicSDK(g, nil).Messages.New(context.Background(), anthropic.MessageNewParams{Model: "nope", MaxTokens: 5,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("x"))}})
	if !errors.As(err, &ae) || ae.StatusCode != 404 || ae.RequestID == "" {
		t.Errorf("anthropic-sdk-go Messages.New: %v", err)
	}
	oc := openai.NewClient(option.WithBaseURL(g.URL+"/v1/"), option.WithAPIKey("client-key-1"), option.WithMaxRetries(0))
	_, err = oc.Embeddings.New(context.Background(), openai.EmbeddingNewParams{Model: "nope", Input: openai.EmbeddingNewParamsInputUnion{OfString: openai.String("a")}})
	var oe *openai.Error
	if !errors.As(err, &oe) || oe.StatusCode != 404 || oe.Response.Header.Get("x-request-id") == "" {
		t.Errorf("openai-go Embeddings.New: %v", err)
	}
	if fs["openai"].Calls()+fs["anthropic"].Calls() != 0 {
		t.Errorf("a refusal reached an upstream")
	}
}

package e2e

import (
	"bytes"
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// count_tokens is exact from a route whose first target is Anthropic (its
// own count_tokens endpoint), an estimate otherwise; the model list is in
// Anthropic's shape for the SDK.
func TestMessagesSDKCountTokensAndModels(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			if r.Path == "/v1/messages/count_tokens" {
				return upstreamtest.Step{Body: `{"input_tokens":1234}`}
			}
			return upstreamtest.Step{Status: 404}
		},
		"openai": script(),
	})
	g := start(t, messagesCfg, fs)
	c := anthropicSDK(g, nil)
	count := func(model string) int64 {
		t.Helper()
		n, err := c.Messages.CountTokens(context.Background(), anthropic.MessageCountTokensParams{Model: anthropic.Model(model),
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("sixteen bytes.."))}})
		if err != nil {
			t.Fatal(err)
		}
		return n.InputTokens
	}
	if n := count("deep"); n != 1234 {
		t.Errorf("deep (Anthropic first): %d input tokens, want the target's exact 1234", n)
	}
	if got := fs["anthropic"].Requests()[0]; !bytes.Contains(got.Body, []byte(`"model":"claude-sonnet-4-5"`)) {
		t.Errorf("count_tokens upstream body %s", got.Body)
	}
	if n := count("cheap"); n != 4 {
		t.Errorf("cheap (OpenAI first): %d input tokens, want the estimate 4 (16 bytes / 4)", n)
	}
	page, err := c.Models.List(context.Background(), anthropic.ModelListParams{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range page.Data {
		ids = append(ids, m.ID)
	}
	if strings.Join(ids, ",") != "deep,cheap,claude,gpt" || page.Data[0].Type != "model" || page.Data[0].DisplayName == "" {
		t.Errorf("models %+v", page.Data)
	}
	// Without anthropic-version the list stays OpenAI's.
	r := g.raw(t, http.MethodGet, "/v1/models", "", "Authorization", "Bearer client-key-1")
	if !strings.Contains(string(r.Body), `"object":"list"`) {
		t.Errorf("OpenAI model list: %s", r.Body)
	}
}

// count_tokens is advisory: what its own endpoint answers (a rate limit of
// its own, a 404 for a file the client named) never cools the target for
// the route's messages, and the count is never billed.
func TestMessagesCountTokensNeverCools(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": func(n int, r upstreamtest.Request) upstreamtest.Step {
			if r.Path == "/v1/messages/count_tokens" {
				if n%2 == 1 {
					return upstreamtest.Step{Status: 429, Header: map[string]string{"Retry-After": "600"},
						Body: `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`}
				}
				return upstreamtest.Step{Status: 404, Body: `{"type":"error","error":{"type":"not_found_error","message":"model: claude-sonnet-4-5"}}`}
			}
			return upstreamtest.Step{Body: `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}`}
		},
		"openai": script(),
	})
	g := start(t, messagesCfg, fs)
	c := anthropicSDK(g, nil)
	for range 2 {
		n, err := c.Messages.CountTokens(context.Background(), anthropic.MessageCountTokensParams{Model: "deep",
			Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("sixteen bytes.."))}})
		if err != nil || n.InputTokens != 4 { // the upstream's count failed: the estimate
			t.Fatalf("count_tokens: %v, %+v", err, n)
		}
	}
	msg, err := c.Messages.New(context.Background(), anthropic.MessageNewParams{Model: "deep", MaxTokens: 16,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}})
	if err != nil || msg.ID != "msg_1" {
		t.Fatalf("messages after failed counts went elsewhere: %v %+v", err, msg)
	}
	if fs["openai"].Calls() != 0 {
		t.Errorf("the Anthropic target cooled because of count_tokens: %d calls went to openai", fs["openai"].Calls())
	}
}

// A count whose upstream never answers (its timeout expires after the
// request was sent) is still free: not billable, no cost to learn.
func TestMessagesCountTokensTimeoutIsNotBilled(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": script(upstreamtest.Step{Delay: 2 * time.Second, Body: `{"input_tokens":3}`}),
		"openai":    script(),
	})
	cfg := strings.Replace(messagesCfg, `api_key: `+secret+`}`, `api_key: `+secret+`, timeout: 200ms}`, 1)
	g := start(t, cfg, fs)
	r := g.raw(t, http.MethodPost, "/v1/messages/count_tokens", `{"model":"deep","messages":[{"role":"user","content":"sixteen bytes.."}]}`,
		"x-api-key", "client-key-1")
	r.wantStatus(t, http.StatusOK) // the estimate
	d := g.recs.wait(t, 1)
	for _, a := range d.Attempts {
		if a.Billable || a.CostUnknown {
			t.Errorf("a count that timed out was billed: %+v", a)
		}
	}
}

package e2e

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 63c: count_tokens is the check Anthropic documents before sending
// (https://docs.anthropic.com/en/api/messages-count-tokens): a request
// Anthropic's count refuses as the request's own fault (bad_request) is
// that 400 for the client, not Detour's estimate; any other failure of the
// count still answers the estimate (docs/doors.md).

const invalidImage = `{"type":"error","error":{"type":"invalid_request_error","message":"messages.0.content.0.image.source.base64: The image was specified using the image/png media type, but does not appear to be a valid png image"},"request_id":"req_up"}`

func TestCountTokensUpstreamBadRequestReachesClient(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": func(n int, _ upstreamtest.Request) upstreamtest.Step {
			if n == 1 {
				return upstreamtest.Step{Status: 400, Header: map[string]string{"request-id": "req_up"}, Body: invalidImage}
			}
			return upstreamtest.Step{Status: 529, Body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}
		},
		"openai": script(),
	})
	g := start(t, messagesCfg, fs)
	c := anthropicSDK(g, nil)
	params := anthropic.MessageCountTokensParams{Model: "deep",
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewImageBlockBase64("image/png", "bm90IGEgcG5n"))}}
	n, err := c.Messages.CountTokens(context.Background(), params)
	var ae *anthropic.Error
	if !errors.As(err, &ae) {
		t.Fatalf("Anthropic's 400 was answered as an estimate: %+v, %v", n, err)
	}
	d := g.recs.wait(t, 1)
	if ae.StatusCode != 400 || !strings.Contains(ae.RawJSON(), `"type":"invalid_request_error"`) || !strings.Contains(ae.RawJSON(), "does not appear to be a valid png image") {
		t.Errorf("the client got %d %s", ae.StatusCode, ae.RawJSON())
	}
	if ae.RequestID != d.ID || ae.Response.Header.Get("X-Detour-Class") != "bad_request" {
		t.Errorf("request id %q (decision %s), class %q", ae.RequestID, d.ID, ae.Response.Header.Get("X-Detour-Class"))
	}
	wantSteps(t, d, "claude/anthropic bad_request stop")
	// Any other failure of the count (Anthropic overloaded): the estimate.
	if n, err := c.Messages.CountTokens(context.Background(), params); err != nil || n.InputTokens != 1600 {
		t.Errorf("an overloaded count: %+v, %v", n, err)
	}
	if fs["openai"].Calls() != 0 {
		t.Errorf("a count reached openai")
	}
}

// A count of no messages is Anthropic's 400 (messages: at least one
// message is required), on the estimate path too: before, 200 with 0.
func TestCountTokensEstimateRefusesNoMessages(t *testing.T) {
	g := start(t, messagesCfg, fakes(t, map[string]upstreamtest.Script{"anthropic": script(), "openai": script()}))
	for _, body := range []string{`{"model":"cheap"}`, `{"model":"cheap","messages":[]}`, `{"model":"cheap","messages":null}`, `{"model":"cheap","messages":"hi"}`} {
		r := g.raw(t, http.MethodPost, "/v1/messages/count_tokens", body, "x-api-key", "client-key-1", "anthropic-version", "2023-06-01")
		if r.Status != http.StatusBadRequest || !strings.Contains(string(r.Body), `{"type":"error","error":{"type":"invalid_request_error","message":"messages`) {
			t.Errorf("%s: %d %s", body, r.Status, r.Body)
		}
	}
	_, err := anthropicSDK(g, nil).Messages.CountTokens(context.Background(), anthropic.MessageCountTokensParams{Model: "cheap", Messages: []anthropic.MessageParam{}})
	var ae *anthropic.Error
	if !errors.As(err, &ae) || ae.StatusCode != 400 || ae.RequestID == "" {
		t.Errorf("no messages with the SDK: %v", err)
	}
	if n, err := anthropicSDK(g, nil).Messages.CountTokens(context.Background(), anthropic.MessageCountTokensParams{Model: "cheap",
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("sixteen bytes.."))}}); err != nil || n.InputTokens != 4 {
		t.Errorf("a count of one message: %+v, %v", n, err)
	}
}

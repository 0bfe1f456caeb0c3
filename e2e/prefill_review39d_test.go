package e2e

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// An Anthropic client that prefills the answer (a last assistant turn
// such as `{"name": "`) relies on getting only the rest of the text, which
// it appends to its prefill: Claude writes on from it. OpenAI and Gemini
// answer a new turn instead, and the client would append a whole answer to
// its prefill. So only an Anthropic target serves a prefill: a route that
// holds Claude gets it passed through to Claude as sent (its other targets
// are passed over, evidence translate), and a route without Claude answers a
// 400 invalid_request_error naming the message. Before, the prefill went
// to OpenAI as a trailing assistant message and its fresh answer came back
// as Claude's continuation.
func TestMessagesPrefillOnlyClaude(t *testing.T) {
	prefilled := anthropic.MessageNewParams{MaxTokens: 256, Messages: []anthropic.MessageParam{
		anthropic.NewUserMessage(anthropic.NewTextBlock("Name the fair as JSON.")),
		anthropic.NewAssistantMessage(anthropic.NewTextBlock(`{"name": "`)),
	}}
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": script(upstreamtest.Step{Body: anthropicMessage("claude-sonnet-4-5", `Science Fair"}`)}),
		"openai":    script(ok("gpt-4o-mini", `{"name": "Science Fair"}`)),
	})
	g := start(t, messagesCfg, fs)
	c := anthropicSDK(g, nil)

	p := prefilled
	p.Model = "gpt"
	_, err := c.Messages.New(context.Background(), p)
	var ae *anthropic.Error
	if !errors.As(err, &ae) || ae.StatusCode != 400 || !strings.Contains(ae.RawJSON(), "messages.1") || !strings.Contains(ae.RawJSON(), "invalid_request_error") {
		t.Fatalf("target gpt: %v, want a 400 naming messages.1", err)
	}
	if n := fs["openai"].Calls(); n != 0 {
		t.Errorf("OpenAI got %d requests, want none", n)
	}

	for i, route := range []string{"deep", "cheap"} { // claude, gpt; gpt, claude
		p.Model = route
		res, err := c.Messages.New(context.Background(), p)
		if err != nil {
			t.Fatalf("%s: %v", route, err)
		}
		if got := res.Content[0].Text; got != `Science Fair"}` {
			t.Errorf("%s: answer %q", route, got)
		}
		if got := string(fs["anthropic"].Requests()[i].Body); !strings.Contains(got, `{\"name\": \"`) {
			t.Errorf("%s: Claude got %s, want the prefill", route, got)
		}
	}
	wantSteps(t, g.recs.wait(t, 3), "gpt/openai unknown next_target", "claude/anthropic ok done")
	if n := fs["openai"].Calls(); n != 0 {
		t.Errorf("OpenAI got %d requests, want none", n)
	}

	// A last assistant turn that only calls tools, or one of thinking
	// alone, is no prefill: it still translates.
	p.Model = "gpt"
	p.Messages = []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi")),
		anthropic.NewAssistantMessage(anthropic.NewThinkingBlock("sig", "thinking..."))}
	if _, err := c.Messages.New(context.Background(), p); err != nil {
		t.Errorf("a last turn of thinking alone: %v", err)
	}
}

package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A last assistant turn of text is sent by real agents — Claude Code when
// it resumes an interrupted session, opencode at its step limit — and by a
// client prefilling Claude's answer (`{"name": "`). Every target serves it:
// Claude gets the body as sent and writes on from the text; OpenAI and
// Gemini get it as the conversation's last assistant message and answer a
// new turn (docs/doors.md). Review 39d refused it for them, which turned
// those agents' requests into 400s on every route without Claude
// (review 39i).
func TestMessagesFinalAssistantTurnIsServed(t *testing.T) {
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
	res, err := c.Messages.New(context.Background(), p)
	if err != nil {
		t.Fatalf("target gpt: %v", err)
	}
	if got := res.Content[0].Text; got != `{"name": "Science Fair"}` {
		t.Errorf("target gpt: answer %q", got)
	}
	var sent struct {
		Messages []struct{ Role, Content string }
	}
	if err := json.Unmarshal(fs["openai"].Requests()[0].Body, &sent); err != nil || len(sent.Messages) == 0 {
		t.Fatalf("OpenAI got %s", fs["openai"].Requests()[0].Body)
	}
	if last := sent.Messages[len(sent.Messages)-1]; last.Role != "assistant" || last.Content != `{"name": "` {
		t.Errorf("OpenAI's last message %+v, want the assistant turn as sent", last)
	}

	p.Model = "deep" // claude first
	res, err = c.Messages.New(context.Background(), p)
	if err != nil {
		t.Fatalf("deep: %v", err)
	}
	if got := res.Content[0].Text; got != `Science Fair"}` {
		t.Errorf("deep: answer %q", got)
	}
	if got := string(fs["anthropic"].Requests()[0].Body); !strings.Contains(got, `{\"name\": \"`) {
		t.Errorf("deep: Claude got %s, want the prefill", got)
	}
}

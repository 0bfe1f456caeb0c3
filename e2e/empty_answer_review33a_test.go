package e2e

import (
	"encoding/json"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// review 33a (hostile upstream): an answer with nothing in it must not be
// passed off as a success. A stream that ends before any content fails over
// (docs/behaviour.md#streams: "A stream that ends before any content is
// server_error, stream:ended before content, and fails over"); its end
// marker alone is no content. The same goes for a whole answer that has no
// choice at all.
func TestEmptyAnswerFailsOverReview33a(t *testing.T) {
	const role = `{"id":"c","object":"chat.completion.chunk","created":1,"model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`
	for _, tc := range []struct {
		name, route, ep, extra string
		o, an                  upstreamtest.Step
	}{
		{"openai stream: role chunk, then [DONE]", "via-gpt", "gpt/o", stream,
			upstreamtest.Step{Events: []string{role, "[DONE]"}}, okStream("x", "unused")},
		{"openai stream: [DONE] alone", "via-gpt", "gpt/o", stream,
			upstreamtest.Step{Events: []string{"[DONE]"}}, okStream("x", "unused")},
		{"anthropic stream: message_start, then message_stop", "via-claude", "claude/an", stream,
			okStream("x", "unused"), upstreamtest.Step{Events: []string{
				"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-sonnet-4-5\",\"content\":[],\"usage\":{\"input_tokens\":9,\"output_tokens\":1}}}",
				"event: message_stop\ndata: {\"type\":\"message_stop\"}"}}},
		{"openai whole: choices []", "via-gpt", "gpt/o", "",
			upstreamtest.Step{Body: `{"id":"c","object":"chat.completion","created":1,"model":"gpt-4o","choices":[]}`}, ok("x", "unused")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"o": script(tc.o), "an": script(tc.an),
				"ge": script(okStream("x", "unused")), "q": script(okStream("model-b", "from b"), ok("model-b", "from b"))})
			if tc.extra == "" {
				fs["q"].SetScript(script(ok("model-b", "from b")))
			}
			g := start(t, dialectStreams, fs)
			r := g.post(t, tc.route, tc.extra)
			r.wantStatus(t, 200)
			var content string
			if tc.extra == "" {
				var c struct {
					Choices []struct {
						Message struct{ Content string } `json:"message"`
					} `json:"choices"`
				}
				_ = json.Unmarshal(r.Body, &c)
				if len(c.Choices) > 0 {
					content = c.Choices[0].Message.Content
				}
			} else {
				content, _, _ = r.streamed(t)
			}
			if content != "from b" {
				t.Errorf("client got %q, want the next target's answer (\"from b\"): an empty answer was passed off as a success\nbody: %s", content, r.Body)
			}
			d := g.recs.wait(t, 1)
			if len(d.Attempts) == 0 || d.Attempts[0].Class == "" {
				t.Errorf("attempts %q: the empty answer of %s was recorded as a success", steps(d), tc.ep)
			}
		})
	}
}

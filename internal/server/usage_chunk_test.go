package server_test

import (
	"strings"
	"testing"
)

// A translated stream (here from a Gemini target) reaches a chat client as
// OpenAI streams: without stream_options.include_usage no chunk carries
// usage; with it, the usage comes last, in a chunk of its own whose
// choices are an empty list, after the finish (docs/behaviour.md,
// "Streams"). Before, the finish chunk carried the usage whether or not the
// client asked, and no chunk with empty choices came.
func TestTranslatedStreamUsageChunkAsOpenAISendsIt(t *testing.T) {
	answer := `{"candidates":[{"content":{"parts":[{"text":"ok"}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":1,"totalTokenCount":6}}`
	chunks := func(body string) []string {
		var out []string
		for _, l := range strings.Split(body, "\n") {
			if d, ok := strings.CutPrefix(l, "data: "); ok && d != "[DONE]" {
				out = append(out, d)
			}
		}
		return out
	}
	url, _, _ := r38aGateway(t, answer)
	_, body := postWith(t, url, "/v1/chat/completions", `{"model":"r","stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	if cs := chunks(body); len(cs) == 0 || strings.Contains(body, `"usage"`) {
		t.Errorf("not asked: a chunk carries usage, or none came: %s", body)
	}
	_, body = postWith(t, url, "/v1/chat/completions", `{"model":"r","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`)
	cs := chunks(body)
	if len(cs) < 2 || !strings.Contains(cs[len(cs)-1], `"choices":[]`) || !strings.Contains(cs[len(cs)-1], `"prompt_tokens":5`) ||
		!strings.Contains(cs[len(cs)-2], `"finish_reason":"stop"`) || strings.Contains(cs[len(cs)-2], `"usage"`) || !strings.HasSuffix(body, "data: [DONE]\n\n") {
		t.Errorf("asked: want the finish, then a chunk with empty choices and the usage, then [DONE]: %s", body)
	}
}

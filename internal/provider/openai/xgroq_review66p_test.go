package openai

import (
	"bytes"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// Review 66p: x_groq's usage is read as every other count is
// (provider.ParseUsage: a count that is not a plain integer is its floor),
// the same by the chunk reader's scan and by its json.Unmarshal fallback,
// and a chunk's top-level usage comes before it.
func TestXGroqUsageReview66p(t *testing.T) {
	const choice = `"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]`
	for _, c := range []struct {
		name                    string
		chunk                   string
		prompt, completion, tot int
	}{
		{"plain", `{` + choice + `,"x_groq":{"id":"r","usage":{"queue_time":0.05,"prompt_tokens":21,"completion_tokens":988,"total_tokens":1009}}}`, 21, 988, 1009},
		// encoding/json refuses 21.0 for an int: the whole count was lost,
		// and the stream's cost was an estimate of its text.
		{"whole as a float", `{` + choice + `,"x_groq":{"id":"r","usage":{"prompt_tokens":21.0,"completion_tokens":988,"total_tokens":1009.0}}}`, 21, 988, 1009},
		{"fraction, decode path", `{` + choice + `,"X_GROQ":{"usage":{"prompt_tokens":21.5,"completion_tokens":988,"total_tokens":1009}}}`, 21, 988, 1009},
		{"duplicate x_groq: the last, as decode", `{` + choice + `,"x_groq":{"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}},"x_groq":{"usage":{"prompt_tokens":21,"completion_tokens":988,"total_tokens":1009}}}`, 21, 988, 1009},
		{"top-level usage first (scan)", `{` + choice + `,"usage":{"prompt_tokens":21,"completion_tokens":988,"total_tokens":1009},"x_groq":{"usage":{"prompt_tokens":9,"completion_tokens":9,"total_tokens":18}}}`, 21, 988, 1009},
		{"top-level usage first (decode)", `{` + choice + `,"Usage":{"prompt_tokens":21,"completion_tokens":988,"total_tokens":1009},"x_groq":{"usage":{"prompt_tokens":9,"completion_tokens":9,"total_tokens":18}}}`, 21, 988, 1009},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: " + c.chunk + "\n\ndata: [DONE]\n\n"
			st := Adapter{}.Stream(bytes.NewReader([]byte(body)), provider.Endpoint{})
			var u *provider.Usage
			for {
				ev, err := st.Next()
				if err != nil {
					break
				}
				if ev.Malformed {
					t.Fatalf("malformed chunk %s", ev.Raw)
				}
				if ev.Usage != nil {
					u = ev.Usage
				}
				if ev.Done {
					break
				}
			}
			if u == nil || u.PromptTokens != c.prompt || u.CompletionTokens != c.completion || u.TotalTokens != c.tot {
				t.Errorf("usage %+v, want %d/%d/%d", u, c.prompt, c.completion, c.tot)
			}
		})
	}
}

package openai

import (
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// TestHostile57bEscapedVendorFinishIsRewritten: a finish reason written
// with a JSON escape ("sensitiv\u0065", valid JSON, the same string to any
// parser) is read as Zhipu's "sensitive" by the adapter's decode (the
// chunk's vendor fact is set) but openaiFinishes matches raw bytes only, so
// the client, and the Messages and Responses doors that read only OpenAI's
// five words, still get "sensitive": the filtered answer reads as a normal
// end (what 3480945 fixed for the plain spelling, probe 57a). Same for a
// whole answer.
func TestHostile57bEscapedVendorFinishIsRewritten(t *testing.T) {
	finish := func(b []byte) string {
		var c struct {
			Choices []struct {
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(b, &c); err != nil || len(c.Choices) == 0 || c.Choices[0].FinishReason == nil {
			return "?"
		}
		return *c.Choices[0].FinishReason
	}
	whole := `{"id":"x","object":"chat.completion","model":"glm-4","choices":[{"index":0,"message":{"role":"assistant","content":"a"},"finish_reason":"sensitiv\u0065"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`
	out, err := Adapter{}.Response([]byte(whole), provider.Endpoint{})
	if err != nil {
		t.Fatal(err)
	}
	if got := finish(out); got != "content_filter" {
		t.Errorf("whole answer: the client reads finish_reason %q, want content_filter", got)
	}
	body := "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\n" +
		"data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"sensitiv\\u0065\"}]}\n\ndata: [DONE]\n\n"
	st := Adapter{}.Stream(strings.NewReader(body), provider.Endpoint{})
	var last string
	for {
		ev, err := st.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range ev.Chunks {
			if f := finish(c); f != "?" {
				last = f
			}
		}
	}
	if last != "content_filter" {
		t.Errorf("stream: the client reads finish_reason %q, want content_filter", last)
	}
}

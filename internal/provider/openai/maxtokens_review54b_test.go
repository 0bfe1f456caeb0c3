package openai

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// Review 54b: a chat client's body that sends max_tokens as null beside
// max_completion_tokens (openai-python sends an explicit None as null) is
// renamed into a body that names max_tokens twice. TestOutputLimitBothNamesKept
// promises "no member is written twice"; a strict server (serde's derived
// Deserialize: "duplicate field `max_tokens`") refuses the body, a
// first-wins reader reads null.
func TestReview54bNullMaxTokensWrittenTwice(t *testing.T) {
	const body = `{"model":"m","messages":[{"role":"user","content":"hi"}],"max_tokens":null,"max_completion_tokens":5}`
	hr, err := Adapter{}.NewRequest(context.Background(), provider.Endpoint{BaseURL: "https://api.deepseek.com", Model: "deepseek-v4-flash"}, &provider.Request{Body: []byte(body)})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(hr.Body)
	if n := strings.Count(string(b), `"max_tokens"`); n != 1 {
		t.Errorf("sent %s: max_tokens named %d times", b, n)
	}
	var v map[string]any
	if json.Unmarshal(b, &v) != nil || v["max_tokens"] != float64(5) {
		t.Errorf("sent %s; want max_tokens 5", b)
	}
}

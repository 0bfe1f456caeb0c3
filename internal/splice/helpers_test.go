package splice

import (
	"encoding/json"
	"strings"
	"testing"
)

// ck builds a chunk of the given stream id with one choice-0 delta.
func ck(id, delta string) []byte {
	return []byte(`{"id":"` + id + `","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":null}]}`)
}

// content builds a content chunk of stream id.
func content(id, s string) []byte {
	b, _ := json.Marshal(s)
	return ck(id, `{"content":`+string(b)+`}`)
}

// client is what an OpenAI client assembles from the chunks it receives.
type client struct {
	text   strings.Builder
	roles  int
	ids    map[string]bool
	finish []string
	usage  []json.RawMessage
}

func (c *client) read(t *testing.T, b []byte) {
	t.Helper()
	if b == nil {
		return
	}
	var v struct {
		ID      string          `json:"id"`
		Usage   json.RawMessage `json:"usage"`
		Choices []struct {
			Index int `json:"index"`
			Delta struct {
				Role    string  `json:"role"`
				Content *string `json:"content"`
			} `json:"delta"`
			FinishReason *string `json:"finish_reason"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("client cannot read %s: %v", b, err)
	}
	if c.ids == nil {
		c.ids = map[string]bool{}
	}
	c.ids[v.ID] = true
	if len(v.Usage) > 0 && string(v.Usage) != "null" {
		c.usage = append(c.usage, v.Usage)
	}
	for _, ch := range v.Choices {
		if ch.Delta.Role != "" {
			c.roles++
		}
		if ch.Delta.Content != nil {
			c.text.WriteString(*ch.Delta.Content)
		}
		if ch.FinishReason != nil {
			c.finish = append(c.finish, *ch.FinishReason)
		}
	}
}

package splice

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/rawjson"
)

// chunk is one chat.completion.chunk decoded far enough to read and rewrite
// it while keeping every member it does not know.
type chunk struct {
	top     map[string]json.RawMessage
	choices []map[string]json.RawMessage
	deltas  []map[string]json.RawMessage // parallel to choices; nil when absent or null
	dirty   bool
}

var errNotChunk = errors.New("splice: not a chat.completion.chunk object")

func parse(b []byte) (*chunk, error) {
	var c chunk
	if err := json.Unmarshal(b, &c.top); err != nil || c.top == nil {
		return nil, errNotChunk
	}
	if raw, ok := c.top["choices"]; ok && !isNull(raw) {
		if err := json.Unmarshal(raw, &c.choices); err != nil {
			return nil, fmt.Errorf("splice: chunk choices: %w", err)
		}
	}
	c.deltas = make([]map[string]json.RawMessage, len(c.choices))
	for i, ch := range c.choices {
		if ch == nil {
			return nil, errors.New("splice: chunk choice is not an object")
		}
		if raw, ok := ch["delta"]; ok && !isNull(raw) {
			if err := json.Unmarshal(raw, &c.deltas[i]); err != nil {
				return nil, fmt.Errorf("splice: chunk delta: %w", err)
			}
		}
	}
	return &c, nil
}

func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// blank reports whether a delta member says nothing: null, "", [] or {}
// (some OpenAI-compatible servers send "tool_calls":[] in every delta).
func blank(raw json.RawMessage) bool {
	switch string(bytes.TrimSpace(raw)) {
	case "", "null", `""`, "[]", "{}":
		return true
	}
	return false
}

// index is choice i's index (0 when absent or unreadable).
func (c *chunk) index(i int) int {
	var n int
	_ = json.Unmarshal(c.choices[i]["index"], &n)
	return n
}

// content is choice i's delta content; ok is false when absent or null.
func (c *chunk) content(i int) (s string, ok bool, err error) {
	raw, found := c.deltas[i]["content"]
	if !found || isNull(raw) {
		return "", false, nil
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false, errors.New("splice: delta content is not a string")
	}
	return s, true, nil
}

func (c *chunk) setContent(i int, s string) {
	if c.deltas[i] == nil {
		c.deltas[i] = map[string]json.RawMessage{}
	}
	c.deltas[i]["content"], _ = rawjson.Marshal(s)
	c.dirty = true
}

// has reports whether choice i's delta carries key with a value that is
// not blank.
func (c *chunk) has(i int, key string) bool {
	raw, ok := c.deltas[i][key]
	return ok && !blank(raw)
}

// logprobs reports whether choice i carries log probabilities: a
// logprobs object with a member that is not blank ({"content":null} and
// null say nothing).
func (c *chunk) logprobs(i int) bool {
	raw, ok := c.choices[i]["logprobs"]
	if !ok || blank(raw) {
		return false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil {
		return true // not OpenAI's object: still something a continuation would lose
	}
	for _, v := range m {
		if !blank(v) {
			return true
		}
	}
	return false
}

// finished reports whether choice i carries a finish_reason.
func (c *chunk) finished(i int) bool {
	raw, ok := c.choices[i]["finish_reason"]
	return ok && !isNull(raw)
}

// usage is the chunk's usage, nil when absent or null.
func (c *chunk) usage() (*provider.Usage, error) {
	raw, ok := c.top["usage"]
	if !ok || isNull(raw) {
		return nil, nil
	}
	var u provider.Usage
	if err := json.Unmarshal(raw, &u); err != nil {
		return nil, fmt.Errorf("splice: chunk usage: %w", err)
	}
	return &u, nil
}

// empty reports whether the chunk carries nothing for a client: no usage,
// and no choice with a finish reason or a delta member other than an empty
// content.
func (c *chunk) empty() bool {
	if raw, ok := c.top["usage"]; ok && !isNull(raw) {
		return false
	}
	for i := range c.choices {
		if c.finished(i) {
			return false
		}
		for _, v := range c.deltas[i] {
			if !blank(v) {
				return false
			}
		}
	}
	return true
}

// encode returns orig when nothing changed, else the chunk re-encoded.
func (c *chunk) encode(orig []byte) []byte {
	if !c.dirty {
		return orig
	}
	if c.top["choices"] != nil || len(c.choices) > 0 {
		for i, ch := range c.choices {
			if c.deltas[i] != nil {
				ch["delta"] = mustMarshal(c.deltas[i])
			}
		}
		c.top["choices"] = mustMarshal(c.choices)
	}
	return mustMarshal(c.top)
}

// mustMarshal encodes maps of raw JSON values read by encoding/json; they
// always encode.
func mustMarshal(v any) json.RawMessage {
	b, err := rawjson.Marshal(v)
	if err != nil {
		panic("splice: " + err.Error())
	}
	return b
}

package chat

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/rawjson"
)

// MaxParts is provider.MaxParts, for the doors, which translate chunks
// without the adapters' package.
const MaxParts = provider.MaxParts

// StreamChunk is what the doors that translate a stream
// (internal/door/messages, internal/door/responses) read of a canonical
// chat.completion.chunk (ReadStreamChunk): each door uses the members it
// needs and leaves the others.
type StreamChunk struct {
	ID      string         `json:"id"`
	Model   string         `json:"model"`
	Choices []StreamChoice `json:"choices"`
	Usage   *Usage         `json:"usage"`
}

// StreamChoice is one of a StreamChunk's choices. StopReason is vLLM's
// "stop_reason" (the stop string met, or a token id), as sent.
type StreamChoice struct {
	Index        int             `json:"index"`
	Delta        StreamDelta     `json:"delta"`
	FinishReason *string         `json:"finish_reason"`
	StopReason   json.RawMessage `json:"stop_reason"`
	// Usage is a choice's own count, where Moonshot's Kimi streams it (in
	// the finishing chunk's choices[0].usage, not beside the choices):
	// Reported reads it.
	Usage *Usage `json:"usage"`
}

// Reported is the usage c reports: its own, else the first its choices
// carry (StreamChoice.Usage); nil when none.
func (c *StreamChunk) Reported() *Usage {
	if c.Usage != nil {
		return c.Usage
	}
	for i := range c.Choices {
		if u := c.Choices[i].Usage; u != nil {
			return u
		}
	}
	return nil
}

// StreamDelta is a choice's delta: what it says (Said, embedded as in the
// messages door's whole answer) and its tool call pieces.
type StreamDelta struct {
	Said
	ToolCalls []ToolCallDelta `json:"tool_calls"`
}

// Said is what a delta (or a whole answer's message) says: its text, its
// refusal and its reasoning, reasoning_content as DeepSeek and vLLM name
// it, reasoning as OpenRouter does. nil for a member absent or null.
type Said struct {
	Content          *string `json:"content"`
	Refusal          *string `json:"refusal"`
	ReasoningContent *string `json:"reasoning_content"`
	Reasoning        *string `json:"reasoning"`
}

// Thinking is the reasoning text s carries: reasoning_content where it is
// set and not empty, else reasoning; "" when neither.
func (s *Said) Thinking() string {
	if s.ReasoningContent != nil && *s.ReasoningContent != "" {
		return *s.ReasoningContent
	}
	if s.Reasoning != nil {
		return *s.Reasoning
	}
	return ""
}

// ReadStreamChunk reads a canonical chunk into c exactly as json.Unmarshal
// does into a zero StreamChunk, whatever c held. The shapes adapters and
// OpenAI-compatible upstreams send are read by a scan (scanStreamChunk),
// one flat frame per level of nesting: json.Unmarshal took ~0.9 KiB of
// stack a level, which grew every translated stream's handler stack to
// 16 KiB (docs/benchmarks.md, "Round 6: the doors"). Any other shape goes
// to json.Unmarshal, which defines the behaviour.
//
// A stream's chunks all carry one id: a caller that reads every chunk into
// the same c keeps the previous c.ID when the chunk's id is the same
// string, instead of a new copy each chunk.
func ReadStreamChunk(data []byte, c *StreamChunk) error {
	c.reset()
	if scanStreamChunk(data, c) {
		return nil
	}
	*c = StreamChunk{}
	return json.Unmarshal(data, c)
}

// Member names scanStreamChunk reads, per level; Members and the readers
// in read.go say which shapes they leave to json.Unmarshal.
var (
	chunkNames  = []string{"id", "model", "choices", "usage"}
	choiceNames = []string{"index", "delta", "finish_reason", "stop_reason", "usage"}
	deltaNames  = []string{"content", "refusal", "reasoning_content", "reasoning", "tool_calls"}
)

// scanStreamChunk reads data into c, zero but for the previous chunk's id,
// as json.Unmarshal would into a zero StreamChunk and reports true, or
// reports false (c partly read) for a shape it leaves to json.Unmarshal.
// An id that is the previous one, unescaped, keeps it.
func scanStreamChunk(data []byte, c *StreamChunk) bool {
	if !rawjson.Check(data, nil, nil) { // json.Valid's verdict
		return false
	}
	m := MembersOf(data, chunkNames)
	for i, v, ok := m.Next(); ok; i, v, ok = m.Next() {
		var sure bool
		switch i {
		case 0:
			sure = readID(&c.ID, v)
		case 1:
			sure = SetString(&c.Model, v)
		case 2:
			c.Choices, sure = scanChoices(v)
		case 3:
			c.Usage, sure = ReadUsage(v)
		}
		if !sure {
			return false
		}
	}
	if m.seen&1 == 0 { // no id: the previous one goes
		c.ID = ""
	}
	return m.Sure()
}

// reset zeroes c but for its id, which the scan reads over (readID).
//
//go:noinline (its temporaries would grow its caller's frame, on the relay's stack)
func (c *StreamChunk) reset() { *c = StreamChunk{ID: c.ID} }

// readID reads the JSON string v (or null: "") into *id, keeping *id when
// v is the same string by its bytes alone: no escape, valid UTF-8
// (json.Unmarshal would replace invalid bytes), the same bytes.
//
//go:noinline (inlined, it grows scanStreamChunk's frame, on the relay's stack)
func readID(id *string, v []byte) bool {
	s := *id
	if len(v) == len(s)+2 && v[0] == '"' && string(v[1:len(v)-1]) == s &&
		!strings.Contains(s, `\`) && utf8.ValidString(s) {
		return true
	}
	*id = ""
	return SetString(id, v)
}

func scanChoices(v []byte) ([]StreamChoice, bool) {
	if isNull(v) {
		return nil, true
	}
	list, ok := rawjson.ScanArray(v)
	if !ok {
		return nil, false
	}
	choices := []StreamChoice{} // [] is an empty slice, not nil, as json.Unmarshal makes it
	for _, el, ok := list.Next(); ok; _, el, ok = list.Next() {
		choices = append(choices, StreamChoice{})
		if !choices[len(choices)-1].read(el) {
			return nil, false // a null choice among them: left to json.Unmarshal
		}
	}
	return choices, true
}

func (ch *StreamChoice) read(v []byte) bool {
	m := MembersOf(v, choiceNames)
	for i, v, ok := m.Next(); ok; i, v, ok = m.Next() {
		sure := true
		switch i {
		case 0:
			sure = SetInt(&ch.Index, v)
		case 1:
			sure = isNull(v) || ch.Delta.read(v)
		case 2:
			ch.FinishReason, sure = StringPtr(v)
		case 3:
			ch.StopReason = append(json.RawMessage(nil), v...) // null too: json.RawMessage takes any value as it is
		case 4:
			ch.Usage, sure = ReadUsage(v)
		}
		if !sure {
			return false
		}
	}
	return m.Sure()
}

func (d *StreamDelta) read(v []byte) bool {
	m := MembersOf(v, deltaNames)
	for i, v, ok := m.Next(); ok; i, v, ok = m.Next() {
		var sure bool
		switch i {
		case 0:
			d.Content, sure = StringPtr(v)
		case 1:
			d.Refusal, sure = StringPtr(v)
		case 2:
			d.ReasoningContent, sure = StringPtr(v)
		case 3:
			d.Reasoning, sure = StringPtr(v)
		case 4:
			d.ToolCalls, sure = ReadToolCalls(v)
		}
		if !sure {
			return false
		}
	}
	return m.Sure()
}

package messages

import (
	"encoding/json"

	"github.com/detour-llm/detour/internal/provider/chat"
	"github.com/detour-llm/detour/internal/rawjson"
)

// readChunk reads a canonical chunk into c exactly as json.Unmarshal does.
// The shapes adapters and OpenAI-compatible upstreams send are read by a
// scan (scanChunk), one flat frame per level of nesting: json.Unmarshal
// took ~0.9 KiB of stack a level, which grew every translated stream's
// handler stack to 16 KiB (docs/benchmarks.md, "Round 6: the doors"). Any
// other shape goes to json.Unmarshal, which defines the behaviour.
func readChunk(data []byte, c *streamChunk) error {
	if scanChunk(data, c) {
		return nil
	}
	*c = streamChunk{}
	return json.Unmarshal(data, c)
}

// Member names scanChunk reads, per level; chat.Members and the chat
// readers say which shapes they leave to json.Unmarshal.
var (
	chunkNames  = []string{"id", "model", "choices", "usage"}
	choiceNames = []string{"index", "delta", "finish_reason", "stop_reason"}
	deltaNames  = []string{"content", "refusal", "reasoning_content", "reasoning", "tool_calls"}
)

// scanChunk reads data into c as json.Unmarshal would and reports true, or
// reports false (c partly read) for a shape it leaves to json.Unmarshal.
func scanChunk(data []byte, c *streamChunk) bool {
	if !rawjson.Check(data, nil, nil) { // json.Valid's verdict
		return false
	}
	m := chat.MembersOf(data, chunkNames)
	for i, v, ok := m.Next(); ok; i, v, ok = m.Next() {
		var sure bool
		switch i {
		case 0:
			sure = chat.SetString(&c.ID, v)
		case 1:
			sure = chat.SetString(&c.Model, v)
		case 2:
			c.Choices, sure = scanChoices(v)
		case 3:
			c.Usage, sure = chat.ReadUsage(v)
		}
		if !sure {
			return false
		}
	}
	return m.Sure()
}

func scanChoices(v []byte) ([]streamChoice, bool) {
	if string(v) == "null" {
		return nil, true
	}
	list, ok := rawjson.ScanArray(v)
	if !ok {
		return nil, false
	}
	choices := []streamChoice{} // [] is an empty slice, not nil, as json.Unmarshal makes it
	for _, el, ok := list.Next(); ok; _, el, ok = list.Next() {
		choices = append(choices, streamChoice{})
		if !choices[len(choices)-1].read(el) {
			return nil, false // a null choice among them: left to json.Unmarshal
		}
	}
	return choices, true
}

func (ch *streamChoice) read(v []byte) bool {
	m := chat.MembersOf(v, choiceNames)
	for i, v, ok := m.Next(); ok; i, v, ok = m.Next() {
		sure := true
		switch i {
		case 0:
			sure = chat.SetInt(&ch.Index, v)
		case 1:
			sure = string(v) == "null" || ch.Delta.read(v)
		case 2:
			ch.FinishReason, sure = chat.StringPtr(v)
		case 3:
			ch.StopReason = append(json.RawMessage(nil), v...) // null too: json.RawMessage takes any value as it is
		}
		if !sure {
			return false
		}
	}
	return m.Sure()
}

func (d *streamDelta) read(v []byte) bool {
	m := chat.MembersOf(v, deltaNames)
	for i, v, ok := m.Next(); ok; i, v, ok = m.Next() {
		var sure bool
		switch i {
		case 0:
			d.Content, sure = chat.StringPtr(v)
		case 1:
			d.Refusal, sure = chat.StringPtr(v)
		case 2:
			d.ReasoningContent, sure = chat.StringPtr(v)
		case 3:
			d.Reasoning, sure = chat.StringPtr(v)
		case 4:
			d.ToolCalls, sure = chat.ReadToolCalls(v)
		}
		if !sure {
			return false
		}
	}
	return m.Sure()
}

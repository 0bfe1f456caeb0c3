package chat

import (
	"encoding/json"
)

// The shapes below carry tool calls and usage as the upstream sent them
// (raw JSON), unlike Chunk: a whole answer turned into chunks keeps every
// member the upstream put in them.

// wholeAnswer is the part of a chat.completion that becomes chunks.
type wholeAnswer struct {
	ID      string          `json:"id"`
	Created int64           `json:"created"`
	Model   string          `json:"model"`
	Usage   json.RawMessage `json:"usage,omitempty"`
	Choices []struct {
		Index   int `json:"index"`
		Message struct {
			Role             string            `json:"role"`
			Content          *string           `json:"content"`
			Refusal          *string           `json:"refusal,omitempty"`
			ReasoningContent *string           `json:"reasoning_content,omitempty"`
			Reasoning        *string           `json:"reasoning,omitempty"`
			ToolCalls        []json.RawMessage `json:"tool_calls,omitempty"`
		} `json:"message"`
		FinishReason *string         `json:"finish_reason"`
		StopReason   json.RawMessage `json:"stop_reason,omitempty"`
	} `json:"choices"`
}

// rawChunk is one chat.completion.chunk with raw tool calls and usage.
type rawChunk struct {
	ID      string           `json:"id"`
	Object  string           `json:"object"`
	Created int64            `json:"created"`
	Model   string           `json:"model"`
	Choices []rawChunkChoice `json:"choices"`
	Usage   json.RawMessage  `json:"usage,omitempty"`
}

type rawChunkChoice struct {
	Index        int             `json:"index"`
	Delta        rawDelta        `json:"delta"`
	FinishReason *string         `json:"finish_reason"`
	StopReason   json.RawMessage `json:"stop_reason,omitempty"` // vLLM's matched stop string
}

type rawDelta struct {
	Role             string            `json:"role,omitempty"`
	ReasoningContent *string           `json:"reasoning_content,omitempty"`
	Reasoning        *string           `json:"reasoning,omitempty"`
	Content          *string           `json:"content,omitempty"`
	Refusal          *string           `json:"refusal,omitempty"`
	ToolCalls        []json.RawMessage `json:"tool_calls,omitempty"`
}

// WholeChunks turns a whole chat.completion into the chat.completion.chunk
// bodies a stream of it would have carried: per choice its reasoning
// (reasoning_content or reasoning, as the upstream named it) and content
// (tool calls indexed), then its finish reason (and vLLM's stop_reason);
// then the usage, when the answer had it (the last chunk; usage is then
// also returned, raw, for the caller's one reader of usage to read).
func WholeChunks(body []byte) (chunks [][]byte, usage json.RawMessage, err error) {
	var c wholeAnswer
	if err := json.Unmarshal(body, &c); err != nil {
		return nil, nil, err
	}
	var out [][]byte
	add := func(ch rawChunk) {
		ch.ID, ch.Object, ch.Created, ch.Model = c.ID, "chat.completion.chunk", c.Created, c.Model
		out = append(out, Marshal(ch))
	}
	for _, ch := range c.Choices {
		d := rawDelta{Role: "assistant", Content: ch.Message.Content, Refusal: ch.Message.Refusal,
			ReasoningContent: ch.Message.ReasoningContent, Reasoning: ch.Message.Reasoning}
		for i, tc := range ch.Message.ToolCalls {
			var m map[string]json.RawMessage
			if json.Unmarshal(tc, &m) == nil {
				m["index"] = Marshal(i)
				tc = Marshal(m)
			}
			d.ToolCalls = append(d.ToolCalls, tc)
		}
		add(rawChunk{Choices: []rawChunkChoice{{Index: ch.Index, Delta: d}}})
		add(rawChunk{Choices: []rawChunkChoice{{Index: ch.Index, FinishReason: ch.FinishReason, StopReason: ch.StopReason}}})
	}
	if len(c.Usage) > 0 && string(c.Usage) != "null" {
		add(rawChunk{Choices: []rawChunkChoice{}, Usage: c.Usage})
		usage = c.Usage
	}
	return out, usage, nil
}

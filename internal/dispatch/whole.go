package dispatch

import (
	"encoding/json"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/sse"
)

// completion is the part of an OpenAI chat.completion that becomes chunks.
type completion struct {
	ID      string          `json:"id"`
	Created int64           `json:"created"`
	Model   string          `json:"model"`
	Usage   json.RawMessage `json:"usage,omitempty"`
	Choices []struct {
		Index   int `json:"index"`
		Message struct {
			Role      string            `json:"role"`
			Content   *string           `json:"content"`
			Refusal   *string           `json:"refusal,omitempty"`
			ToolCalls []json.RawMessage `json:"tool_calls,omitempty"`
		} `json:"message"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
}

// chunkOf is one chat.completion.chunk.
type chunkOf struct {
	ID      string          `json:"id"`
	Object  string          `json:"object"`
	Created int64           `json:"created"`
	Model   string          `json:"model"`
	Choices []chunkChoice   `json:"choices"`
	Usage   json.RawMessage `json:"usage,omitempty"`
}

type chunkChoice struct {
	Index        int     `json:"index"`
	Delta        delta   `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

type delta struct {
	Role      string            `json:"role,omitempty"`
	Content   *string           `json:"content,omitempty"`
	Refusal   *string           `json:"refusal,omitempty"`
	ToolCalls []json.RawMessage `json:"tool_calls,omitempty"`
}

// wholeChunks turns a whole OpenAI answer into the chunks a stream of it
// would have carried: per choice its content (tool calls indexed), then its
// finish reason; then the usage, when the answer had it (the last chunk).
func wholeChunks(body []byte) ([][]byte, *provider.Usage, error) {
	var c completion
	if err := json.Unmarshal(body, &c); err != nil {
		return nil, nil, err
	}
	var out [][]byte
	add := func(ch chunkOf) {
		ch.ID, ch.Object, ch.Created, ch.Model = c.ID, "chat.completion.chunk", c.Created, c.Model
		b, _ := json.Marshal(ch)
		out = append(out, b)
	}
	for _, ch := range c.Choices {
		d := delta{Role: "assistant", Content: ch.Message.Content, Refusal: ch.Message.Refusal}
		for i, tc := range ch.Message.ToolCalls {
			var m map[string]json.RawMessage
			if json.Unmarshal(tc, &m) == nil {
				m["index"], _ = json.Marshal(i)
				tc, _ = json.Marshal(m)
			}
			d.ToolCalls = append(d.ToolCalls, tc)
		}
		add(chunkOf{Choices: []chunkChoice{{Index: ch.Index, Delta: d}}})
		add(chunkOf{Choices: []chunkChoice{{Index: ch.Index, FinishReason: ch.FinishReason}}})
	}
	var usage *provider.Usage
	if len(c.Usage) > 0 && string(c.Usage) != "null" {
		add(chunkOf{Choices: []chunkChoice{}, Usage: c.Usage})
		usage = new(provider.Usage)
		_ = json.Unmarshal(c.Usage, usage)
	}
	return out, usage, nil
}

// streamWhole sends a whole answer to a client that asked for a stream.
func (w *walk) streamWhole(e *endpointRT, body []byte, o *outcome) {
	chunks, usage, err := wholeChunks(body)
	if err != nil {
		o.failWith(classify.Verdict{Class: classify.ServerError, Evidence: "decode"}, "the upstream's answer could not be read: "+err.Error())
		return
	}
	o.usage = usage
	if usage != nil && !w.askedUsage() {
		chunks = chunks[:len(chunks)-1] // the usage chunk: the client did not ask for it
	}
	if !w.commit(e, nil, o) {
		return
	}
	for _, c := range chunks {
		if !w.write(o, c) {
			return
		}
	}
	o.ok = w.write(o, sse.Done)
}

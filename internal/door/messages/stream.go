package messages

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/detour-llm/detour/internal/provider/chat"
	"github.com/detour-llm/detour/internal/rawjson"
)

// Kinds of content block the encoder opens.
const (
	kindNone = iota
	kindText
	kindThinking
	kindTool
	kindSigned // a redacted_thinking block carrying a call's thought signature: opened and closed at once
)

// Encoder turns canonical chat.completion.chunk objects, fed one at a time
// as the adapters produce them, into Anthropic's Messages stream: complete
// SSE frames ("event: <type>\ndata: <json>\n\n") in Anthropic's order —
// message_start, then per content block content_block_start, its deltas
// (text_delta, thinking_delta, input_json_delta) and content_block_stop,
// then at End message_delta (stop_reason, stop_sequence, usage) and
// message_stop.
//
// message_start carries usage.input_tokens = InputTokens (0 unless the
// caller set an estimate): OpenAI-compatible upstreams report usage only in
// their last chunk. The real input_tokens, cache_read_input_tokens and
// output_tokens go in message_delta's usage, which Anthropic's SDKs read as
// the final count. message_delta waits for End because the usage chunk
// comes after the finish_reason chunk.
//
// Only choice 0 is read (the door never asks for n>1). An Encoder serves one
// stream and is not safe for concurrent use.
type Encoder struct {
	// Model names the model in message_start when the first chunk names
	// none.
	Model string
	// InputTokens is message_start's usage.input_tokens; set it (e.g. to
	// Estimate) before the first chunk, or leave it 0.
	InputTokens int

	started, ended bool
	id             string
	model          string
	next           int // index of the next content block
	open           int // index of the open block, when kind != kindNone
	kind           int
	calls          chat.Calls // the answer's tool calls, told apart
	tools          []int      // block index of each call
	finish         string
	stopRaw        json.RawMessage
	calledTools    bool
	refused        bool // a delta carried refusal text
	usage          *chat.Usage
	chunk          chat.StreamChunk // the chunk Chunk reads, kept so its id is copied once a stream
}

// NewEncoder returns an encoder whose message_start names model unless the
// first chunk names one.
func NewEncoder(model string) *Encoder { return &Encoder{Model: model} }

// Chunk translates one chat.completion.chunk JSON object into zero or more
// SSE frames. A chunk that is not JSON is an error and writes nothing; after
// End, chunks write nothing.
func (e *Encoder) Chunk(chunk []byte) ([]byte, error) {
	if e.ended {
		return nil, nil
	}
	c := &e.chunk
	if err := chat.ReadStreamChunk(chunk, c); err != nil {
		return nil, fmt.Errorf("messages: chunk: %w", err)
	}
	out := make([]byte, 0, 256)
	if !e.started {
		out = e.start(out, c.ID, c.Model)
	}
	if u := c.Reported(); u != nil {
		e.usage = u
	}
	for i := range c.Choices {
		ch := &c.Choices[i]
		if ch.Index != 0 {
			continue
		}
		d := (*said)(&ch.Delta.Said)
		if r := d.reasoning(); r != "" {
			out = e.ensure(out, kindThinking)
			out = e.delta(out, "thinking_delta", "thinking", r)
		}
		for _, t := range d.texts() {
			if t != nil && *t != "" {
				out = e.ensure(out, kindText)
				out = e.delta(out, "text_delta", "text", *t)
			}
		}
		e.refused = e.refused || d.refused()
		for _, tc := range ch.Delta.ToolCalls {
			out = e.tool(out, &tc)
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			e.finish, e.stopRaw = *ch.FinishReason, ch.StopReason
			out = e.closeBlock(out)
		}
	}
	return out, nil
}

// End closes the open block and writes message_delta and message_stop. It
// writes message_start first when no chunk came. Later calls write nothing.
func (e *Encoder) End() []byte {
	if e.ended {
		return nil
	}
	out := make([]byte, 0, 256)
	if !e.started {
		out = e.start(out, "", "")
	}
	out = e.closeBlock(out)
	e.ended = true
	reason, seq := StopReason(e.finish, e.stopRaw, e.calledTools, e.refused)
	u := anthropicUsage(e.usage)
	if e.usage == nil {
		u.InputTokens = e.InputTokens
	}
	type delta struct {
		StopReason   string  `json:"stop_reason"`
		StopSequence *string `json:"stop_sequence"`
	}
	out = frame(out, "message_delta", struct {
		Type  string `json:"type"`
		Delta delta  `json:"delta"`
		Usage Usage  `json:"usage"`
	}{"message_delta", delta{reason, seq}, u})
	return append(out, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"...)
}

func (e *Encoder) start(out []byte, id, model string) []byte {
	e.started = true
	e.id, e.model = id, model
	if e.id == "" {
		e.id = NewID()
	}
	if e.model == "" {
		e.model = e.Model
	}
	// Written by hand, byte for byte what json.Marshal of a Message with
	// these members writes (FuzzMessageStart): the encoder's
	// three levels of struct and its buffer's growth, at the stream's
	// commit point, took the handler's stack past 8 KiB now and then
	// (docs/benchmarks.md, "Round 6: the doors").
	out = append(out, "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":"...)
	out = rawjson.AppendString(out, e.id)
	out = append(out, `,"type":"message","role":"assistant","model":`...)
	out = rawjson.AppendString(out, e.model)
	out = append(out, `,"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":`...)
	out = strconv.AppendInt(out, int64(e.InputTokens), 10)
	return append(out, `,"output_tokens":0,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}}`+"\n\n"...)
}

// ensure opens a block of kind k unless one is open.
func (e *Encoder) ensure(out []byte, k int) []byte {
	if e.kind == k {
		return out
	}
	out = e.closeBlock(out)
	var b string
	if k == kindThinking {
		b = `{"type":"thinking","thinking":"","signature":""}`
	} else {
		b = `{"type":"text","text":""}`
	}
	return e.openBlock(out, k, b)
}

func (e *Encoder) openBlock(out []byte, k int, block string) []byte {
	e.kind, e.open = k, e.next
	e.next++
	out = append(out, "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":"...)
	out = strconv.AppendInt(out, int64(e.open), 10)
	out = append(out, ",\"content_block\":"...)
	out = append(out, block...)
	return append(out, "}\n\n"...)
}

func (e *Encoder) closeBlock(out []byte) []byte {
	if e.kind == kindNone {
		return out
	}
	if e.kind == kindThinking {
		// As Anthropic's own stream does, the signature last: the AI
		// SDK keeps a thinking block to hand back only when one came
		// (ReasoningSignature).
		out = e.delta(out, "signature_delta", "signature", ReasoningSignature)
	}
	e.kind = kindNone
	out = append(out, "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":"...)
	out = strconv.AppendInt(out, int64(e.open), 10)
	return append(out, "}\n\n"...)
}

// tool opens a tool_use block for a tool call's first piece and sends its
// argument pieces as input_json_delta. A piece for a call whose block was
// closed (upstreams that interleave parallel calls) still names that
// block's index, which Anthropic's SDK accumulators append by. Parallel
// calls an upstream sent at one index are told apart (chat.Calls).
func (e *Encoder) tool(out []byte, tc *chat.ToolCallDelta) []byte {
	call, opens, ok := e.calls.Of(tc)
	if !ok {
		return out // more tool calls than any answer makes: dropped
	}
	if opens {
		out = e.closeBlock(out)
		if sig := chat.TaggedSignature(tc.ExtraContent); sig != "" {
			// The call's thought signature, in a block of its own before
			// it, as Answer places it.
			b, _ := json.Marshal(Block{Type: "redacted_thinking", Data: sig})
			out = e.openBlock(out, kindSigned, string(b))
			out = e.closeBlock(out)
		}
		id := tc.ID
		if id == "" {
			id = NewToolID()
		} else {
			id = chat.AnthropicToolID(id) // the client hands it back, maybe to Claude itself
		}
		b, _ := json.Marshal(Block{Type: "tool_use", ID: id, Name: tc.Function.Name, Input: json.RawMessage("{}")})
		out = e.openBlock(out, kindTool, string(b))
		e.tools = append(e.tools, e.open)
		e.calledTools = true
	}
	blk := e.tools[call]
	if tc.Function.Arguments == "" {
		return out
	}
	return e.deltaAt(out, blk, "input_json_delta", "partial_json", tc.Function.Arguments)
}

func (e *Encoder) delta(out []byte, typ, key, text string) []byte {
	return e.deltaAt(out, e.open, typ, key, text)
}

func (e *Encoder) deltaAt(out []byte, index int, typ, key, text string) []byte {
	out = append(out, "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":"...)
	out = strconv.AppendInt(out, int64(index), 10)
	out = append(out, ",\"delta\":{\"type\":\""...)
	out = append(out, typ...)
	out = append(out, "\",\""...)
	out = append(out, key...)
	out = append(out, "\":"...)
	out = rawjson.AppendString(out, text) // as json.Marshal writes it, without its reflection
	return append(out, "}}\n\n"...)
}

// frame appends one SSE frame whose data is v as JSON.
func frame(out []byte, event string, v any) []byte {
	b, _ := json.Marshal(v)
	out = append(out, "event: "...)
	out = append(out, event...)
	out = append(out, "\ndata: "...)
	out = append(out, b...)
	return append(out, "\n\n"...)
}

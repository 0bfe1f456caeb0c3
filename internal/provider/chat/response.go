package chat

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"

	"github.com/detour-llm/detour/internal/provider"
)

// Completion is an OpenAI chat.completion body.
type Completion struct {
	ID      string          `json:"id"`
	Object  string          `json:"object"`
	Created int64           `json:"created"`
	Model   string          `json:"model"`
	Choices []Choice        `json:"choices"`
	Usage   *provider.Usage `json:"usage,omitempty"`
}

// Choice is one choice of a Completion.
type Choice struct {
	Index        int             `json:"index"`
	Message      ResponseMessage `json:"message"`
	FinishReason string          `json:"finish_reason"`
}

// ResponseMessage is an answer's message. Content is null when the model only
// called tools, as OpenAI sends it.
type ResponseMessage struct {
	Role      string     `json:"role"`
	Content   *string    `json:"content"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Images are the images the model made, each an image_url Part with a
	// data: URL, where OpenRouter's chat answers carry them (chat has no
	// member of its own for them): a Gemini image model's inlineData.
	Images []Part `json:"images,omitempty"`
}

// Chunk is an OpenAI chat.completion.chunk body.
type Chunk struct {
	ID      string          `json:"id"`
	Object  string          `json:"object"`
	Created int64           `json:"created"`
	Model   string          `json:"model"`
	Choices []ChunkChoice   `json:"choices"`
	Usage   *provider.Usage `json:"usage,omitempty"`
}

// UsageChunk is the chunk OpenAI sends last when a stream's request asks
// for usage (stream_options.include_usage): no choices (an empty list,
// never null), and the usage of the whole answer. The adapters that
// translate a stream send it after the finish; dispatch keeps it from a
// client that did not ask.
func UsageChunk(id string, created int64, model string, u *provider.Usage) Chunk {
	return Chunk{ID: id, Object: "chat.completion.chunk", Created: created, Model: model, Choices: []ChunkChoice{}, Usage: u}
}

// ChunkChoice is one choice of a Chunk. FinishReason is null until the last
// chunk of that choice.
type ChunkChoice struct {
	Index        int     `json:"index"`
	Delta        Delta   `json:"delta"`
	FinishReason *string `json:"finish_reason"`
}

// Delta is what one chunk adds to a choice.
type Delta struct {
	Role      string          `json:"role,omitempty"`
	Content   *string         `json:"content,omitempty"`
	ToolCalls []ToolCallDelta `json:"tool_calls,omitempty"`
	Images    []Part          `json:"images,omitempty"` // as ResponseMessage.Images
}

// ToolCallDelta is a streamed piece of a tool call: the first piece carries
// ID, Type and Name; later pieces append to Arguments.
type ToolCallDelta struct {
	Index    int               `json:"index"`
	ID       string            `json:"id,omitempty"`
	Type     string            `json:"type,omitempty"`
	Function FunctionCallDelta `json:"function"`
	// ExtraContent is ToolCall's, on the call's first piece.
	ExtraContent json.RawMessage `json:"extra_content,omitempty"`
}

// FunctionCallDelta is the function part of a ToolCallDelta.
type FunctionCallDelta struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

// Marshal encodes v; the structs above always encode.
func Marshal(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("chat: " + err.Error())
	}
	return b
}

// NewID returns "chatcmpl-" and 24 random hex digits, for answers whose
// upstream gives no id.
func NewID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "chatcmpl-" + hex.EncodeToString(b[:])
}

// Ptr returns a pointer to a copy of v.
func Ptr[T any](v T) *T { return &v }

// Finish reasons OpenAI clients know.
const (
	FinishStop          = "stop"
	FinishLength        = "length"
	FinishToolCalls     = "tool_calls"
	FinishContentFilter = "content_filter"
)

// Usage is canonical usage as the doors read it from a completion or a
// chunk: OpenAI's counts (provider.Usage, cached prompt tokens included)
// and the reasoning tokens among the completion tokens (0 when not said).
type Usage struct {
	provider.Usage
	CompletionTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"completion_tokens_details"`
}

// UnmarshalJSON reads u with its counts whole (provider.WholeCounts): a
// chunk whose usage says "completion_tokens": 37.25 failed to read, and a
// door lost its finish with it (review 52).
func (u *Usage) UnmarshalJSON(b []byte) error {
	type plain Usage
	return json.Unmarshal(provider.WholeCounts(b), (*plain)(u))
}

package responses

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"

	"github.com/detour-llm/detour/internal/provider/chat"
)

// Response is a Responses `response` object (openai-go responses.Response).
// Nullable members are json.RawMessage or pointers so they encode as null.
type Response struct {
	ID                 string          `json:"id"`
	Object             string          `json:"object"`
	CreatedAt          int64           `json:"created_at"`
	Status             string          `json:"status"`
	Error              *ResponseError  `json:"error"`
	IncompleteDetails  *Incomplete     `json:"incomplete_details"`
	Instructions       json.RawMessage `json:"instructions"`
	MaxOutputTokens    *int            `json:"max_output_tokens"`
	Model              string          `json:"model"`
	Output             outputItems     `json:"output"`
	ParallelToolCalls  bool            `json:"parallel_tool_calls"`
	PreviousResponseID *string         `json:"previous_response_id"`
	Reasoning          json.RawMessage `json:"reasoning"`
	Store              bool            `json:"store"`
	Temperature        *float64        `json:"temperature"`
	Text               json.RawMessage `json:"text"`
	ToolChoice         json.RawMessage `json:"tool_choice"`
	Tools              json.RawMessage `json:"tools"`
	TopP               *float64        `json:"top_p"`
	Truncation         string          `json:"truncation"`
	Usage              *Usage          `json:"usage"`
	User               *string         `json:"user"`
	Metadata           json.RawMessage `json:"metadata"`
}

// outputItems are a response's output items. It encodes each item on its
// own, and an item already JSON (a json.RawMessage: a stream's finished
// items) as it is, so that encoding a stream's response.completed nests
// no deeper than one item: encoding/json's encoder takes a frame or more
// per level on the handler's stack (docs/benchmarks.md, "Round 6: the
// doors"). The bytes are those encoding/json writes for a []any.
type outputItems []any

// MarshalJSON encodes the items.
func (o outputItems) MarshalJSON() ([]byte, error) {
	if o == nil {
		return []byte("null"), nil
	}
	b := []byte{'['}
	for i, it := range o {
		if i > 0 {
			b = append(b, ',')
		}
		raw, ok := it.(json.RawMessage)
		if !ok {
			var err error
			if raw, err = marshalPlain(it); err != nil {
				return nil, err
			}
		}
		b = append(b, raw...)
	}
	return append(b, ']'), nil
}

// ResponseError is a failed response's "error" (code and message).
type ResponseError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Incomplete is "incomplete_details": reason max_output_tokens or
// content_filter.
type Incomplete struct {
	Reason string `json:"reason"`
}

// Usage is the Responses usage object (openai-go responses.ResponseUsage).
type Usage struct {
	InputTokens        int `json:"input_tokens"`
	InputTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
		// CacheWriteTokens are the input written to the prompt cache
		// (Claude's cache writes, billed above plain input); 0 when none.
		CacheWriteTokens int `json:"cache_write_tokens"`
	} `json:"input_tokens_details"`
	OutputTokens        int `json:"output_tokens"`
	OutputTokensDetails struct {
		ReasoningTokens int `json:"reasoning_tokens"`
	} `json:"output_tokens_details"`
	TotalTokens int `json:"total_tokens"`
}

// MessageItem is an output message (openai-go ResponseOutputMessage).
type MessageItem struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Status  string `json:"status"`
	Role    string `json:"role"`
	Content []any  `json:"content"`
}

// TextPart is an output_text content part (ResponseOutputText).
type TextPart struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	Annotations []any  `json:"annotations"`
	Logprobs    []any  `json:"logprobs"`
}

// RefusalPart is a refusal content part (ResponseOutputRefusal).
type RefusalPart struct {
	Type    string `json:"type"`
	Refusal string `json:"refusal"`
}

// ReasoningItem is a reasoning output item (openai-go ResponseReasoningItem)
// holding an OpenAI-compatible model's reasoning text (reasoning_content)
// as one reasoning_text part, as vLLM's and Ollama's Responses APIs write
// an open model's reasoning: no summary, no encrypted content. Content is
// the last member (reasoningJSON splices it in).
type ReasoningItem struct {
	ID      string `json:"id"`
	Type    string `json:"type"`
	Status  string `json:"status"`
	Summary []any  `json:"summary"`
	// EncryptedContent is, on an item this door writes before a Gemini
	// call, the call's sealed thought signature, which clients hand back
	// with the item (docs/doors.md, "Gemini thought signatures").
	EncryptedContent string `json:"encrypted_content,omitempty"`
	Content          []any  `json:"content"`
}

// ReasoningPart is a reasoning_text content part.
type ReasoningPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

func newReasoning(status string) *ReasoningItem {
	return &ReasoningItem{ID: itemID("rs_"), Type: "reasoning", Status: status, Summary: []any{}, Content: []any{}}
}

// CallItem is a function_call output item (ResponseFunctionToolCall).
type CallItem struct {
	ID        string `json:"id"`
	Type      string `json:"type"`
	Status    string `json:"status"`
	Arguments string `json:"arguments"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	// Namespace is the namespace tool the function belongs to, when the
	// client sent it inside one (tools.go).
	Namespace string `json:"namespace,omitempty"`
}

func newText(s string) *TextPart {
	return &TextPart{Type: "output_text", Text: s, Annotations: []any{}, Logprobs: []any{}}
}

// newResponse starts a response object echoing e.
func newResponse(id string, created int64, model string, e *Echo) *Response {
	r := &Response{
		ID: id, Object: "response", CreatedAt: created, Status: "in_progress", Model: model,
		Output: []any{}, ParallelToolCalls: true, Instructions: e.Instructions, MaxOutputTokens: e.MaxOutputTokens,
		Reasoning: e.Reasoning, Temperature: e.Temperature, TopP: e.TopP, Truncation: "disabled",
		Text: e.Text, ToolChoice: e.ToolChoice, Tools: e.Tools, Metadata: e.Metadata,
	}
	if e.ParallelToolCalls != nil {
		r.ParallelToolCalls = *e.ParallelToolCalls
	}
	if e.User != "" {
		r.User = &e.User
	}
	if r.Text == nil {
		r.Text = json.RawMessage(`{"format":{"type":"text"}}`)
	}
	if r.ToolChoice == nil {
		r.ToolChoice = json.RawMessage(`"auto"`)
	}
	if r.Tools == nil {
		r.Tools = json.RawMessage(`[]`)
	}
	if r.Metadata == nil {
		r.Metadata = json.RawMessage(`{}`)
	}
	return r
}

// finish sets status and incomplete_details from a chat finish_reason:
// length → incomplete (max_output_tokens), content_filter → incomplete
// (content_filter), anything else → completed.
func (r *Response) finish(reason string) {
	switch reason {
	case "length":
		r.Status, r.IncompleteDetails = "incomplete", &Incomplete{Reason: "max_output_tokens"}
	case "content_filter":
		r.Status, r.IncompleteDetails = "incomplete", &Incomplete{Reason: "content_filter"}
	default:
		r.Status = "completed"
	}
}

// responsesUsage is canonical usage u in the Responses API's terms.
func responsesUsage(u *chat.Usage) *Usage {
	if u == nil {
		return nil
	}
	// A count below 0 is an upstream's nonsense, never told to the client
	// as it came (hostile review 51b).
	out := &Usage{InputTokens: max(u.PromptTokens, 0), OutputTokens: u.Output(), TotalTokens: max(u.TotalTokens, 0)}
	if out.TotalTokens == 0 {
		out.TotalTokens = out.InputTokens + out.OutputTokens
	}
	out.InputTokensDetails.CachedTokens = min(max(u.Cached(), 0), out.InputTokens)
	out.InputTokensDetails.CacheWriteTokens = max(u.CacheWrite(), 0)
	out.OutputTokensDetails.ReasoningTokens = min(max(u.CompletionTokensDetails.ReasoningTokens, 0), out.OutputTokens)
	return out
}

// completion is the part of a canonical chat.completion the door reads.
type completion struct {
	Created int64  `json:"created"`
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			chat.Said
			ToolCalls []chat.ToolCall `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *chat.Usage `json:"usage"`
}

// FromCompletion turns a canonical chat.completion body into a Responses
// `response` object body. Only the first choice is read (Responses has no
// "n"); its reasoning text becomes a reasoning item, its text one message
// item with one output_text part (a refusal becomes a refusal part), each
// tool call a function_call item. created is used when the completion has
// none.
func FromCompletion(body []byte, e *Echo, created int64) ([]byte, error) {
	var c completion
	if err := json.Unmarshal(body, &c); err != nil {
		return nil, err
	}
	if len(c.Choices) == 0 {
		return nil, errors.New("responses: completion has no choices")
	}
	if c.Created != 0 {
		created = c.Created
	}
	if e == nil {
		e = &Echo{}
	}
	r := newResponse(NewID(), created, c.Model, e)
	ch := c.Choices[0]
	if t := ch.Message.Thinking(); t != "" {
		it := newReasoning("completed")
		it.Content = append(it.Content, &ReasoningPart{Type: "reasoning_text", Text: t})
		r.Output = append(r.Output, it)
	}
	var content []any
	if m := ch.Message; m.Content != nil && *m.Content != "" {
		content = append(content, newText(*m.Content))
	}
	if m := ch.Message; m.Refusal != nil && *m.Refusal != "" {
		content = append(content, &RefusalPart{Type: "refusal", Refusal: *m.Refusal})
	}
	if content != nil {
		r.Output = append(r.Output, &MessageItem{ID: itemID("msg_"), Type: "message", Status: "completed", Role: "assistant", Content: content})
	}
	for _, tc := range ch.Message.ToolCalls {
		ns, name := e.clientName(tc.Function.Name)
		id := tc.ID
		if id == "" {
			id = NewCallID()
		}
		if sig := chat.TaggedSignature(tc.ExtraContent); sig != "" {
			it := newReasoning("completed")
			it.EncryptedContent = sig
			r.Output = append(r.Output, it)
		}
		r.Output = append(r.Output, &CallItem{ID: itemID("fc_"), Type: "function_call", Status: "completed",
			Arguments: tc.Function.Arguments, CallID: id, Name: name, Namespace: ns})
	}
	r.finish(ch.FinishReason)
	if r.Status == "incomplete" && len(r.Output) > 0 { // the last item was being written when the limit or filter cut it
		switch it := r.Output[len(r.Output)-1].(type) {
		case *MessageItem:
			it.Status = "incomplete"
		case *CallItem:
			it.Status = "incomplete"
		case *ReasoningItem:
			it.Status = "incomplete"
		}
	}
	r.Usage = responsesUsage(c.Usage)
	return marshalPlain(r)
}

// marshalPlain is json.Marshal without its HTML escaping: <, > and & are
// written as they are, as OpenAI writes them, not as six bytes each
// (hostile 53b: a whole answer of '<' grew sixfold in translation, 60 MiB
// into 360).
func marshalPlain(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// NewID returns "resp_" and 32 random hex digits.
func NewID() string { return itemID("resp_") }

// NewCallID is a call_id for a tool call the upstream gave none: the
// client matches each function_call_output to its call by it, and sends
// it back (a function_call_output without one is refused), so two calls
// must never share "" (review 32d).
func NewCallID() string { return itemID("call_") }

func itemID(prefix string) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// Envelope is the OpenAI error envelope
// {"error":{"message","type","code","param"}}, the same one the chat door
// writes (internal/server writeError); it lives here until the server
// shares one envelope function with every OpenAI-shaped door. An empty
// param encodes as null.
func Envelope(kind, code, message, param string) []byte {
	var p *string
	if param != "" {
		p = &param
	}
	b, _ := json.Marshal(struct {
		Error struct {
			Message string  `json:"message"`
			Type    string  `json:"type"`
			Code    string  `json:"code"`
			Param   *string `json:"param"`
		} `json:"error"`
	}{Error: struct {
		Message string  `json:"message"`
		Type    string  `json:"type"`
		Code    string  `json:"code"`
		Param   *string `json:"param"`
	}{message, kind, code, p}})
	return b
}

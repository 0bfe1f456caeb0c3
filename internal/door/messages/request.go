package messages

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/detour-llm/detour/internal/provider/chat"
	"github.com/detour-llm/detour/internal/rawjson"
)

// Error is a Messages request the door cannot translate. The server answers
// it with 400 and invalid_request_error in Anthropic's envelope, naming
// Field as Anthropic does ("messages.1.content.0.source: …").
type Error struct {
	// Field is the dotted path of the offending member ("" for the body).
	Field string
	// Message says what is wrong with it.
	Message string
	// Unsupported is set for valid Messages input that only an Anthropic
	// target can honour (server tools, documents, MCP servers…): a route
	// whose target is Anthropic can still pass the body through.
	Unsupported bool
	// Code, when set, is an error code Anthropic gives the same refusal
	// (its envelope's error.details.error_code), which clients act on.
	Code string
}

// ErrorCode is the refusal's code (Code), which a failure of the request
// carries to the client (dispatch.Native.Untranslated).
func (e *Error) ErrorCode() string { return e.Code }

func (e *Error) Error() string {
	if e.Field == "" {
		return e.Message
	}
	return e.Field + ": " + e.Message
}

func invalid(field, format string, args ...any) *Error {
	return &Error{Field: field, Message: fmt.Sprintf(format, args...)}
}

// unsupported refuses what only an Anthropic target can serve: what names
// it ("\"document\" blocks").
func unsupported(field, what string, args ...any) *Error {
	return &Error{Field: field, Message: fmt.Sprintf(what, args...) +
		" cannot be translated for a non-Anthropic target (only an Anthropic target can serve this request)",
		Unsupported: true}
}

// Translated is a Messages request in the canonical form.
type Translated struct {
	// Model is the client's "model" (a route or target name).
	Model string
	// Stream is the client's "stream" flag.
	Stream bool
	// Body is the canonical OpenAI Chat Completions JSON; nil on error.
	Body []byte
	// InputTokens is Estimate of the request, for a stream's message_start
	// (set only when Stream is; 0 when it cannot be estimated).
	InputTokens int
}

// inRequest is the Messages request body as the door reads it. Members it
// does not name are dropped (see doc.go).
type inRequest struct {
	Model         *string         `json:"model"`
	Messages      []inMessage     `json:"messages"`
	MaxTokens     *int            `json:"max_tokens"`
	System        json.RawMessage `json:"system"`
	Metadata      *inMetadata     `json:"metadata"`
	StopSequences []string        `json:"stop_sequences"`
	Stream        *bool           `json:"stream"`
	Temperature   *float64        `json:"temperature"`
	TopP          *float64        `json:"top_p"`
	TopK          *int            `json:"top_k"`
	Tools         []inTool        `json:"tools"`
	ToolChoice    *inToolChoice   `json:"tool_choice"`
	Thinking      json.RawMessage `json:"thinking"`
	ServiceTier   *string         `json:"service_tier"`
	Container     json.RawMessage `json:"container"`
	MCPServers    json.RawMessage `json:"mcp_servers"`
	// Thread is a server-side conversation at Anthropic ("create", or
	// "continue" with previous_message_id and only the new turns), which
	// the Anthropic SDK's tool runner uses: refused, since only Anthropic
	// holds the turns (docs/doors.md).
	Thread json.RawMessage `json:"thread"`
	// Compaction makes the request a compaction request: Anthropic answers
	// a summary of the conversation (a compaction block), not a turn.
	Compaction        json.RawMessage `json:"compaction"`
	ContextManagement json.RawMessage `json:"context_management"`
	OutputFormat      json.RawMessage `json:"output_format"`
	OutputConfig      *inOutputConfig `json:"output_config"`
}

type inMetadata struct {
	UserID *string `json:"user_id"`
}

type inOutputConfig struct {
	Format json.RawMessage `json:"format"`
}

type inMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	// ClearAt limits a system message to its turn (midsystem.go).
	ClearAt json.RawMessage `json:"clear_at"`
}

// inBlock is any content block; only the members of its type are read.
type inBlock struct {
	Type      string          `json:"type"`
	Text      *string         `json:"text"`
	Source    *inSource       `json:"source"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	Thinking  *string         `json:"thinking"`
	Signature *string         `json:"signature"` // a thinking block's
	ToolName  string          `json:"tool_name"` // a tool_reference block's
	Tool      json.RawMessage `json:"tool"`      // a tool_addition or tool_removal block's
	Title     string          `json:"title"`     // a document block's
	// Citations is a document block's; a pointer, as the rarest member,
	// so that a block stays no larger than it was before Signature came:
	// the translation's allocation per tiny block is held to its
	// reservation (TestTranslationCostBoundsTheTranslation).
	Citations *json.RawMessage `json:"citations"`
	// Data is a redacted_thinking block's; a pointer too (224 bytes, the
	// size class the block had).
	Data *string `json:"data"`
}

type inSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
	URL       string `json:"url"`
	// str: the source was a JSON string, as a search_result block names
	// its source (a URL). Only the blocks that read a source object judge
	// it (image: turns.go); another block's type decides (review 47p: a
	// search_result was refused as malformed before any target was tried).
	str bool
}

// UnmarshalJSON reads a source object, or a string as no object (str),
// kept in URL (a search_result's source names where its passage came from).
func (s *inSource) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		*s = inSource{str: true}
		return json.Unmarshal(b, &s.URL)
	}
	type plain inSource
	return json.Unmarshal(b, (*plain)(s))
}

type inTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type inToolChoice struct {
	Type                   string `json:"type"`
	Name                   string `json:"name"`
	DisableParallelToolUse bool   `json:"disable_parallel_tool_use"`
}

// outRequest is the canonical Chat Completions request the door writes.
type outRequest struct {
	Model               string              `json:"model"`
	Messages            []outMessage        `json:"messages"`
	MaxCompletionTokens *int                `json:"max_completion_tokens,omitempty"`
	Temperature         *float64            `json:"temperature,omitempty"`
	TopP                *float64            `json:"top_p,omitempty"`
	Stop                []string            `json:"stop,omitempty"`
	Stream              bool                `json:"stream,omitempty"`
	StreamOptions       *chat.StreamOptions `json:"stream_options,omitempty"`
	Tools               []chat.Tool         `json:"tools,omitempty"`
	ToolChoice          any                 `json:"tool_choice,omitempty"`
	ParallelToolCalls   *bool               `json:"parallel_tool_calls,omitempty"`
	User                string              `json:"user,omitempty"`
	ResponseFormat      *outFormat          `json:"response_format,omitempty"`
}

// outMessage is one canonical message. Content is a string, a list of
// chat.Part, or nil (an assistant turn that only calls tools).
type outMessage struct {
	Role       string          `json:"role"`
	Content    any             `json:"content"`
	ToolCalls  []chat.ToolCall `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
	// ReasoningContent is an assistant turn's reasoning as an
	// OpenAI-compatible reasoning model wrote it (DeepSeek's and Kimi's
	// reasoning_content), handed back as the unsigned thinking block this
	// door showed it as (assistant).
	ReasoningContent string `json:"reasoning_content,omitempty"`
}

// Translate reads a Messages request body and returns it in the canonical
// form. An *Error names the field at fault; Model and Stream are set
// whenever they could be read, so a server can still pass an Unsupported
// request through to an Anthropic target.
func Translate(body []byte) (Translated, error) {
	var in inRequest
	if err := json.Unmarshal(body, &in); err != nil {
		return Translated{}, locate(body, err)
	}
	var t Translated
	if in.Model != nil {
		t.Model = *in.Model
	}
	t.Stream = in.Stream != nil && *in.Stream
	if t.Stream { // from the one decode, before translate changes in
		t.InputTokens, _ = estimate(&in)
	}
	out, err := translate(&in)
	if err != nil {
		return t, err
	}
	t.Body, err = rawjson.Marshal(out)
	return t, err
}

func translate(in *inRequest) (*outRequest, error) {
	if in.Model == nil || *in.Model == "" {
		return nil, invalid("model", "Field required")
	}
	if in.MaxTokens == nil {
		return nil, invalid("max_tokens", "Field required")
	}
	if *in.MaxTokens < 0 {
		return nil, invalid("max_tokens", "must be at least 0")
	}
	if *in.MaxTokens == 0 {
		// Anthropic's way to fill its prompt cache without generating
		// (its Messages reference): only an Anthropic target does that
		// (review 62c: a route without one answered 400 "must be at least
		// 1" where a route holding Claude anywhere but first could serve it).
		return nil, unsupported("max_tokens", "max_tokens 0 (filling Anthropic's prompt cache without generating)")
	}
	if in.Messages == nil {
		return nil, invalid("messages", "Field required")
	}
	if len(in.Messages) == 0 {
		return nil, invalid("messages", "at least one message is required")
	}
	for _, f := range []struct {
		name string
		v    json.RawMessage
	}{{"container", in.Container}, {"mcp_servers", in.MCPServers}, {"thread", in.Thread},
		{"compaction", in.Compaction}} {
		if rawjson.Set(f.v) {
			e := unsupported(f.name, "%s", f.name)
			if f.name == "thread" {
				// Anthropic's own code for a request a thread cannot
				// serve: the SDKs' tool runners then send the whole
				// conversation without one (docs/doors.md, "Anthropic
				// Messages").
				e.Code = ThreadUnsupported
			}
			return nil, e
		}
	}
	format, err := responseFormat(in)
	if err != nil {
		return nil, err
	}
	out := &outRequest{
		Model:               *in.Model,
		Messages:            make([]outMessage, 0, len(in.Messages)+1),
		MaxCompletionTokens: outputLimit(*in.MaxTokens),
		Temperature:         in.Temperature,
		TopP:                in.TopP,
		Stop:                in.StopSequences,
		Stream:              in.Stream != nil && *in.Stream,
		ResponseFormat:      format,
	}
	if out.Stream {
		out.StreamOptions = &chat.StreamOptions{IncludeUsage: true}
	}
	if in.Metadata != nil && in.Metadata.UserID != nil {
		out.User = endUser(*in.Metadata.UserID)
	}
	sys, err := system(in.System)
	if err != nil {
		return nil, err
	}
	if sys != "" {
		out.Messages = append(out.Messages, outMessage{Role: "system", Content: sys})
	}
	var changes []toolChange // mid-conversation tool changes (midsystem.go)
	var last lastUsers
	for i := range in.Messages {
		ms, err := message(in.Messages, i, &changes, &last)
		if err != nil {
			return nil, err
		}
		out.Messages = append(out.Messages, ms...)
	}
	if err := tools(in, out, changes); err != nil {
		return nil, err
	}
	return out, nil
}

// decodeError turns a json error into an *Error naming the field.
func decodeError(prefix string, err error) *Error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		f := te.Field
		if prefix != "" {
			f = strings.TrimSuffix(prefix+"."+f, ".")
		}
		if f == "" {
			return invalid("", "request body: want a JSON object, got a JSON %s", te.Value)
		}
		return invalid(f, "want %s, got a JSON %s", jsonKind(te.Type.Kind().String()), te.Value)
	}
	if prefix == "" {
		return invalid("", "request body is not valid JSON: %v", err)
	}
	return invalid(prefix, "%v", err)
}

func jsonKind(k string) string {
	switch {
	case k == "string":
		return "a string"
	case k == "bool":
		return "a boolean"
	case strings.HasPrefix(k, "int"), strings.HasPrefix(k, "uint"):
		return "an integer"
	case strings.HasPrefix(k, "float"):
		return "a number"
	case k == "slice":
		return "a list"
	}
	return "an object"
}

// system reads "system": a string or a list of text blocks (cache_control
// and citations dropped), joined by newlines.
func system(raw json.RawMessage) (string, error) {
	if !rawjson.Set(raw) {
		return "", nil
	}
	blocks, s, err := content("system", raw)
	if err != nil {
		return "", err
	}
	if blocks == nil {
		return s, nil
	}
	texts := make([]string, 0, len(blocks))
	for j, b := range blocks {
		if b.Type != "text" || b.Text == nil {
			return "", invalid(fmt.Sprintf("system.%d", j), "want a text block")
		}
		if strings.HasPrefix(*b.Text, BillingHeaderPrefix) {
			continue // client bookkeeping, not prompt (see BillingHeaderPrefix)
		}
		texts = append(texts, *b.Text)
	}
	return strings.Join(texts, "\n"), nil
}

// content decodes a string-or-blocks member: blocks is nil for a string.
func content(field string, raw json.RawMessage) (blocks []inBlock, s string, err error) {
	raw = bytes.TrimSpace(raw)
	if !rawjson.Set(raw) {
		return nil, "", invalid(field, "Field required")
	}
	if raw[0] == '"' {
		// Read as json.Unmarshal reads it, without its second pass: tool
		// results are most of an agent's request (docs/benchmarks.md,
		// "Large requests").
		if s, ok := rawjson.String(raw); ok {
			return nil, s, nil
		}
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, "", decodeError(field, err)
		}
		return nil, s, nil
	}
	if raw[0] != '[' {
		return nil, "", invalid(field, "want a string or a list of content blocks")
	}
	if err := json.Unmarshal(raw, &blocks); err != nil {
		return nil, "", indexed(field, raw, err, func() any { return new(inBlock) })
	}
	if blocks == nil {
		blocks = []inBlock{}
	}
	return blocks, "", nil
}

// locate names the member of a top-level decoding error, list indexes
// included (encoding/json's path leaves them out): the lists are decoded
// again one element at a time, on this error path only.
func locate(body []byte, err error) *Error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		var lists struct {
			Messages json.RawMessage `json:"messages"`
			Tools    json.RawMessage `json:"tools"`
		}
		if json.Unmarshal(body, &lists) == nil {
			switch {
			case strings.HasPrefix(te.Field, "messages."):
				return indexed("messages", lists.Messages, err, func() any { return new(inMessage) })
			case strings.HasPrefix(te.Field, "tools."):
				return indexed("tools", lists.Tools, err, func() any { return new(inTool) })
			}
		}
	}
	return decodeError("", err)
}

// indexed finds the element of the JSON list raw that fails to decode into
// a fresh value from v and names it field.<index>; err is the error
// reported for the whole list.
func indexed(field string, raw json.RawMessage, err error, v func() any) *Error {
	var items []json.RawMessage
	if json.Unmarshal(raw, &items) != nil {
		return decodeError(field, err)
	}
	for i, it := range items {
		if e := json.Unmarshal(it, v()); e != nil {
			return decodeError(fmt.Sprintf("%s.%d", field, i), e)
		}
	}
	return decodeError(field, err)
}

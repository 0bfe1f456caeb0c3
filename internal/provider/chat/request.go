package chat

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/detour-llm/detour/internal/rawjson"

	"github.com/detour-llm/detour/internal/provider"
)

// Request is the part of an OpenAI chat-completions request the translating
// adapters understand. Members it does not name are ignored by them.
type Request struct {
	Model               string          `json:"model"`
	Messages            []Message       `json:"messages"`
	Tools               []Tool          `json:"tools"`
	ToolChoice          json.RawMessage `json:"tool_choice"`
	ParallelToolCalls   *bool           `json:"parallel_tool_calls"`
	MaxTokens           *int            `json:"max_tokens"`
	MaxCompletionTokens *int            `json:"max_completion_tokens"`
	Temperature         *float64        `json:"temperature"`
	TopP                *float64        `json:"top_p"`
	// TopK is the top_k the OpenAI-compatible servers and relays take
	// beside top_p (vLLM, OpenRouter, LiteLLM; chat UIs such as Open WebUI
	// and SillyTavern send it): kept raw, and read by TopKValue, so a
	// value of another shape is ignored as it was before it was read.
	TopK             json.RawMessage `json:"top_k"`
	PresencePenalty  *float64        `json:"presence_penalty"`
	FrequencyPenalty *float64        `json:"frequency_penalty"`
	Seed             *int64          `json:"seed"`
	N                *int            `json:"n"`
	Logprobs         *bool           `json:"logprobs"`
	TopLogprobs      *int            `json:"top_logprobs"`
	Stop             Stop            `json:"stop"`
	User             string          `json:"user"`
	// SafetyIdentifier is OpenAI's successor of User (the client's end
	// user, for abuse attribution); a translation prefers it.
	SafetyIdentifier string          `json:"safety_identifier"`
	ResponseFormat   *ResponseFormat `json:"response_format"`
	Stream           bool            `json:"stream"`
	// CacheControl at the root asks Claude to cache the prompt up to its
	// last block (Anthropic's automatic caching; OpenRouter's and
	// LiteLLM's chat APIs carry it so).
	CacheControl *CacheControl `json:"cache_control"`
	// PromptCacheKey is OpenAI's key to route a prompt to its cache: a
	// client that sets it wants its prompt cached, which a Claude
	// translation asks as the root cache_control above does. Raw: a value
	// of another type refuses nothing (WantsCache).
	PromptCacheKey json.RawMessage `json:"prompt_cache_key"`

	// Members that ask for an answer the translations cannot give
	// (Unanswerable reads them).
	Functions        []json.RawMessage `json:"functions"`
	Modalities       []string          `json:"modalities"`
	WebSearchOptions json.RawMessage   `json:"web_search_options"`
}

// Message is one entry of "messages". Content is kept raw: it is a string,
// an array of parts, or null; use Parts or Text to read it. The doors
// write it too: the members after Content are left out when empty.
type Message struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	Name       string          `json:"name,omitempty"`
	ToolCalls  []ToolCall      `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
	// Refusal is an assistant turn's refusal text, as openai-go's
	// ToParam and openai-python's model_dump hand back a refused answer
	// (often with content null). Translations send it as the assistant's
	// text so the model knows what it said; "" is no refusal.
	Refusal string `json:"refusal,omitempty"`
	// CacheControl is a prompt-cache breakpoint on the whole message
	// (@ai-sdk/openai-compatible writes a part's provider options there,
	// as opencode's marks for Claude): it marks the message's last block.
	CacheControl *CacheControl `json:"cache_control,omitempty"`
	// ReasoningContent is an assistant turn's reasoning text handed back
	// to the model that wrote it, as DeepSeek's and Kimi's thinking modes
	// require in a tool loop (docs/doors.md, "OpenAI Responses"). The
	// Anthropic and Gemini adapters do not send it (they take only their
	// own signed thinking back); "" is none.
	ReasoningContent string `json:"reasoning_content,omitempty"`
}

// Part is one content part: {"type":"text","text":…},
// {"type":"image_url","image_url":{"url":…}},
// {"type":"file","file":{"file_data":…,"filename":…}} or
// {"type":"input_audio","input_audio":{"data":…,"format":…}}. Other types
// are kept by Type only.
type Part struct {
	Type       string      `json:"type"`
	Text       string      `json:"text,omitempty"`
	ImageURL   *ImageURL   `json:"image_url,omitempty"`
	File       *File       `json:"file,omitempty"`
	InputAudio *InputAudio `json:"input_audio,omitempty"`
	// Refusal is the text of a {"type":"refusal"} part, which only an
	// assistant turn may hold.
	Refusal string `json:"refusal,omitempty"`
	// CacheControl is a prompt-cache breakpoint a client put on the part
	// (OpenRouter's and LiteLLM's convention for Claude, which Roo Code,
	// Aider, Cline and Open WebUI send): only a Claude translation reads it.
	CacheControl *CacheControl `json:"cache_control,omitempty"`
	// PromptCacheBreakpoint is OpenAI's own mark on the part (openai-go
	// v3.89, openai-node, the AI SDK): only a Claude translation reads it,
	// where the part has no cache_control.
	PromptCacheBreakpoint *CacheBreakpoint `json:"prompt_cache_breakpoint,omitempty"`
}

// CacheBreakpoint is OpenAI's prompt_cache_breakpoint: Mode "explicit"
// (its only mode) and TTL, the least the cache is to live, "30m", "12h" or
// "" (the request's retention).
type CacheBreakpoint struct {
	Mode string `json:"mode"`
	TTL  string `json:"ttl,omitempty"`
}

// UnmarshalJSON reads a breakpoint in another shape as none (Mode ""), as
// CacheControl reads a mark: a mark never refuses a request.
func (c *CacheBreakpoint) UnmarshalJSON(b []byte) error {
	var v struct {
		Mode, TTL json.RawMessage
	}
	*c = CacheBreakpoint{}
	if json.Unmarshal(b, &v) != nil {
		return nil
	}
	if json.Unmarshal(v.Mode, &c.Mode) != nil {
		c.Mode = ""
	}
	if json.Unmarshal(v.TTL, &c.TTL) != nil {
		c.TTL = ""
	}
	return nil
}

// File is a file part's file: FileData a data: URL
// ("data:application/pdf;base64,…", OpenAI's PDF input), or FileID a file
// uploaded to OpenAI, which only OpenAI can read.
type File struct {
	FileData string `json:"file_data,omitempty"`
	FileID   string `json:"file_id,omitempty"`
	Filename string `json:"filename,omitempty"`
}

// InputAudio is an input_audio part's audio: base64 Data in Format "wav"
// or "mp3" (the formats Chat Completions takes).
type InputAudio struct {
	Data   string `json:"data"`
	Format string `json:"format"`
}

// CacheControl is a part's prompt-cache breakpoint, as Anthropic takes it:
// Type "ephemeral", TTL "5m", "1h" or "" (Anthropic's default, 5m).
type CacheControl struct {
	Type string `json:"type"`
	TTL  string `json:"ttl,omitempty"`
}

// UnmarshalJSON reads a mark in another shape (a ttl in seconds, a bare
// string, a list) as no mark: Type "", which no translation sends. Before
// marks were read such a request was served, its mark dropped; a mark must
// not now refuse it (review 41h).
func (c *CacheControl) UnmarshalJSON(b []byte) error {
	var v struct {
		Type, TTL json.RawMessage
	}
	*c = CacheControl{}
	if json.Unmarshal(b, &v) != nil {
		return nil
	}
	if json.Unmarshal(v.Type, &c.Type) != nil {
		c.Type = ""
	}
	if json.Unmarshal(v.TTL, &c.TTL) != nil {
		c.TTL = ""
	}
	return nil
}

// ImageURL is a part's image: an https URL or a data: URL.
type ImageURL struct {
	URL    string `json:"url"`
	Detail string `json:"detail,omitempty"`
}

// ToolCall is an assistant's function call, in requests and in answers.
type ToolCall struct {
	ID       string       `json:"id"`
	Type     string       `json:"type"`
	Function FunctionCall `json:"function"`
	// CacheControl is a prompt-cache breakpoint on this call, in an
	// assistant turn of history (opencode's mark on a turn that ends in a
	// call); never written in an answer.
	CacheControl *CacheControl `json:"cache_control,omitempty"`
	// ExtraContent is what a vendor asks the client to hand back with the
	// call on the next turn, as Gemini's OpenAI-compatible API writes it:
	// {"google":{"thought_signature":"…"}}. In an answer, the gemini
	// adapter's carried signature (docs/doors.md, "Gemini thought
	// signatures"); in a request, whatever the client sent, any JSON value.
	ExtraContent json.RawMessage `json:"extra_content,omitempty"`
}

// FunctionCall names a function and carries its arguments as a JSON string.
type FunctionCall struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Tool is one entry of "tools"; only type "function" is translated.
type Tool struct {
	Type     string   `json:"type"`
	Function Function `json:"function"`
}

// Function declares a callable function; Parameters is a JSON Schema.
// Strict is OpenAI's strict schema adherence (nil: not said). The doors
// write it too: the members after Name are left out when empty.
type Function struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters,omitempty"`
	Strict      *bool           `json:"strict,omitempty"`
}

// StreamOptions is "stream_options", as the doors ask a stream for its
// usage.
type StreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// ResponseFormat is "response_format": text, json_object or json_schema.
type ResponseFormat struct {
	Type       string `json:"type"`
	JSONSchema *struct {
		Name   string          `json:"name"`
		Schema json.RawMessage `json:"schema"`
		Strict *bool           `json:"strict"`
	} `json:"json_schema"`
}

// Stop is "stop": a string or a list of strings, decoded to a list.
type Stop []string

// UnmarshalJSON accepts a string, a list of strings, or null.
func (s *Stop) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	switch {
	case bytes.Equal(b, []byte("null")):
		*s = nil
		return nil
	case len(b) > 0 && b[0] == '"':
		var one string
		if err := json.Unmarshal(b, &one); err != nil {
			return err
		}
		*s = Stop{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return errors.New("stop: want a string or a list of strings")
	}
	*s = many
	return nil
}

// Parse decodes the client's body.
func Parse(req *provider.Request) (*Request, error) {
	var r Request
	if err := json.Unmarshal(req.Body, &r); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			// The member the client sent of another type, named as
			// the client wrote it, not as Go's decoder words it.
			return nil, fmt.Errorf("chat: %s: want %s, got %s", te.Field, jsonType(te.Type.Kind()), te.Value)
		}
		return nil, fmt.Errorf("chat: %w", err)
	}
	r.Stream = req.Stream
	return &r, nil
}

// Parts returns the message's content as parts: a string becomes one text
// part, null or absent becomes none.
func (m *Message) Parts() ([]Part, error) {
	c := bytes.TrimSpace(m.Content)
	if len(c) == 0 || bytes.Equal(c, []byte("null")) {
		return nil, nil
	}
	if c[0] == '"' {
		// A string read as json.Unmarshal reads it, without its second
		// pass over the bytes: tool results are most of an agent's
		// request (docs/benchmarks.md, "Large requests").
		s, ok := rawjson.String(c)
		if !ok {
			if err := json.Unmarshal(c, &s); err != nil {
				return nil, err
			}
		}
		return []Part{{Type: "text", Text: s}}, nil
	}
	var parts []Part
	if err := json.Unmarshal(c, &parts); err != nil {
		return nil, fmt.Errorf("chat: %s message content: want a string or a list of parts", m.Role)
	}
	return parts, nil
}

// Text returns the message's text parts joined with sep; other parts are
// dropped.
func (m *Message) Text(sep string) (string, error) {
	parts, err := m.Parts()
	if err != nil {
		return "", err
	}
	var texts []string
	for _, p := range parts {
		if p.Type == "text" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, sep), nil
}

// Arguments decodes a tool call's arguments string into a JSON object; an
// empty string is an empty object.
func Arguments(args string) (json.RawMessage, error) {
	a := strings.TrimSpace(args)
	if a == "" {
		return json.RawMessage("{}"), nil
	}
	if !json.Valid([]byte(a)) || a[0] != '{' {
		return nil, errors.New("chat: tool call arguments are not a JSON object")
	}
	return json.RawMessage(a), nil
}

// jsonType names a Go kind as the JSON value that decodes into it.
func jsonType(k reflect.Kind) string {
	switch k {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	}
	return "another type"
}

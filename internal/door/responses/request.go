package responses

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/detour-llm/detour/internal/provider/chat"
	"github.com/detour-llm/detour/internal/rawjson"
)

// Request is a translated /v1/responses request.
type Request struct {
	// Model is the client's "model" (a Detour route name).
	Model string
	// Stream is the client's "stream" flag.
	Stream bool
	// Chat is the canonical Chat Completions JSON body for the adapters.
	Chat []byte
	// CachePrompt: the request set a prompt_cache_key (Codex sends its
	// session's, the Agents SDK its own): the client wants its prompt
	// cached. Chat leaves the key out (an OpenAI-compatible server other
	// than OpenAI may refuse it); the caller tells a Claude target instead
	// (provider.Request.CachePrompt).
	CachePrompt bool
	// Echo holds the parameters the response object repeats.
	Echo Echo
	// Params names the client's member for a member of Chat, for an error
	// that names one (dispatch.Call.ClientParam).
	Params *Params
}

// Echo is what a Responses `response` object repeats of its request
// (instructions, tools, sampling settings, metadata...). The zero value
// echoes OpenAI's defaults.
type Echo struct {
	Instructions      json.RawMessage // a JSON string, or nil for null
	Metadata          json.RawMessage // an object, or nil for {}
	Tools             json.RawMessage // the client's tools, or nil for []
	ToolChoice        json.RawMessage // or nil for "auto"
	Text              json.RawMessage // or nil for {"format":{"type":"text"}}
	Reasoning         json.RawMessage // or nil for null
	Temperature       *float64
	TopP              *float64
	MaxOutputTokens   *int
	ParallelToolCalls *bool // nil echoes true, OpenAI's default
	User              string

	// names maps flattened namespace tools back to the client's names
	// (tools.go); nil when the request has none.
	names map[string]qualified
}

// Error is a request the door refuses. The server answers it with 400 in
// the OpenAI envelope (Envelope with type invalid_request_error).
type Error struct {
	// Param names the request member at fault.
	Param string
	// Code is the envelope's code: "unsupported_parameter" for members
	// Detour refuses by design, "invalid_value" for malformed ones.
	Code    string
	Message string
	// Stateful says the member needs stored state (store: true,
	// previous_response_id, ...): refused whatever the target, since
	// Detour keeps no responses.
	Stateful bool
}

func (e *Error) Error() string { return e.Message }

func unsupported(param, format string, a ...any) *Error {
	return &Error{Param: param, Code: "unsupported_parameter", Message: fmt.Sprintf(format, a...)}
}

func invalid(param, format string, a ...any) *Error {
	return &Error{Param: param, Code: "invalid_value", Message: fmt.Sprintf(format, a...)}
}

type wireRequest struct {
	Model              string          `json:"model"`
	Input              json.RawMessage `json:"input"`
	Instructions       json.RawMessage `json:"instructions"`
	Tools              json.RawMessage `json:"tools"`
	ToolChoice         json.RawMessage `json:"tool_choice"`
	MaxOutputTokens    *int            `json:"max_output_tokens"`
	Temperature        *float64        `json:"temperature"`
	TopP               *float64        `json:"top_p"`
	Reasoning          json.RawMessage `json:"reasoning"`
	Text               json.RawMessage `json:"text"`
	ParallelToolCalls  *bool           `json:"parallel_tool_calls"`
	Metadata           json.RawMessage `json:"metadata"`
	User               string          `json:"user"`
	SafetyIdentifier   string          `json:"safety_identifier"`
	Stream             bool            `json:"stream"`
	Store              *bool           `json:"store"`
	PreviousResponseID *string         `json:"previous_response_id"`
	Conversation       json.RawMessage `json:"conversation"`
	Background         *bool           `json:"background"`
	Prompt             json.RawMessage `json:"prompt"`
	Include            []string        `json:"include"`
	PromptCacheKey     json.RawMessage `json:"prompt_cache_key"`
	// Moderation asks OpenAI to score or block flagged input and output:
	// no translated target does either, so it is refused (docs/doors.md).
	Moderation json.RawMessage `json:"moderation"`
}

// chatRequest is the canonical body sent to the adapters
// (internal/provider/chat.Request reads it).
type chatRequest struct {
	Model               string              `json:"model"`
	Messages            []chat.Message      `json:"messages"`
	Tools               []chat.Tool         `json:"tools,omitempty"`
	ToolChoice          json.RawMessage     `json:"tool_choice,omitempty"`
	ParallelToolCalls   *bool               `json:"parallel_tool_calls,omitempty"`
	MaxCompletionTokens *int                `json:"max_completion_tokens,omitempty"`
	Temperature         *float64            `json:"temperature,omitempty"`
	TopP                *float64            `json:"top_p,omitempty"`
	ReasoningEffort     string              `json:"reasoning_effort,omitempty"`
	ResponseFormat      json.RawMessage     `json:"response_format,omitempty"`
	User                string              `json:"user,omitempty"`
	Stream              bool                `json:"stream,omitempty"`
	StreamOptions       *chat.StreamOptions `json:"stream_options,omitempty"`
}

// logprobsInclude is the include value asking for the answer's tokens'
// log-probabilities (top_logprobs alone returns none).
const logprobsInclude = "message.output_text.logprobs"

// Translate turns a /v1/responses body into canonical chat JSON. A refused
// or malformed request is an *Error. Its Params read the client's members
// only when an error asks (a second translation, which records them): a
// request that succeeds pays nothing for them.
func Translate(body []byte) (*Request, error) {
	r, err := translate(body, false)
	if err == nil {
		r.Params = &Params{body: body}
	}
	return r, err
}

// translate is Translate; with rec it also records, for each member of the
// chat body, the client's member it was made from (Request.Params).
func translate(body []byte, rec bool) (*Request, error) {
	var w wireRequest
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, invalid("", "request body: %v", err)
	}
	if err := refuseState(&w); err != nil {
		return nil, err
	}
	if slices.Contains(w.Include, logprobsInclude) {
		// Dropped, the answer's output_text would carry "logprobs": []
		// as OpenAI's does when none were asked for (docs/doors.md).
		return nil, unsupported("include", "include %q: a translated answer carries no log-probabilities (Detour does not translate them back); only a target that serves the Responses API itself (responses: true) can answer it", logprobsInclude)
	}
	if rawjson.Set(w.Moderation) {
		return nil, unsupported("moderation", "moderation is not supported: no translated target scores or blocks flagged input and output; only a target that serves the Responses API itself (responses: true) can answer it")
	}
	if rawjson.Set(w.Metadata) && bytes.TrimSpace(w.Metadata)[0] != '{' {
		// Echoed as is in the response, where the SDKs read a map.
		return nil, invalid("metadata", "metadata: want an object")
	}
	out := chatRequest{
		Model:               w.Model,
		ParallelToolCalls:   w.ParallelToolCalls,
		MaxCompletionTokens: w.MaxOutputTokens,
		Temperature:         w.Temperature,
		TopP:                w.TopP,
		// safety_identifier is OpenAI's successor of user, the id of the
		// client's end user a vendor attributes abuse to: carried as the
		// chat API's user, which reaches Claude hashed as metadata.user_id
		// (probe 52b: it was dropped, and the operator's whole key answered
		// for one user).
		User:   cmp.Or(w.SafetyIdentifier, w.User),
		Stream: w.Stream,
	}
	if w.Stream {
		// Usage arrives in a last chunk only when asked for; the
		// response.completed event carries it.
		out.StreamOptions = &chat.StreamOptions{IncludeUsage: true}
	}
	if rawjson.Set(w.Instructions) {
		var s string
		if err := json.Unmarshal(w.Instructions, &s); err != nil {
			return nil, invalid("instructions", "instructions: want a string")
		}
		out.Messages = append(out.Messages, chat.Message{Role: "system", Content: jsonString(s)})
	}
	var froms []from
	if rec && len(out.Messages) == 1 {
		froms = append(froms, from{item: "instructions", content: "instructions"})
	}
	ts := toolSet{rec: rec}
	if err := ts.add(w.Tools, "tools"); err != nil {
		return nil, err
	}
	msgs, inFroms, err := translateInput(w.Input, &ts)
	if err != nil {
		return nil, err
	}
	out.Messages = append(out.Messages, msgs...)
	froms = append(froms, inFroms...)
	out.Tools = ts.tools
	if out.ToolChoice, err = translateToolChoice(w.ToolChoice); err != nil {
		return nil, err
	}
	if len(out.Tools) == 0 {
		// No tool left to call (tools: [], or only web_search, dropped):
		// Chat Completions refuses tool_choice and parallel_tool_calls
		// without tools, where the Responses API takes them
		// (docs/doors.md, "Request"). The response still echoes them.
		out.ToolChoice, out.ParallelToolCalls = nil, nil
	}
	if out.ReasoningEffort, err = reasoningEffort(w.Reasoning); err != nil {
		return nil, err
	}
	if out.ResponseFormat, err = responseFormat(w.Text); err != nil {
		return nil, err
	}
	chatBody, err := rawjson.Marshal(out)
	if err != nil {
		return nil, invalid("", "request: %v", err)
	}
	return &Request{
		Model:       w.Model,
		Stream:      w.Stream,
		Chat:        chatBody,
		CachePrompt: chat.CacheKeySet(w.PromptCacheKey),
		Params:      recorded(rec, froms, ts.paths, &w, &out),
		Echo: Echo{
			Instructions:      nonNull(w.Instructions),
			Metadata:          nonNull(w.Metadata),
			Tools:             nonNull(w.Tools),
			ToolChoice:        nonNull(w.ToolChoice),
			Text:              nonNull(w.Text),
			Reasoning:         nonNull(w.Reasoning),
			Temperature:       w.Temperature,
			TopP:              w.TopP,
			MaxOutputTokens:   w.MaxOutputTokens,
			ParallelToolCalls: w.ParallelToolCalls,
			User:              w.User,
			names:             ts.names,
		},
	}, nil
}

// translateToolChoice maps "auto" | "none" | "required" |
// {"type":"function","name":…} to chat's tool_choice.
func translateToolChoice(raw json.RawMessage) (json.RawMessage, error) {
	if !rawjson.Set(raw) {
		return nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch s {
		case "auto", "none", "required":
			return jsonString(s), nil
		}
		return nil, invalid("tool_choice", "tool_choice: unknown mode %q", s)
	}
	var obj struct {
		Type  string       `json:"type"`
		Name  string       `json:"name"`
		Mode  string       `json:"mode"`
		Tools []choiceTool `json:"tools"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, invalid("tool_choice", "tool_choice: want a string or an object")
	}
	if obj.Type == "allowed_tools" {
		return allowedTools(obj.Mode, obj.Tools)
	}
	if obj.Type != "function" {
		return nil, unsupported("tool_choice", "tool_choice type %q is not supported: Detour's /v1/responses translates function tools only", obj.Type)
	}
	if obj.Name == "" {
		return nil, invalid("tool_choice", "tool_choice: a function choice needs a name")
	}
	b, _ := json.Marshal(map[string]any{"type": "function", "function": map[string]string{"name": obj.Name}})
	return b, nil
}

// choiceTool is a tool an allowed_tools choice lists.
type choiceTool struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

// allowedTools maps an allowed_tools choice ({"type":"allowed_tools",
// "mode":…,"tools":[{"type":"function","name":…}]}) to chat's, whose tools
// are {"type":"function","function":{"name":…}}; a built-in tool in the
// list does not translate, as in tools.
func allowedTools(mode string, tools []choiceTool) (json.RawMessage, error) {
	if (mode != "auto" && mode != "required") || len(tools) == 0 {
		return nil, invalid("tool_choice", `tool_choice: an allowed_tools choice needs mode "auto" or "required" and a list of tools`)
	}
	list := make([]any, len(tools))
	for i, t := range tools {
		if t.Type != "function" {
			return nil, unsupported("tool_choice", "tool_choice.tools[%d]: a %q tool is not supported: Detour's /v1/responses translates function tools only", i, t.Type)
		}
		if t.Name == "" {
			return nil, invalid("tool_choice", "tool_choice.tools[%d]: a function needs a name", i)
		}
		list[i] = map[string]any{"type": "function", "function": map[string]string{"name": t.Name}}
	}
	b, _ := json.Marshal(map[string]any{"type": "allowed_tools",
		"allowed_tools": map[string]any{"mode": mode, "tools": list}})
	return b, nil
}

// reasoningEffort reads reasoning.effort; it travels as chat's
// reasoning_effort, which OpenAI targets honour and the Anthropic and Gemini
// adapters ignore. reasoning.summary is dropped.
func reasoningEffort(raw json.RawMessage) (string, error) {
	if !rawjson.Set(raw) {
		return "", nil
	}
	var r struct {
		Effort *string `json:"effort"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return "", invalid("reasoning", "reasoning: want an object")
	}
	if r.Effort == nil {
		return "", nil
	}
	return *r.Effort, nil
}

// responseFormat maps text.format to chat's response_format: text → none,
// json_object → json_object, json_schema {name, schema, strict,
// description} → json_schema {json_schema: {...}}.
func responseFormat(raw json.RawMessage) (json.RawMessage, error) {
	if !rawjson.Set(raw) {
		return nil, nil
	}
	var t struct {
		Format *struct {
			Type        string          `json:"type"`
			Name        string          `json:"name"`
			Description string          `json:"description,omitempty"`
			Schema      json.RawMessage `json:"schema"`
			Strict      *bool           `json:"strict,omitempty"`
		} `json:"format"`
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, invalid("text", "text: want an object with a format")
	}
	if t.Format == nil {
		return nil, nil
	}
	switch f := t.Format; f.Type {
	case "text", "":
		return nil, nil
	case "json_object":
		return json.RawMessage(`{"type":"json_object"}`), nil
	case "json_schema":
		if f.Name == "" || !rawjson.Set(f.Schema) {
			return nil, invalid("text.format", "text.format: json_schema needs a name and a schema")
		}
		type schema struct {
			Name        string          `json:"name"`
			Description string          `json:"description,omitempty"`
			Schema      json.RawMessage `json:"schema"`
			Strict      *bool           `json:"strict,omitempty"`
		}
		b, _ := json.Marshal(struct {
			Type       string `json:"type"`
			JSONSchema schema `json:"json_schema"`
		}{"json_schema", schema{f.Name, f.Description, f.Schema, f.Strict}})
		return b, nil
	default:
		return nil, unsupported("text.format", "text.format type %q is not supported", f.Type)
	}
}

func nonNull(m json.RawMessage) json.RawMessage {
	if !rawjson.Set(m) {
		return nil
	}
	return m
}

func jsonString(s string) json.RawMessage {
	b, _ := rawjson.Marshal(s)
	return b
}

// joinText joins text pieces with a newline, as the Anthropic and Gemini
// adapters join a message's text parts.
func joinText(texts []string) string { return strings.Join(texts, "\n") }

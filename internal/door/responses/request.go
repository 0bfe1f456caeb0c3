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

func stateful(param, what string) *Error {
	e := unsupported(param, statelessMsg, what)
	e.Stateful = true
	return e
}

func unsupported(param, format string, a ...any) *Error {
	return &Error{Param: param, Code: "unsupported_parameter", Message: fmt.Sprintf(format, a...)}
}

func invalid(param, format string, a ...any) *Error {
	return &Error{Param: param, Code: "invalid_value", Message: fmt.Sprintf(format, a...)}
}

// statelessMsg names the design every stateful member runs into.
// It says why even where a responses: true target could read the stored
// state: every client key shares that provider's account, so a reference
// one client holds could read another's conversation (probe 52b: the
// message blamed only Detour's own storage, which a route to OpenAI alone
// seemed not to need).
const statelessMsg = "Detour's /v1/responses is stateless: it stores no responses and passes on no reference to responses a provider stored (every client key shares the provider's account), so %s is not supported; send the whole conversation in \"input\" (and \"store\": false)"

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

// recorded is the Params a recording translation read, nil for none.
func recorded(rec bool, froms []from, tools []string, w *wireRequest, out *chatRequest) *Params {
	if !rec {
		return nil
	}
	return &Params{msgs: froms, tools: tools, top: topParams(w, out), read: true}
}

// topParams maps the chat body out's top-level members to the members of
// the client's request w they were made from (Params), each only where
// the client sent it: the output limit (max_completion_tokens, or
// max_tokens as an adapter renames it) is max_output_tokens, the effort
// reasoning.effort, the answer's format text.format, the end user
// safety_identifier or user.
func topParams(w *wireRequest, out *chatRequest) map[string]string {
	top := map[string]string{"model": "model"}
	set := func(chatName, client string, sent bool) {
		if sent {
			top[chatName] = client
		}
	}
	set("stream", "stream", w.Stream)
	set("max_completion_tokens", "max_output_tokens", w.MaxOutputTokens != nil)
	set("max_tokens", "max_output_tokens", w.MaxOutputTokens != nil)
	set("temperature", "temperature", w.Temperature != nil)
	set("top_p", "top_p", w.TopP != nil)
	set("parallel_tool_calls", "parallel_tool_calls", out.ParallelToolCalls != nil)
	set("tool_choice", "tool_choice", rawjson.Set(out.ToolChoice))
	set("tools", "tools", rawjson.Set(w.Tools))
	set("reasoning_effort", "reasoning.effort", out.ReasoningEffort != "")
	set("response_format", "text.format", rawjson.Set(out.ResponseFormat))
	set("user", "user", w.User != "")
	set("user", "safety_identifier", w.SafetyIdentifier != "") // preferred where both are sent (Translate)
	return top
}

// Stateful refuses, as Translate does, a body with a member that needs
// Detour to keep responses ("store": true, "previous_response_id",
// "conversation", "background": true, a stored "prompt"), reading only
// those members, by one scan of the body's top level: the door calls it
// instead of Translate for a route whose first target serves the Responses
// API as is, which judges everything else itself (docs/doors.md, "OpenAI
// Responses"). body is valid JSON in which no top-level name differs from
// these only by case (the front's strict scan); a member of another type
// than the API's is left to the upstream.
func Stateful(body []byte) *Error {
	var w wireRequest
	top, _ := rawjson.ScanObject(body)
	for k, v, ok := top.Next(); ok; k, v, ok = top.Next() {
		switch {
		case rawjson.KeyIs(k, "store"):
			w.Store = boolOf(v)
		case rawjson.KeyIs(k, "previous_response_id"):
			if s, ok := rawjson.String(bytes.TrimSpace(v)); ok {
				w.PreviousResponseID = &s
			}
		case rawjson.KeyIs(k, "conversation"):
			w.Conversation = v
		case rawjson.KeyIs(k, "background"):
			w.Background = boolOf(v)
		case rawjson.KeyIs(k, "prompt"):
			w.Prompt = v
		case rawjson.KeyIs(k, "input"):
			w.Input = v
		}
	}
	if e := refuseState(&w); e != nil {
		return e
	}
	return itemReference(w.Input)
}

// itemReference refuses an item_reference among the input items, as
// translateInput does, however it is written: its type escaped (the
// upstream decodes it) or left out, which OpenAI's schema allows for a
// reference (an "id" with no "type" and no "role"; review 38d).
func itemReference(input []byte) *Error {
	items, ok := rawjson.ScanArray(input)
	for i := 0; ok; i++ {
		_, it, more := items.Next()
		if !more {
			return nil
		}
		if isReference(it) && !reasoningReference(rawjson.Member(it, "id")) { // a reasoning item's is dropped (input.go; the native path: openai.NativeRequest)
			return itemReferenceError(fmt.Sprintf("input[%d]", i))
		}
	}
	return nil
}

// isReference reports whether the input item it refers to a stored item.
func isReference(it []byte) bool {
	obj, ok := rawjson.ScanObject(it)
	if !ok {
		return false
	}
	var typ, role, id []byte
	for k, v, ok := obj.Next(); ok; k, v, ok = obj.Next() {
		switch {
		case rawjson.KeyIs(k, "type"):
			typ = v
		case rawjson.KeyIs(k, "role"):
			role = v
		case rawjson.KeyIs(k, "id"):
			id = v
		}
	}
	if t, ok := rawjson.String(typ); ok {
		return t == "item_reference"
	}
	return !rawjson.Set(typ) && !rawjson.Set(role) && rawjson.Set(id)
}

// boolOf is the JSON literal v as a *bool; nil for anything else.
func boolOf(v []byte) *bool {
	switch string(bytes.TrimSpace(v)) {
	case "true":
		return &[]bool{true}[0]
	case "false":
		return new(bool)
	}
	return nil
}

// refuseState refuses every member that needs Detour to keep responses.
func refuseState(w *wireRequest) *Error {
	switch {
	case w.Store != nil && *w.Store:
		return stateful("store", "\"store\": true")
	case w.PreviousResponseID != nil && *w.PreviousResponseID != "":
		return stateful("previous_response_id", "\"previous_response_id\"")
	case rawjson.Set(w.Conversation):
		return stateful("conversation", "\"conversation\"")
	case w.Background != nil && *w.Background:
		return stateful("background", "\"background\": true")
	case rawjson.Set(w.Prompt):
		return stateful("prompt", "a stored \"prompt\"")
	}
	return nil
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

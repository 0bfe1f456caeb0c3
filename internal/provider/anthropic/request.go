package anthropic

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"unicode"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/chat"
	"github.com/detour-llm/detour/internal/rawjson"
)

// Version is the anthropic-version header sent with every request.
const Version = "2023-06-01"

// DefaultMaxTokens is sent as max_tokens when the client names no limit
// and the model's own maximum is not known (maxTokensFor); Anthropic
// requires one, and every Claude model takes it.
const DefaultMaxTokens = 4096

// Adapter speaks Anthropic's Messages dialect. The zero value is ready.
type Adapter struct{}

var _ provider.Adapter = Adapter{}

// NewRequest translates req and POSTs it to {base_url}/v1/messages.
func (Adapter) NewRequest(ctx context.Context, ep provider.Endpoint, req *provider.Request) (*http.Request, error) {
	body, err := Translate(req, ep.Model)
	if err != nil {
		return nil, err
	}
	hr, err := provider.NewPost(ctx, ep.BaseURL, "/v1/messages", body, nil)
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("anthropic-version", Version)
	if req.Stream {
		hr.Header.Set("Accept", "text/event-stream")
	} else {
		hr.Header.Set("Accept", "application/json")
	}
	if ep.APIKey != "" {
		hr.Header.Set("x-api-key", ep.APIKey)
	}
	return hr, nil
}

// messagesRequest is the Messages API request body.
type messagesRequest struct {
	Model string `json:"model"`
	// System is a string, or one text block a system message when a
	// client marked a prompt-cache breakpoint in them (systemOf).
	System        any         `json:"system,omitempty"`
	Messages      []message   `json:"messages"`
	MaxTokens     int         `json:"max_tokens"`
	Temperature   *float64    `json:"temperature,omitempty"`
	TopP          *float64    `json:"top_p,omitempty"`
	TopK          int         `json:"top_k,omitempty"`
	StopSequences []string    `json:"stop_sequences,omitempty"`
	Stream        bool        `json:"stream,omitempty"`
	Tools         []tool      `json:"tools,omitempty"`
	ToolChoice    *toolChoice `json:"tool_choice,omitempty"`
	Metadata      *metadata   `json:"metadata,omitempty"`
	// OutputConfig carries a structured answer's schema, at the models
	// that refuse forced tool use (nativeschema.go).
	OutputConfig *outputConfig `json:"output_config,omitempty"`
}

type message struct {
	Role    string  `json:"role"`
	Content []block `json:"content"`
}

// block is a request content block; only the members of its type are set.
type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	Source    *imageSource    `json:"source,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	// Title is a document's title: the client's file name.
	Title string `json:"title,omitempty"`
	// Content is a tool_result's content: a string, or blocks when the
	// result holds more than text.
	Content any `json:"content,omitempty"`
	// CacheControl is the client's prompt-cache breakpoint (cache.go).
	CacheControl *chat.CacheControl `json:"cache_control,omitempty"`
}

type imageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type,omitempty"`
	Data      string `json:"data,omitempty"`
	URL       string `json:"url,omitempty"`
}

type tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description,omitempty"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type toolChoice struct {
	Type                   string `json:"type"`
	Name                   string `json:"name,omitempty"`
	DisableParallelToolUse bool   `json:"disable_parallel_tool_use,omitempty"`
}

type metadata struct {
	UserID string `json:"user_id"`
}

// Translate returns the Messages request body for the client's request,
// asking for model.
func Translate(req *provider.Request, model string) ([]byte, error) {
	cr, err := chat.Parse(req)
	if err != nil {
		return nil, err
	}
	// Claude answers one choice and no log-probabilities: asked for more,
	// the answer would lack them without saying so, so the request goes
	// to a target that has them (docs/doors.md).
	if cr.N != nil && *cr.N > 1 {
		return nil, &provider.Unsupported{Param: "n", Msg: fmt.Sprintf("anthropic: n is %d; Claude answers one choice", *cr.N)}
	}
	if cr.WantsLogprobs() {
		return nil, provider.Refuse(cr.LogprobsParam(), "anthropic: %s: Claude returns no log-probabilities", cr.LogprobsParam())
	}
	if err := cr.Unanswerable(); err != nil {
		return nil, err
	}
	out := messagesRequest{
		Model:         model,
		StopSequences: stopSequences(cr.Stop),
		Stream:        cr.Stream,
	}
	n, limited := cr.Limit()
	out.MaxTokens = SentMaxTokens(model, n, limited, len(req.Body))
	if t := cr.Temperature; t != nil {
		out.Temperature = chat.Ptr(min(max(*t, 0), 1))
	}
	// Newer Claude models refuse temperature and top_p together; the
	// temperature is the one clients mean, so top_p goes only alone.
	if out.Temperature == nil {
		out.TopP = cr.TopP
	}
	if k, ok := cr.TopKValue(); ok {
		out.TopK = k
	}
	if (out.Temperature != nil || out.TopP != nil || out.TopK != 0) && fixedSampling(model) {
		out.Temperature, out.TopP, out.TopK = nil, nil, 0
	}
	if u := cmp.Or(cr.SafetyIdentifier, cr.User); u != "" {
		out.Metadata = &metadata{UserID: userID(u)}
	}
	var system []block
	if system, out.Messages, err = messages(cr.Messages); err != nil {
		return nil, err
	}
	if n := len(out.Messages); n > 0 {
		cc := cr.CacheControl
		if cc == nil && (req.CachePrompt || cr.WantsCache()) && !marked(system, out.Messages) {
			// OpenAI's prompt_cache_key asks the prompt cached; Claude caches
			// only where marked (review 62j: a Responses client's agent paid
			// its whole prompt every turn).
			cc = &chat.CacheControl{Type: "ephemeral"}
		}
		markLast(out.Messages[n-1].Content, cc) // automatic caching: the prompt up to its last block
	}
	out.System = systemOf(system)
	limitBreakpoints(&out, system)
	tc, err := chat.ParseToolChoice(cr.ToolChoice)
	if err != nil {
		return nil, err
	}
	for i, t := range cr.Tools { // function tools alone (Unanswerable)
		if reserved(t.Function.Name) {
			return nil, provider.Refuse(fmt.Sprintf("tools[%d].function.name", i), "anthropic: tool name %q is reserved for structured answers", t.Function.Name)
		}
		// Claude has no allowed list: the tools an allowed_tools choice
		// leaves out are not offered (docs/doors.md, "Chat Completions to
		// Claude and Gemini targets").
		if tc.Permits(t.Function.Name) {
			schema, note := foldRoot(chat.ObjectSchema(t.Function.Parameters))
			desc := t.Function.Description
			if note != "" {
				desc = strings.TrimSpace(desc + "\n\n" + note)
			}
			out.Tools = append(out.Tools, tool{Name: t.Function.Name, Description: desc, InputSchema: schema})
		}
	}
	if tc.Allowed != nil && len(out.Tools) == 0 {
		return nil, provider.Refuse("tool_choice", "anthropic: tool_choice: allowed_tools names none of the request's function tools")
	}
	if tc.Mode == "function" && reserved(tc.Name) {
		return nil, provider.Refuse("tool_choice", "anthropic: tool name %q is reserved for structured answers", tc.Name)
	}
	switch tc.Mode {
	case "auto", "none":
		out.ToolChoice = &toolChoice{Type: tc.Mode}
	case "required":
		out.ToolChoice = &toolChoice{Type: "any"}
	case "function":
		out.ToolChoice = &toolChoice{Type: "tool", Name: tc.Name}
	}
	if cr.ParallelToolCalls != nil && !*cr.ParallelToolCalls && len(out.Tools) > 0 {
		if out.ToolChoice == nil {
			out.ToolChoice = &toolChoice{Type: "auto"}
		}
		if out.ToolChoice.Type != "none" {
			out.ToolChoice.DisableParallelToolUse = true
		}
	}
	// A model that refuses forced tool use is asked for a json_schema
	// answer with Anthropic's JSON outputs where its schema allows
	// (nativeschema.go); the answer tool serves every other structured
	// request (structured.go).
	if !takesNativeFormat(model) || !nativeStructured(cr.ResponseFormat, &out) {
		if err := structured(cr.ResponseFormat, tc.Mode, &out); err != nil {
			return nil, err
		}
	}
	if c := out.ToolChoice; c != nil && (c.Type == "any" || c.Type == "tool") && forcedToolRefused.holds(model) {
		// Sonnet 5.5, Opus 5.5 and Fable 5.1 refuse a forced choice with a
		// 400 (generation.go): the tools are offered and the model chooses,
		// so a required call, a named function or a structured answer may
		// come as text instead of a call (docs/doors.md, "Chat Completions
		// to Claude and Gemini targets"; review 66d: every such request
		// failed there).
		c.Type, c.Name = "auto", ""
	}
	if len(out.Tools) == 0 {
		// A choice among no tools says nothing (docs/doors.md, "Chat
		// Completions to Claude and Gemini targets").
		out.ToolChoice = nil
	}
	return rawjson.Marshal(out)
}

// userID is metadata.user_id for the client's user: the hex SHA-256 of
// it. OpenAI's user is any stable end-user id, an email address as often
// as not; Anthropic's must be "a uuid, hash value, or other opaque
// identifier" without "name, email address, or phone number", and it
// answers an email with a 400 (docs/doors.md, "Chat Completions to Claude
// and Gemini targets"). The hash is as stable per user as the user. A
// user that is already opaque by its form (a UUID or a hex digest: hex
// digits and hyphens alone, 32 or more: longer than any phone or card
// number) is sent as it is, so an id the client gave
// Anthropic before (through the Messages door) stays the same.
func userID(user string) string {
	if len(user) >= 32 && strings.Trim(user, "0123456789abcdefABCDEF-") == "" {
		return user
	}
	sum := sha256.Sum256([]byte(user))
	return hex.EncodeToString(sum[:])
}

// stopSequences is the client's stop strings but those of whitespace alone
// ("\n" for a one-line answer, as OpenAI takes), which Anthropic refuses
// ("each stop sequence must contain non-whitespace"; docs/doors.md, "Chat
// Completions to Claude and Gemini targets"): the answer may then run past
// such a string.
func stopSequences(stop []string) []string {
	var out []string
	for _, s := range stop {
		if strings.TrimSpace(s) != "" {
			out = append(out, s)
		}
	}
	return out
}

// messages splits the conversation into the system prompt, a text block a
// system message (its parts joined by newlines, with the last cache
// breakpoint among them), and the turns.
func messages(in []chat.Message) (system []block, out []message, err error) {
	for i := range in {
		m := &in[i]
		var role string
		var blocks []block
		switch m.Role {
		case "system", "developer":
			b, err := systemBlock(m)
			if err != nil {
				return nil, nil, err
			}
			if strings.TrimSpace(b.Text) != "" { // Anthropic refuses a block of blanks (review 41h)
				system = append(system, b)
			}
			continue
		case "user":
			role = "user"
			blocks, err = contentBlocks(m)
		case "assistant":
			role = "assistant"
			blocks, err = assistantBlocks(m)
		case "tool", "function":
			role = "user"
			blocks, err = toolResult(m)
		default:
			return nil, nil, provider.Refuse(fmt.Sprintf("messages[%d].role", i), "anthropic: unknown message role %q", m.Role)
		}
		if err != nil {
			return nil, nil, provider.At(fmt.Sprintf("messages[%d]", i), err)
		}
		if len(blocks) == 0 {
			continue
		}
		markLast(blocks, m.CacheControl)
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content = append(out[n-1].Content, blocks...)
			continue
		}
		out = append(out, message{Role: role, Content: blocks})
	}
	toolResultsFirst(out)
	out = trimFinal(out)
	if len(out) == 0 {
		// Anthropic wants at least one message; OpenAI takes a conversation
		// of system messages alone (an LLM-as-judge or one-shot prompt),
		// and one whose only user text is empty. The instructions are then
		// the one user turn, sent once (docs/doors.md, "Chat Completions to
		// Claude and Gemini targets"); with none either, there is nothing
		// Anthropic takes, and another target may take the request.
		text := systemText(system)
		if text == "" {
			return nil, nil, errors.New("anthropic: the conversation has no text to send (Anthropic refuses empty messages)")
		}
		return nil, []message{{Role: "user", Content: []block{{Type: "text", Text: text}}}}, nil
	}
	return system, out, nil
}

// trimFinal trims the trailing whitespace of the conversation's final text
// when the last turn is the assistant's (a prefill, or an answer a client
// continues): Anthropic refuses "final assistant content" that ends in
// whitespace, which OpenAI takes (docs/doors.md, "Chat Completions to
// Claude and Gemini targets"). A text block left empty is dropped, and a
// turn left empty with it.
func trimFinal(out []message) []message {
	n := len(out)
	if n == 0 || out[n-1].Role != "assistant" {
		return out
	}
	blocks := out[n-1].Content
	for len(blocks) > 0 && blocks[len(blocks)-1].Type == "text" {
		last := &blocks[len(blocks)-1]
		last.Text = strings.TrimRightFunc(last.Text, unicode.IsSpace)
		if last.Text != "" {
			break
		}
		blocks = blocks[:len(blocks)-1]
	}
	if len(blocks) == 0 {
		return out[:n-1]
	}
	out[n-1].Content = blocks
	return out
}

// contentBlocks translates text, image and PDF file parts; text that is empty or
// whitespace alone is dropped (Anthropic refuses such text blocks).
func contentBlocks(m *chat.Message) ([]block, error) {
	return partBlocks(m, false)
}

// partBlocks is contentBlocks; in an assistant turn a refusal part is the
// assistant's text (OpenAI lets an assistant's content be one refusal
// part), elsewhere it is a part Claude cannot take.
func partBlocks(m *chat.Message, assistant bool) ([]block, error) {
	parts, err := m.Parts()
	if err != nil {
		return nil, err
	}
	var out []block
	for k, p := range parts {
		switch {
		case p.Type == "text" || assistant && p.Type == "refusal":
			text := p.Text
			if p.Type == "refusal" {
				text = p.Refusal
			}
			if strings.TrimSpace(text) != "" {
				out = append(out, block{Type: "text", Text: text, CacheControl: partMark(&p)})
			}
		case p.Type == "image_url":
			if p.ImageURL == nil || p.ImageURL.URL == "" {
				return nil, provider.Refuse(fmt.Sprintf("content[%d].image_url.url", k), "anthropic: image_url part without url")
			}
			src, err := imageFrom(p.ImageURL.URL)
			if err != nil {
				return nil, provider.At(fmt.Sprintf("content[%d]", k), err)
			}
			out = append(out, block{Type: "image", Source: src, CacheControl: partMark(&p)})
		case p.Type == "file" && !assistant:
			// OpenAI's PDF input is Claude's base64 document block
			// (docs/doors.md, "Chat Completions to Claude and Gemini
			// targets"); a file by id is OpenAI's own to read.
			if text, name, ok := p.TextFile(); ok {
				// A text file (Markdown, code, JSON) is Claude's plain-text
				// document (probe 52b: only PDFs were taken).
				out = append(out, block{Type: "document", Source: &imageSource{Type: "text", MediaType: "text/plain", Data: text},
					Title: name, CacheControl: partMark(&p)})
				continue
			}
			data, name, ok := p.PDF()
			if !ok {
				return nil, provider.Refuse(fmt.Sprintf("content[%d]", k), "anthropic: file part: Claude takes an inline PDF or text file (file_data data:application/pdf;base64,… or data:text/plain;base64,…) only")
			}
			out = append(out, block{Type: "document", Source: &imageSource{Type: "base64", MediaType: "application/pdf", Data: data},
				Title: name, CacheControl: partMark(&p)})
		default:
			return nil, provider.Refuse(fmt.Sprintf("content[%d]", k), "anthropic: unsupported content part type %q", p.Type)
		}
	}
	return out, nil
}

// imageMediaTypes are the inline image types Anthropic takes ("Input
// should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'").
var imageMediaTypes = map[string]bool{"image/jpeg": true, "image/png": true, "image/gif": true, "image/webp": true}

// imageFrom is an image part's source: a data: URL as base64, of a media
// type Claude takes (another is a translation error, so the request moves
// on to a target that may take it: docs/doors.md, "Chat Completions to
// Claude and Gemini targets"); any other URL as a url source, Anthropic's
// to fetch.
func imageFrom(u string) (*imageSource, error) {
	if mt, data, ok := chat.DataURL(u); ok {
		mt = strings.ToLower(mt)
		if !imageMediaTypes[mt] {
			return nil, provider.Refuse("", "anthropic: image media type %q: Claude takes image/jpeg, image/png, image/gif or image/webp", mt)
		}
		return &imageSource{Type: "base64", MediaType: mt, Data: data}, nil
	}
	return &imageSource{Type: "url", URL: u}, nil
}

// assistantBlocks is an assistant turn: its text (refusal parts as text),
// then its refusal member as text (what openai-go and openai-python hand
// back for a refused answer), then its tool calls as tool_use blocks.
func assistantBlocks(m *chat.Message) ([]block, error) {
	out, err := partBlocks(m, true)
	if err != nil {
		return nil, err
	}
	// A refusal part of the same text already says it (blanks aside).
	if r := strings.TrimSpace(m.Refusal); r != "" && !slices.ContainsFunc(out, func(b block) bool { return b.Type == "text" && strings.TrimSpace(b.Text) == r }) {
		out = append(out, block{Type: "text", Text: m.Refusal})
	}
	for _, tc := range m.ToolCalls {
		input := chat.HistoryArguments(tc.Function.Arguments)
		out = append(out, block{Type: "tool_use", ID: chat.AnthropicToolID(tc.ID), Name: tc.Function.Name, Input: input,
			CacheControl: breakpoint(tc.CacheControl)})
	}
	return out, nil
}

func toolResult(m *chat.Message) ([]block, error) {
	inner, err := contentBlocks(m)
	if err != nil {
		return nil, err
	}
	res := block{Type: "tool_result", ToolUseID: chat.AnthropicToolID(m.ToolCallID)}
	for i := range inner { // the result's breakpoint is the block's own
		if inner[i].CacheControl != nil {
			res.CacheControl, inner[i].CacheControl = inner[i].CacheControl, nil
		}
	}
	texts := make([]string, 0, len(inner))
	for _, b := range inner {
		if b.Type != "text" {
			res.Content = inner
			return []block{res}, nil
		}
		texts = append(texts, b.Text)
	}
	if len(texts) > 0 {
		res.Content = strings.Join(texts, "\n")
	}
	return []block{res}, nil
}

// toolResultsFirst puts, in each user turn, its tool_result blocks before
// its other blocks, each kind in its order. Anthropic refuses a turn after
// tool_use blocks that does not begin with their results ("Messages
// following tool_use blocks must begin with a matching number of
// tool_result blocks"), where OpenAI's chat and Responses APIs take a
// user's message between a call and its output, or between two outputs
// (review 62j: a Responses client's turn so ordered was a 400 that stopped
// the route). The merge above keeps the input's order.
func toolResultsFirst(out []message) {
	for i := range out {
		c := out[i].Content
		if out[i].Role != "user" || len(c) < 2 || slices.IsSortedFunc(c, resultsFirst) {
			continue
		}
		slices.SortStableFunc(c, resultsFirst)
	}
}

// resultsFirst orders a tool_result block before any other.
func resultsFirst(a, b block) int {
	ra, rb := a.Type == "tool_result", b.Type == "tool_result"
	switch {
	case ra && !rb:
		return -1
	case rb && !ra:
		return 1
	}
	return 0
}

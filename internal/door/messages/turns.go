package messages

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/detour-llm/detour/internal/provider/chat"
	"github.com/detour-llm/detour/internal/rawjson"
)

// message translates msgs[i] into one or more canonical messages; a
// system message's tool changes are appended to changes (last: clearedAt).
func message(msgs []inMessage, i int, changes *[]toolChange, last *lastUsers) ([]outMessage, error) {
	m := &msgs[i]
	field := fmt.Sprintf("messages.%d", i)
	if m.Role == "system" {
		// A mid-conversation system message (Claude Code sends one after
		// the first user turn): a system message at the same place, and
		// its tool changes (midsystem.go). Like every message it has
		// content (as Check says).
		if !rawjson.Set(m.Content) {
			return nil, invalid(field+".content", "Field required")
		}
		s, err := systemMessage(field, m, changes)
		if err != nil {
			return nil, err
		}
		cleared, err := clearedAt(field, msgs, i, last)
		if err != nil {
			return nil, err
		}
		if s == "" || cleared {
			return nil, nil
		}
		return []outMessage{{Role: "system", Content: s}}, nil
	}
	if m.Role != "user" && m.Role != "assistant" {
		return nil, invalid(field+".role", "want \"user\", \"assistant\" or \"system\", got %q", m.Role)
	}
	blocks, s, err := content(field+".content", m.Content)
	if err != nil {
		return nil, err
	}
	if blocks == nil {
		return []outMessage{{Role: m.Role, Content: s}}, nil
	}
	if m.Role == "assistant" {
		return assistant(field, blocks)
	}
	return user(field, blocks)
}

// user translates a user turn: each tool_result becomes a "tool" message
// (first, as OpenAI wants them right after the assistant's tool calls), the
// other blocks one user message after them. Images inside tool results go
// to that user message: OpenAI tool messages hold text only.
func user(field string, blocks []inBlock) ([]outMessage, error) {
	var out []outMessage
	var parts []chat.Part
	for j := range blocks {
		b := &blocks[j]
		bf := fmt.Sprintf("%s.content.%d", field, j)
		switch b.Type {
		case "text":
			if b.Text == nil {
				return nil, invalid(bf+".text", "Field required")
			}
			parts = append(parts, chat.Part{Type: "text", Text: *b.Text})
		case "image":
			p, err := image(bf, b.Source)
			if err != nil {
				return nil, err
			}
			parts = append(parts, p)
		case "document":
			p, err := document(bf, b)
			if err != nil {
				return nil, err
			}
			parts = append(parts, p)
		case "search_result":
			text, err := searchResult(bf, b)
			if err != nil {
				return nil, err
			}
			parts = append(parts, chat.Part{Type: "text", Text: text})
		case "tool_result":
			msg, images, err := toolResult(bf, b)
			if err != nil {
				return nil, err
			}
			out = append(out, msg)
			parts = append(parts, images...)
		case "tool_use", "thinking", "redacted_thinking":
			return nil, invalid(bf+".type", "%q blocks belong to assistant messages", b.Type)
		case "":
			return nil, invalid(bf+".type", "Field required")
		default:
			return nil, unsupported(bf+".type", "%q blocks", b.Type)
		}
	}
	if len(parts) > 0 || len(out) == 0 {
		out = append(out, outMessage{Role: "user", Content: partsContent(parts)})
	}
	return out, nil
}

// partsContent is a string when the parts are one text, else the parts.
func partsContent(parts []chat.Part) any {
	switch {
	case len(parts) == 0:
		return ""
	case len(parts) == 1 && parts[0].Type == "text":
		return parts[0].Text
	}
	return parts
}

// document translates a base64 PDF document block to Chat Completions'
// file part (OpenAI's PDF input, which the Claude and Gemini adapters send
// as a PDF again: docs/doors.md, "Anthropic Messages"), named by its title.
// Another source (plain text, a URL, a file, content blocks) or citations
// asked for, which no other vendor answers, does not translate: Claude
// serves the block as sent.
func document(field string, b *inBlock) (chat.Part, error) {
	src := b.Source
	text := src != nil && !src.str && src.Type == "text"
	if src == nil || src.str || !text && (src.Type != "base64" || !strings.EqualFold(src.MediaType, "application/pdf")) {
		return chat.Part{}, unsupported(field+".source", "document blocks other than a base64 PDF or plain text")
	}
	if b.cites() {
		return chat.Part{}, unsupported(field+".citations", "document blocks with citations enabled (only Claude cites)")
	}
	if text {
		// A plain-text document (the AI SDK's Anthropic provider sends
		// every text file so) is its text, after its title (review 48c).
		if t := strings.TrimSpace(b.Title); t != "" {
			return chat.Part{Type: "text", Text: t + "\n\n" + src.Data}, nil
		}
		return chat.Part{Type: "text", Text: src.Data}, nil
	}
	if src.Data == "" {
		return chat.Part{}, invalid(field+".source.data", "Field required")
	}
	// OpenAI refuses file_data without a filename (openai/openai-agents-python#1513),
	// and Anthropic's own PDF example has no title (review 48).
	name := b.Title
	if strings.TrimSpace(name) == "" {
		name = "document.pdf"
	}
	return chat.Part{Type: "file", File: &chat.File{FileData: "data:application/pdf;base64," + src.Data, Filename: name}}, nil
}

// searchResult is a search_result block (a retrieved passage: its title,
// source and text blocks) as the text another vendor's model reads; with
// citations enabled, which only Claude answers, it does not translate
// (probe c50b: before, every such block was refused, and a RAG tool that
// returned one failed every later turn on a route without Claude).
func searchResult(field string, b *inBlock) (string, error) {
	if b.cites() {
		return "", unsupported(field+".citations", "search_result blocks with citations enabled (only Claude cites)")
	}
	var blocks []struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	if err := json.Unmarshal(b.Content, &blocks); err != nil {
		return "", invalid(field+".content", "want a list of text blocks")
	}
	var out []string
	if t := strings.TrimSpace(b.Title); t != "" {
		out = append(out, t)
	}
	if b.Source != nil && b.Source.str && strings.TrimSpace(b.Source.URL) != "" {
		out = append(out, "Source: "+strings.TrimSpace(b.Source.URL))
	}
	for i, tb := range blocks {
		if tb.Type != "text" || tb.Text == nil {
			return "", invalid(fmt.Sprintf("%s.content.%d", field, i), "want a text block")
		}
		out = append(out, *tb.Text)
	}
	return strings.Join(out, "\n\n"), nil
}

// image translates an image source: base64 becomes a data: URL, url stays.
func image(field string, src *inSource) (chat.Part, error) {
	if src == nil {
		return chat.Part{}, invalid(field+".source", "Field required")
	}
	if src.str {
		return chat.Part{}, invalid(field+".source", "want an object, got a JSON string")
	}
	switch src.Type {
	case "base64":
		if src.MediaType == "" {
			return chat.Part{}, invalid(field+".source.media_type", "Field required")
		}
		if src.Data == "" {
			return chat.Part{}, invalid(field+".source.data", "Field required")
		}
		return chat.Part{Type: "image_url", ImageURL: &chat.ImageURL{
			URL: "data:" + src.MediaType + ";base64," + src.Data}}, nil
	case "url":
		if src.URL == "" {
			return chat.Part{}, invalid(field+".source.url", "Field required")
		}
		return chat.Part{Type: "image_url", ImageURL: &chat.ImageURL{URL: src.URL}}, nil
	case "":
		return chat.Part{}, invalid(field+".source.type", "Field required")
	}
	return chat.Part{}, unsupported(field+".source.type", "image source %q", src.Type)
}

// ToolErrorPrefix starts the text of a tool result the client marked
// is_error: OpenAI tool messages have no such flag, so the model reads it.
const ToolErrorPrefix = "Error: "

// toolResult translates a tool_result block into a "tool" message and the
// images it carried.
func toolResult(field string, b *inBlock) (outMessage, []chat.Part, error) {
	if b.ToolUseID == "" {
		return outMessage{}, nil, invalid(field+".tool_use_id", "Field required")
	}
	var texts []string
	var images []chat.Part
	if rawjson.Set(b.Content) {
		blocks, s, err := content(field+".content", b.Content)
		if err != nil {
			return outMessage{}, nil, err
		}
		if blocks == nil {
			texts = append(texts, s)
		}
		for k := range blocks {
			ib := &blocks[k]
			kf := fmt.Sprintf("%s.content.%d", field, k)
			switch ib.Type {
			case "text":
				if ib.Text == nil {
					return outMessage{}, nil, invalid(kf+".text", "Field required")
				}
				texts = append(texts, *ib.Text)
			case "image":
				p, err := image(kf, ib.Source)
				if err != nil {
					return outMessage{}, nil, err
				}
				images = append(images, p)
			case "document":
				// A tool's PDF goes with its images, to the user message
				// after the tool messages; a plain-text document is the
				// result's text (review 48c: the AI SDK and pydantic-ai
				// put a tool's files there).
				p, err := document(kf, ib)
				if err != nil {
					return outMessage{}, nil, err
				}
				if p.Type == "text" {
					texts = append(texts, p.Text)
				} else {
					images = append(images, p)
				}
			case "search_result": // a RAG tool's passages (Anthropic's search-results guide)
				text, err := searchResult(kf, ib)
				if err != nil {
					return outMessage{}, nil, err
				}
				texts = append(texts, text)
			case "tool_reference":
				// A tool search's result (Claude Code's ToolSearch): Anthropic
				// expands it into the named tool's definition. Other vendors
				// already have every tool in the request among their function
				// tools (defer_loading is not sent), so the model reads the
				// name: the tool is loaded and may be called.
				if ib.ToolName == "" {
					return outMessage{}, nil, invalid(kf+".tool_name", "Field required")
				}
				texts = append(texts, fmt.Sprintf("Tool %s is loaded and can be called.", ib.ToolName))
			case "":
				return outMessage{}, nil, invalid(kf+".type", "Field required")
			default:
				return outMessage{}, nil, unsupported(kf+".type", "%q blocks in a tool result", ib.Type)
			}
		}
	}
	text := strings.Join(texts, "\n")
	if b.IsError {
		text = ToolErrorPrefix + text
	}
	return outMessage{Role: "tool", ToolCallID: b.ToolUseID, Content: text}, images, nil
}

// assistant translates an assistant turn: text blocks joined into content,
// tool_use blocks into tool_calls, an unsigned thinking block (the
// reasoning_content of an OpenAI-compatible model, which this door shows
// so: Answer) back into reasoning_content, signed thinking dropped (only
// Claude reads it, and Claude targets take the client's body as it is). A
// turn left with nothing (only thinking) is dropped. DeepSeek's and Kimi's
// thinking modes refuse a tool loop's next step without the reasoning that
// opened it ("The reasoning_content in the thinking mode must be passed
// back to the API", a 400): before round 52 every such loop failed at its
// second step (probe 52c, Claude Code on DeepSeek).
func assistant(field string, blocks []inBlock) ([]outMessage, error) {
	var texts, reasoning []string
	var calls []chat.ToolCall
	signed := "" // a thought signature this door carried, for the call after it
	for j := range blocks {
		b := &blocks[j]
		bf := fmt.Sprintf("%s.content.%d", field, j)
		switch b.Type {
		case "text":
			if b.Text == nil {
				return nil, invalid(bf+".text", "Field required")
			}
			texts = append(texts, *b.Text)
		case "tool_use":
			tc, err := toolUse(bf, b)
			if err != nil {
				return nil, err
			}
			if signed != "" {
				tc.ExtraContent, signed = chat.SignatureExtra(signed), ""
			}
			calls = append(calls, tc)
		case "thinking":
			if b.Thinking != nil && (b.Signature == nil || ours(*b.Signature)) {
				reasoning = append(reasoning, *b.Thinking)
			}
		case "redacted_thinking":
			// Only Anthropic models read their own thinking back; but one
			// this door wrote carries a Gemini thought signature for the
			// call after it (docs/doors.md, "Gemini thought signatures").
			if b.Data != nil && strings.HasPrefix(*b.Data, chat.SignaturePrefix) {
				signed = *b.Data
			}
		case "fallback":
			// A model fallback's marker in an earlier answer, which
			// Anthropic accepts and ignores when sent back.
		case "image", "tool_result":
			return nil, invalid(bf+".type", "%q blocks belong to user messages", b.Type)
		case "":
			return nil, invalid(bf+".type", "Field required")
		default:
			return nil, unsupported(bf+".type", "%q blocks", b.Type)
		}
	}
	if len(texts) == 0 && len(calls) == 0 {
		if len(blocks) == 0 {
			return []outMessage{{Role: "assistant", Content: ""}}, nil
		}
		return nil, nil
	}
	m := outMessage{Role: "assistant", ToolCalls: calls, ReasoningContent: strings.Join(reasoning, "\n")}
	if len(texts) > 0 {
		m.Content = strings.Join(texts, "\n")
	}
	return []outMessage{m}, nil
}

func toolUse(field string, b *inBlock) (chat.ToolCall, error) {
	if b.ID == "" {
		return chat.ToolCall{}, invalid(field+".id", "Field required")
	}
	if b.Name == "" {
		return chat.ToolCall{}, invalid(field+".name", "Field required")
	}
	args := "{}"
	if rawjson.Set(b.Input) {
		in := bytes.TrimSpace(b.Input)
		if in[0] != '{' {
			return chat.ToolCall{}, invalid(field+".input", "want an object")
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, in); err != nil {
			return chat.ToolCall{}, invalid(field+".input", "%v", err)
		}
		args = buf.String()
	}
	return chat.ToolCall{ID: b.ID, Type: "function", Function: chat.FunctionCall{Name: b.Name, Arguments: args}}, nil
}

// customTool translates one custom tool definition (a tools entry, or a
// tool_addition's definition) into a function tool.
func customTool(f string, t *inTool) (chat.Tool, error) {
	if t.Type != "" && t.Type != "custom" {
		return chat.Tool{}, unsupported(f+".type", "server tool %q", t.Type)
	}
	if t.Name == "" {
		return chat.Tool{}, invalid(f+".name", "Field required")
	}
	schema := bytes.TrimSpace(t.InputSchema)
	if !rawjson.Set(schema) {
		return chat.Tool{}, invalid(f+".input_schema", "Field required")
	}
	if schema[0] != '{' {
		return chat.Tool{}, invalid(f+".input_schema", "want an object")
	}
	return chat.Tool{Type: "function",
		Function: chat.Function{Name: t.Name, Description: t.Description, Parameters: chat.PropertiesSchema(schema)}}, nil
}

// tools translates tools, the conversation's tool changes, and
// tool_choice.
func tools(in *inRequest, out *outRequest, changes []toolChange) error {
	for i := range in.Tools {
		t, err := customTool(fmt.Sprintf("tools.%d", i), &in.Tools[i])
		if err != nil {
			return err
		}
		out.Tools = append(out.Tools, t)
	}
	if len(changes) > 0 {
		defined := make(map[string]chat.Tool, len(out.Tools))
		for _, t := range out.Tools {
			defined[t.Function.Name] = t
		}
		if err := applyToolChanges(out, defined, changes); err != nil {
			return err
		}
	}
	tc := in.ToolChoice
	if tc == nil || len(out.Tools) == 0 {
		// OpenAI refuses tool_choice without tools; Anthropic ignores it.
		return nil
	}
	switch tc.Type {
	case "auto", "none":
		out.ToolChoice = tc.Type
	case "any":
		out.ToolChoice = "required"
	case "tool":
		if tc.Name == "" {
			return invalid("tool_choice.name", "Field required")
		}
		out.ToolChoice = map[string]any{"type": "function", "function": map[string]string{"name": tc.Name}}
	default:
		return invalid("tool_choice.type", "want \"auto\", \"any\", \"tool\" or \"none\", got %q", tc.Type)
	}
	if tc.DisableParallelToolUse && tc.Type != "none" {
		out.ParallelToolCalls = chat.Ptr(false)
	}
	return nil
}

// cites reports a block (a document, a search result) whose citations are
// enabled: only Claude answers with them.
func (b *inBlock) cites() bool {
	var c struct {
		Enabled bool `json:"enabled"`
	}
	return b.Citations != nil && rawjson.Set(*b.Citations) && json.Unmarshal(*b.Citations, &c) == nil && c.Enabled
}

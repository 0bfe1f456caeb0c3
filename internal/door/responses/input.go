package responses

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/detour-llm/detour/internal/provider/chat"
	"github.com/detour-llm/detour/internal/rawjson"
)

// item is one entry of "input": a message (type "message" or no type), a
// function_call, a function_call_output, or a kind the door refuses or
// drops.
type item struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Output    json.RawMessage `json:"output"`
	Namespace string          `json:"namespace"`
	Tools     json.RawMessage `json:"tools"`
	ID        json.RawMessage `json:"id"` // read only for an item_reference written without its type
	// EncryptedContent is a reasoning item's: one this door wrote carries
	// a Gemini call's sealed thought signature (docs/doors.md).
	EncryptedContent string `json:"encrypted_content"`
}

// inPart is one content part of an input message or a tool output.
type inPart struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	Refusal  string `json:"refusal"`
	ImageURL string `json:"image_url"`
	FileID   string `json:"file_id"`
	Detail   string `json:"detail"`
	// FileData and Filename are an input_file's inline content (a data:
	// URL) and name; FileURL is one by URL.
	FileData string `json:"file_data"`
	Filename string `json:"filename"`
	FileURL  string `json:"file_url"`
}

// translateInput turns "input" into chat messages. A string is one user
// message. Consecutive function_call items join one assistant message's
// tool_calls (following an assistant message when one comes just before);
// function_call_output items become tool messages. A reasoning item's
// reasoning text (its reasoning_text content, which this door writes for
// an OpenAI-compatible model's reasoning_content) goes back as the
// reasoning_content of the assistant turn after it; its summary and
// encrypted content, which only OpenAI reads, are dropped.
//
// An additional_tools item's tools join ts (tools.go); a function_call
// carrying a namespace names the flattened function.
//
// froms[i] is what of the client's input out[i] was made from (Params).
func translateInput(raw json.RawMessage, ts *toolSet) (_ []chat.Message, froms []from, _ error) {
	if !rawjson.Set(raw) {
		return nil, nil, invalid("input", "input is required")
	}
	if s, ok := stringOf(raw); ok {
		if ts.rec {
			froms = []from{{item: "input", content: "input"}}
		}
		return []chat.Message{{Role: "user", Content: jsonString(s)}}, froms, nil
	}
	var items []item
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, nil, invalid("input", "input: want a string or a list of items")
	}
	out := make([]chat.Message, 0, len(items))
	rec := ts.rec
	if rec {
		froms = make([]from, 0, len(items))
	}
	// images are the images of the tool outputs just read: chat tool
	// messages hold text only, so they go in a user message after the
	// last of those tool messages (a user message between two would part
	// a tool result from its call).
	var images []chat.Part
	var imagesFrom []string // each image's member, input[i].output[j]
	thought := reasoningTurns{at: -1}
	signed := "" // a sealed thought signature, for the function_call after it
	for i, it := range items {
		param := fmt.Sprintf("input[%d]", i)
		if it.Type != "function_call_output" && len(images) > 0 {
			out = append(out, imagesMessage(images))
			if rec {
				froms = append(froms, from{parts: imagesFrom})
			}
			images, imagesFrom = nil, nil
		}
		switch it.Type {
		case "", "message":
			if it.Type == "" && it.Role == "" && rawjson.Set(it.ID) {
				if reasoningReference(it.ID) {
					continue
				}
				return nil, nil, itemReferenceError(param) // OpenAI's schema lets a reference leave out its type
			}
			m, f, err := message(param, it, rec)
			if err != nil {
				return nil, nil, err
			}
			out = append(out, m)
			if rec {
				froms = append(froms, f)
			}
			if m.Role == "assistant" {
				thought.assistant(out, len(out)-1)
			} else {
				thought.drop()
				signed = "" // a signature goes with its own turn's call alone (hostile 54c)
			}
		case "function_call":
			if it.CallID == "" || it.Name == "" {
				return nil, nil, invalid(param, "%s: a function_call needs call_id and name", param)
			}
			call := chat.ToolCall{ID: it.CallID, Type: "function", Function: chat.FunctionCall{Name: flatName(it.Namespace, it.Name), Arguments: it.Arguments}}
			if signed != "" {
				call.ExtraContent, signed = chat.SignatureExtra(signed), ""
			}
			if n := len(out); n > 0 && out[n-1].Role == "assistant" {
				out[n-1].ToolCalls = append(out[n-1].ToolCalls, call)
				if rec {
					froms[n-1].item = "" // made of several items now
					froms[n-1].calls = append(froms[n-1].calls, param)
				}
				thought.assistant(out, n-1) // reasoning between the turn's text and its calls
				continue
			}
			out = append(out, chat.Message{Role: "assistant", Content: json.RawMessage("null"), ToolCalls: []chat.ToolCall{call}})
			if rec {
				froms = append(froms, from{item: param, calls: []string{param}})
			}
			thought.assistant(out, len(out)-1)
		case "function_call_output":
			if it.CallID == "" {
				return nil, nil, invalid(param, "%s: a function_call_output needs call_id", param)
			}
			text, imgs, imgsFrom, err := toolOutput(param, it.Output)
			if err != nil {
				return nil, nil, err
			}
			out = append(out, chat.Message{Role: "tool", ToolCallID: it.CallID, Content: jsonString(text)})
			if rec {
				froms = append(froms, from{item: param, content: param + ".output", callID: param + ".call_id"})
				imagesFrom = append(imagesFrom, imgsFrom...)
			}
			thought.drop()
			signed = ""
			images = append(images, imgs...)
		case "additional_tools":
			if err := ts.add(it.Tools, param+".tools"); err != nil {
				return nil, nil, err
			}
		case "reasoning":
			// Codex, the AI SDK with store false and the Agents SDK send
			// every reasoning item back (probe c50c: the rest of such a
			// session was refused). Its reasoning text goes with the
			// assistant turn after it; the rest is dropped.
			t, err := reasoningText(param, it.Content)
			if err != nil {
				return nil, nil, err
			}
			if t != "" {
				thought.add(t)
			}
			// One this door wrote before a Gemini call carries its sealed
			// thought signature, for that call (docs/doors.md).
			if strings.HasPrefix(it.EncryptedContent, chat.SignaturePrefix) {
				signed = it.EncryptedContent
			}
		case "web_search_call":
			// Dropped: a search OpenAI ran, whose tool the door drops too
			// (the answer that used it is the message item after it).
		case "item_reference":
			if reasoningReference(it.ID) {
				continue
			}
			return nil, nil, itemReferenceError(param)
		case "compaction_trigger", "compaction":
			// Codex's built-in OpenAI provider compacts a long session on
			// the server (probe 55a): only OpenAI's own Responses API
			// keeps what a compaction item stands for.
			return nil, nil, unsupported(param+".type", "input item type %q is not supported: remote compaction is served only by a route whose target passes the Responses API through (responses: true); a Codex custom provider compacts locally (README: OpenAI SDK and Codex)", it.Type)
		default:
			return nil, nil, unsupported(param+".type", "input item type %q is not supported: Detour's /v1/responses translates messages, function_call and function_call_output items", it.Type)
		}
	}
	if len(images) > 0 {
		out = append(out, imagesMessage(images))
		if rec {
			froms = append(froms, from{parts: imagesFrom})
		}
	}
	thought.flush(out)
	if len(out) == 0 {
		return nil, nil, invalid("input", "input has no messages")
	}
	return out, froms, nil
}

// reasoningTurns gathers the reasoning text of reasoning items for the
// assistant turn each comes before. A turn's text is joined once, when the
// input is read (flush): joining it again at each call of the turn made a
// crafted input of reasoning and call pairs quadratic (hostile 53b: 19 s
// of CPU for an 8 MiB body).
type reasoningTurns struct {
	pending []string // read since the last assistant item
	at      int      // out index of the turn gathered in turn; -1 for none
	turn    []string
}

func (r *reasoningTurns) add(t string) { r.pending = append(r.pending, t) }

// drop forgets the pending reasoning: no assistant item came after it.
func (r *reasoningTurns) drop() { r.pending = nil }

// assistant gives the pending reasoning to the assistant message at out[i].
func (r *reasoningTurns) assistant(out []chat.Message, i int) {
	if len(r.pending) == 0 {
		return
	}
	if r.at != i {
		r.flush(out)
		r.at = i
	}
	r.turn = append(r.turn, r.pending...)
	r.pending = nil
}

// flush sets the gathered turn's reasoning_content.
func (r *reasoningTurns) flush(out []chat.Message) {
	if r.at >= 0 && len(r.turn) > 0 {
		out[r.at].ReasoningContent = strings.Join(r.turn, "\n")
	}
	r.at, r.turn = -1, nil
}

// reasoningText is the text of a reasoning item's content: its
// reasoning_text parts (and Codex's plain text ones) joined; "" for none.
func reasoningText(param string, raw json.RawMessage) (string, error) {
	if !rawjson.Set(raw) {
		return "", nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", invalid(param+".content", "%s: content: want a list of reasoning_text parts", param)
	}
	var texts []string
	for _, p := range parts {
		if (p.Type == "reasoning_text" || p.Type == "text") && p.Text != "" {
			texts = append(texts, p.Text)
		}
	}
	return strings.Join(texts, "\n"), nil
}

// imagesMessage is a user message of the images of tool outputs.
func imagesMessage(images []chat.Part) chat.Message {
	b, _ := rawjson.Marshal(images)
	return chat.Message{Role: "user", Content: b}
}

// message translates one message item, and with rec says what of it each
// member of the message is (Params).
func message(param string, it item, rec bool) (chat.Message, from, error) {
	var f from
	if rec {
		f = from{item: param, content: param + ".content", role: param + ".role"}
	}
	switch it.Role {
	case "user", "system", "developer", "assistant":
	default:
		return chat.Message{}, f, invalid(param+".role", "%s: unknown role %q", param, it.Role)
	}
	if s, ok := stringOf(it.Content); ok {
		return chat.Message{Role: it.Role, Content: jsonString(s)}, f, nil
	}
	var parts []inPart
	if err := json.Unmarshal(it.Content, &parts); err != nil {
		return chat.Message{}, f, invalid(param+".content", "%s: content: want a string or a list of parts", param)
	}
	if it.Role != "user" {
		// System, developer and assistant turns are text in every dialect.
		texts := make([]string, 0, len(parts))
		for j, p := range parts {
			switch p.Type {
			case "input_text", "output_text":
				texts = append(texts, p.Text)
			case "refusal":
				texts = append(texts, p.Refusal)
			default:
				return chat.Message{}, f, unsupported(fmt.Sprintf("%s.content[%d]", param, j),
					"%s: a %s message's part type %q is not supported (text only)", param, it.Role, p.Type)
			}
		}
		return chat.Message{Role: it.Role, Content: jsonString(joinText(texts))}, f, nil // joined: no part is one of the client's
	}
	out := make([]chat.Part, 0, len(parts))
	for j, p := range parts {
		pp := fmt.Sprintf("%s.content[%d]", param, j)
		switch p.Type {
		case "input_text", "output_text":
			out = append(out, chat.Part{Type: "text", Text: p.Text})
		case "input_image":
			img, err := imagePart(pp, p)
			if err != nil {
				return chat.Message{}, f, err
			}
			out = append(out, img)
		case "input_file":
			fp, err := filePart(pp, p)
			if err != nil {
				return chat.Message{}, f, err
			}
			out = append(out, fp)
		default:
			return chat.Message{}, f, unsupported(pp, "%s: part type %q is not supported (input_text, input_image and input_file only)", pp, p.Type)
		}
		if rec {
			f.parts = append(f.parts, pp) // one chat part for each of the client's
		}
	}
	if len(out) == 1 && out[0].Type == "text" {
		f.parts = nil
		return chat.Message{Role: "user", Content: jsonString(out[0].Text)}, f, nil
	}
	b, _ := rawjson.Marshal(out)
	return chat.Message{Role: "user", Content: b}, f, nil
}

// filePart translates an input_file part: an inline file (OpenAI's PDF
// input) is Chat Completions' file part, which OpenAI takes and the Claude
// and Gemini adapters send as a PDF document (docs/doors.md, "OpenAI
// Responses"); one by file_id or file_url is not.
func filePart(pp string, p inPart) (chat.Part, error) {
	if p.FileData == "" || p.FileID != "" || p.FileURL != "" {
		return chat.Part{}, unsupported(pp, "%s: input_file by file_id or file_url is not supported (Detour stores and fetches no files); send file_data as a data: URL", pp)
	}
	// OpenAI's Chat Completions refuses file_data without a filename
	// (openai/openai-agents-python#1513): a tool's file may have none.
	name := p.Filename
	if strings.TrimSpace(name) == "" {
		name = "document.pdf"
	}
	return chat.Part{Type: "file", File: &chat.File{FileData: p.FileData, Filename: name}}, nil
}

// imagePart translates an input_image part given by URL.
func imagePart(pp string, p inPart) (chat.Part, error) {
	if p.ImageURL == "" {
		return chat.Part{}, unsupported(pp, "%s: images by file_id are not supported (Detour stores no files); send image_url as an https or data: URL", pp)
	}
	detail := p.Detail
	if detail == "auto" {
		detail = ""
	}
	return chat.Part{Type: "image_url", ImageURL: &chat.ImageURL{URL: p.ImageURL, Detail: detail}}, nil
}

// toolOutput reads a function_call_output's output: a string, or a list of
// input_text parts (joined) and input_image parts (returned apart: Codex's
// view_image answers an image), with each image's member (Params).
func toolOutput(param string, raw json.RawMessage) (string, []chat.Part, []string, error) {
	if !rawjson.Set(raw) {
		return "", nil, nil, nil
	}
	if s, ok := stringOf(raw); ok {
		return s, nil, nil, nil
	}
	var parts []inPart
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", nil, nil, invalid(param+".output", "%s: output: want a string or a list of parts", param)
	}
	texts := make([]string, 0, len(parts))
	var images []chat.Part
	var froms []string
	for j, p := range parts {
		pp := fmt.Sprintf("%s.output[%d]", param, j)
		switch p.Type {
		case "input_text", "output_text":
			texts = append(texts, p.Text)
		case "input_image":
			img, err := imagePart(pp, p)
			if err != nil {
				return "", nil, nil, err
			}
			images, froms = append(images, img), append(froms, pp)
		case "input_file":
			// A tool's file goes with its images, after the run of tool
			// messages (review 48c: the AI SDK's and pydantic-ai's tools
			// that return a PDF).
			f, err := filePart(pp, p)
			if err != nil {
				return "", nil, nil, err
			}
			images, froms = append(images, f), append(froms, pp)
		default:
			return "", nil, nil, unsupported(pp, "%s: tool output part type %q is not supported (input_text, input_image and input_file only)", param, p.Type)
		}
	}
	return joinText(texts), images, froms, nil
}

// stringOf reads raw as json.Unmarshal reads it into a string — a JSON
// string decoded, null as "" — and false for anything else, without the
// second pass over the bytes encoding/json makes (and without validating
// a list or an object before failing on it): an agent's tool outputs are
// most of its request (docs/benchmarks.md, "Large requests"). raw is valid
// JSON (the front's strict scan).
func stringOf(raw []byte) (string, bool) {
	v := bytes.TrimSpace(raw)
	if string(v) == "null" {
		return "", true
	}
	if len(v) == 0 || v[0] != '"' {
		return "", false
	}
	return rawjson.String(v)
}

// itemReferenceError refuses the item_reference input item at param. The
// Vercel AI SDK's OpenAI provider (its default model factory) sends one for
// each earlier answer it got from a Responses API unless told not to store
// them (docs/doors.md, "JavaScript clients").
// reasoningReference reports a reference to a reasoning item ("rs_…"),
// which is dropped rather than refused: what this door wrote in one (an
// open model's reasoning, a Gemini call's sealed signature) is context,
// not content, and a turn goes on without it (the placeholder goes for a
// signature). The Vercel AI SDK's Responses model, store left on, sends
// every reasoning item back as such a reference: before, its tool loops
// on a Gemini target failed at their second step once the door wrote a
// reasoning item before each call (probe 54b). A reference to anything
// else is still refused: its content would be lost.
func reasoningReference(id json.RawMessage) bool {
	s, ok := rawjson.String(id)
	return ok && strings.HasPrefix(s, "rs_")
}

func itemReferenceError(param string) *Error {
	e := stateful(param, "\"item_reference\"")
	e.Message += "; with the Vercel AI SDK, pass providerOptions: { openai: { store: false } } (or use openai.chat(model)) so it sends earlier answers whole"
	return e
}

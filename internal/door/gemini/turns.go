package gemini

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/detour-llm/detour/internal/provider/chat"
)

// call is a function call of an earlier model turn, which a later
// functionResponse answers by id, or by name in the order called.
type call struct {
	id, name string
	answered bool
}

// turns translates contents into canonical messages: a user turn's
// functionResponse parts become "tool" messages, in order, before a user
// message of its other parts; a model turn becomes one assistant message
// (its text parts joined, its functionCall parts tool_calls; thought parts
// dropped).
func turns(contents []json.RawMessage) ([]outMessage, error) {
	var out []outMessage
	var calls []*call // the calls of the last model turn
	for i, raw := range contents {
		where := fmt.Sprintf("contents[%d]", i)
		c, err := obj(raw, where)
		if err != nil {
			return nil, err
		}
		if c == nil {
			return nil, invalid(where, "must be a Content object")
		}
		role, err := c.str("role", where)
		if err != nil {
			return nil, err
		}
		parts, err := c.list("parts", where)
		if err != nil {
			return nil, err
		}
		switch role {
		case "", "user", "function": // "function": older clients' turn of results
			msgs, err := userTurn(parts, where, calls)
			if err != nil {
				return nil, err
			}
			out = append(out, msgs...)
		case "model":
			m, cs, err := modelTurn(parts, where, i)
			if err != nil {
				return nil, err
			}
			calls = cs
			if m != nil {
				out = append(out, *m)
			}
		default:
			return nil, invalid(where+".role", fmt.Sprintf("must be user or model, not %q", role))
		}
	}
	return out, nil
}

// userTurn translates a user turn's parts.
func userTurn(parts []json.RawMessage, where string, calls []*call) ([]outMessage, error) {
	var out []outMessage
	var content []chat.Part
	for k, raw := range parts {
		pw := fmt.Sprintf("%s.parts[%d]", where, k)
		p, err := obj(raw, pw)
		if err != nil {
			return nil, err
		}
		if p == nil {
			return nil, invalid(pw, "must be a Part object")
		}
		switch {
		case has(p, "functionResponse"):
			m, err := response(p, pw, calls)
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		case has(p, "functionCall"):
			return nil, invalid(pw, "a functionCall belongs in a model turn")
		default:
			cp, err := userPart(p, pw)
			if err != nil {
				return nil, err
			}
			if cp != nil {
				content = append(content, *cp)
			}
		}
	}
	switch {
	case len(content) == 1 && content[0].Type == "text":
		out = append(out, outMessage{Role: "user", Content: content[0].Text})
	case len(content) > 0:
		out = append(out, outMessage{Role: "user", Content: content})
	case len(out) == 0: // a turn of no parts: an empty user message, as Gemini reads it
		out = append(out, outMessage{Role: "user", Content: ""})
	}
	return out, nil
}

// has reports whether p carries member k with a value.
func has(p object, k string) bool { return set(p[k]) }

// userPart is one part of a user turn other than a function's response:
// text, an image, a PDF or audio (inlineData), an image by URL (fileData);
// nil for a thought or an empty text. What only Gemini reads (a file it
// holds, code it ran, a video) is unsupported.
func userPart(p object, where string) (*chat.Part, error) {
	switch {
	case has(p, "text") || len(p) == 0:
		if th, _ := p.boolean("thought", where); th {
			return nil, nil
		}
		t, err := p.str("text", where)
		if err != nil || t == "" {
			return nil, err
		}
		return &chat.Part{Type: "text", Text: t}, nil
	case has(p, "inlineData"):
		return inline(p["inlineData"], where+".inlineData")
	case has(p, "fileData"):
		return file(p["fileData"], where+".fileData")
	}
	for _, k := range []string{"executableCode", "codeExecutionResult", "videoMetadata", "toolCall", "toolResponse"} {
		if has(p, k) {
			return nil, unsupported(where+"."+k, "a part of kind "+k)
		}
	}
	if has(p, "thought") || has(p, "thoughtSignature") {
		return nil, nil // a thought without text
	}
	return nil, invalid(where, "must hold text, inlineData, fileData, functionCall or functionResponse")
}

// inline translates an inlineData blob: an image as a data: URL, a PDF as
// a file, WAV or MP3 audio as input_audio; another type is Gemini's.
func inline(raw json.RawMessage, where string) (*chat.Part, error) {
	b, err := obj(raw, where)
	if err != nil {
		return nil, err
	}
	mt, err := b.str("mimeType", where)
	if err != nil {
		return nil, err
	}
	data, err := b.str("data", where)
	if err != nil {
		return nil, err
	}
	if _, err := base64.StdEncoding.DecodeString(data); err != nil {
		if _, err := base64.URLEncoding.DecodeString(data); err != nil {
			return nil, invalid(where+".data", "must be base64")
		}
	}
	mt = strings.ToLower(strings.TrimSpace(mt))
	switch {
	case strings.HasPrefix(mt, "image/"):
		return &chat.Part{Type: "image_url", ImageURL: &chat.ImageURL{URL: "data:" + mt + ";base64," + data}}, nil
	case mt == "application/pdf":
		return &chat.Part{Type: "file", File: &chat.File{FileData: "data:application/pdf;base64," + data, Filename: "document.pdf"}}, nil
	case mt == "audio/wav" || mt == "audio/x-wav" || mt == "audio/wave":
		return &chat.Part{Type: "input_audio", InputAudio: &chat.InputAudio{Data: data, Format: "wav"}}, nil
	case mt == "audio/mp3" || mt == "audio/mpeg":
		return &chat.Part{Type: "input_audio", InputAudio: &chat.InputAudio{Data: data, Format: "mp3"}}, nil
	}
	return nil, unsupported(where+".mimeType", fmt.Sprintf("inline data of type %q", mt))
}

// file translates a fileData part: an image at an http(s) URL as
// image_url; a file Gemini holds (its Files API, gs://) or another type
// is Gemini's.
func file(raw json.RawMessage, where string) (*chat.Part, error) {
	f, err := obj(raw, where)
	if err != nil {
		return nil, err
	}
	uri, err := f.str("fileUri", where)
	if err != nil {
		return nil, err
	}
	mt, err := f.str("mimeType", where)
	if err != nil {
		return nil, err
	}
	u, perr := url.Parse(uri)
	if perr != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, unsupported(where+".fileUri", "a file by a URI that is not http(s)")
	}
	if strings.HasSuffix(strings.ToLower(u.Hostname()), "googleapis.com") {
		return nil, unsupported(where+".fileUri", "a file uploaded to Google")
	}
	if mt != "" && !strings.HasPrefix(strings.ToLower(mt), "image/") {
		return nil, unsupported(where+".mimeType", fmt.Sprintf("a file of type %q by URL", mt))
	}
	return &chat.Part{Type: "image_url", ImageURL: &chat.ImageURL{URL: uri}}, nil
}

// response translates a functionResponse into a "tool" message answering
// the call it names: by id, else the first call of its name not yet
// answered in the model turn before. Its content is the response object
// as JSON.
func response(p object, where string, calls []*call) (outMessage, error) {
	where += ".functionResponse"
	fr, err := obj(p["functionResponse"], where)
	if err != nil {
		return outMessage{}, err
	}
	name, err := fr.str("name", where)
	if err != nil {
		return outMessage{}, err
	}
	id, err := fr.str("id", where)
	if err != nil {
		return outMessage{}, err
	}
	if has(fr, "parts") {
		return outMessage{}, unsupported(where+".parts", "a function response with media parts")
	}
	var match *call
	for _, c := range calls {
		if !c.answered && (id != "" && c.id == id || id == "" && c.name == name) {
			match = c
			break
		}
	}
	if match == nil {
		return outMessage{}, invalid(where, fmt.Sprintf("answers no functionCall of the model turn before it (name %q, id %q)", name, id))
	}
	match.answered = true
	resp := fr["response"]
	if !set(resp) {
		resp = json.RawMessage("{}")
	}
	text, err := compact(resp)
	if err != nil {
		return outMessage{}, invalid(where+".response", "must be JSON")
	}
	return outMessage{Role: "tool", ToolCallID: match.id, Content: text}, nil
}

// modelTurn translates a model turn (turn i) into an assistant message
// and its calls; nil when it says nothing a target reads (only thoughts).
func modelTurn(parts []json.RawMessage, where string, i int) (*outMessage, []*call, error) {
	var text strings.Builder
	var tcs []chat.ToolCall
	var calls []*call
	for k, raw := range parts {
		pw := fmt.Sprintf("%s.parts[%d]", where, k)
		p, err := obj(raw, pw)
		if err != nil {
			return nil, nil, err
		}
		if p == nil {
			return nil, nil, invalid(pw, "must be a Part object")
		}
		switch {
		case has(p, "functionCall"):
			tc, err := functionCall(p, pw, fmt.Sprintf("call_%d_%d", i, k))
			if err != nil {
				return nil, nil, err
			}
			tcs = append(tcs, tc)
			calls = append(calls, &call{id: tc.ID, name: tc.Function.Name})
		case has(p, "functionResponse"):
			return nil, nil, invalid(pw, "a functionResponse belongs in a user turn")
		case has(p, "text"):
			if th, _ := p.boolean("thought", pw); th {
				continue // only the model that wrote it reads it back
			}
			t, err := p.str("text", pw)
			if err != nil {
				return nil, nil, err
			}
			text.WriteString(t)
		case has(p, "inlineData") || has(p, "fileData") || has(p, "executableCode") || has(p, "codeExecutionResult"):
			return nil, nil, unsupported(pw, "a model turn holding media or code")
		}
	}
	if text.Len() == 0 && len(tcs) == 0 {
		return nil, nil, nil
	}
	m := &outMessage{Role: "assistant", ToolCalls: tcs}
	if text.Len() > 0 {
		m.Content = text.String()
	}
	return m, calls, nil
}

// functionCall translates a functionCall part into a tool call: its id
// (else id), name and args; its thoughtSignature travels as the call's
// extra_content, which only the Gemini endpoint that sealed it reads back
// (docs/doors.md, "Gemini thought signatures").
func functionCall(p object, where, id string) (chat.ToolCall, error) {
	fw := where + ".functionCall"
	fc, err := obj(p["functionCall"], fw)
	if err != nil {
		return chat.ToolCall{}, err
	}
	name, err := fc.str("name", fw)
	if err != nil {
		return chat.ToolCall{}, err
	}
	if name == "" {
		return chat.ToolCall{}, invalid(fw+".name", "must not be empty")
	}
	if own, err := fc.str("id", fw); err != nil {
		return chat.ToolCall{}, err
	} else if own != "" {
		id = own
	}
	args := "{}"
	if a := fc["args"]; set(a) {
		if args, err = compact(a); err != nil || !strings.HasPrefix(args, "{") {
			return chat.ToolCall{}, invalid(fw+".args", "must be an object")
		}
	}
	tc := chat.ToolCall{ID: id, Type: "function", Function: chat.FunctionCall{Name: name, Arguments: args}}
	// Only a signature this gateway sealed travels: one a Gemini target
	// wrote (a turn passed through, handed back raw) is read by that
	// model alone, and reached an OpenAI target as extra_content, a member
	// OpenAI refuses on some models, and Gemini's OpenAI-compatible
	// endpoint as a signature it did not write ("Corrupted thought
	// signature"), where without one it takes the placeholder (hostile 69j).
	if sig, err := p.str("thoughtSignature", where); err != nil {
		return chat.ToolCall{}, err
	} else if strings.HasPrefix(sig, chat.SignaturePrefix) {
		tc.ExtraContent = chat.SignatureExtra(sig)
	}
	return tc, nil
}

// compact is raw, valid JSON, without insignificant space (its numbers
// and member order as sent).
func compact(raw json.RawMessage) (string, error) {
	var b bytes.Buffer
	err := json.Compact(&b, raw)
	return b.String(), err
}

package gemini

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/chat"
	"github.com/detour-llm/detour/internal/rawjson"
)

// contents splits the conversation into the system instruction and turns.
func contents(msgs []chat.Message, ep provider.Endpoint) (*content, []content, error) {
	var sys *content
	var out []content
	names := make(map[string]callRef) // tool_call_id → its call
	// order holds the call positions of the function responses that make
	// up the last content so far (nil once it holds anything else):
	// Gemini pairs a turn's responses with its calls by name and position,
	// so a client that answered two calls to one function out of order
	// would have its results swapped. OpenAI and Anthropic pair by id, and
	// order here changes nothing for them (docs/doors.md).
	var order []int
	// images are the images of the tool messages just read: Gemini's
	// function response holds JSON, so they follow the run of responses
	// in the same user content (as the Messages door places a
	// tool_result's images), where the model sees them.
	var images []part
	for i := range msgs {
		m := &msgs[i]
		if m.Role != "tool" && m.Role != "function" && len(images) > 0 {
			out[len(out)-1].Parts = append(out[len(out)-1].Parts, images...)
			images, order = nil, nil
		}
		var role string
		var parts []part
		var err error
		at := -1
		switch m.Role {
		case "system", "developer":
			t, err := m.Text("\n")
			if err != nil {
				return nil, nil, err
			}
			if t != "" {
				if sys == nil {
					sys = &content{}
				}
				sys.Parts = append(sys.Parts, part{Text: t})
			}
			continue
		case "user":
			role = "user"
			parts, err = userParts(m)
		case "assistant":
			role = "model"
			base := 0 // calls already in the model content this message joins
			if n := len(out); n > 0 && out[n-1].Role == role {
				for _, p := range out[n-1].Parts {
					if p.FunctionCall != nil {
						base++
					}
				}
			}
			parts, err = modelParts(m, names, base, ep)
		case "tool", "function":
			role = "user"
			parts, at, err = responsePart(m, names)
			if err == nil {
				var imgs []part
				imgs, err = toolImages(m)
				images = append(images, imgs...)
			}
		default:
			return nil, nil, provider.Refuse(fmt.Sprintf("messages[%d].role", i), "gemini: unknown message role %q", m.Role)
		}
		if err != nil {
			return nil, nil, provider.At(fmt.Sprintf("messages[%d]", i), err)
		}
		if len(parts) == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			last := &out[n-1]
			if at >= 0 && len(order) == len(last.Parts) {
				j := sort.SearchInts(order, at+1) // after the calls before it, and its equals
				last.Parts = slices.Insert(last.Parts, j, parts...)
				order = slices.Insert(order, j, at)
			} else {
				last.Parts = append(last.Parts, parts...)
			}
			continue
		}
		out = append(out, content{Role: role, Parts: parts})
		order = nil
		if at >= 0 {
			order = []int{at}
		}
	}
	if len(images) > 0 {
		out[len(out)-1].Parts = append(out[len(out)-1].Parts, images...)
	}
	if len(out) == 0 {
		// Gemini wants at least one content; OpenAI takes a conversation
		// of system messages alone (an LLM-as-judge or one-shot prompt),
		// and one whose only user text is empty. The instructions are then
		// the one user content, sent once (docs/doors.md, "Chat Completions
		// to Claude and Gemini targets"); with none either, there is
		// nothing Gemini takes, and another target may take the request.
		if sys == nil {
			return nil, nil, errors.New("gemini: the conversation has no content to send (Gemini refuses empty contents)")
		}
		return nil, []content{{Role: "user", Parts: sys.Parts}}, nil
	}
	return sys, out, nil
}

func userParts(m *chat.Message) ([]part, error) {
	return contentParts(m, false)
}

// contentParts translates a message's content; a refusal part is text in
// an assistant turn (model), which alone may hold one, and refused in
// another.
func contentParts(m *chat.Message, model bool) ([]part, error) {
	ps, err := m.Parts()
	if err != nil {
		return nil, err
	}
	var out []part
	for k, p := range ps {
		switch p.Type {
		case "text":
			if p.Text != "" {
				out = append(out, part{Text: p.Text})
			}
		case "refusal":
			if !model {
				return nil, provider.Refuse(partAt(k), "gemini: unsupported content part type %q in a %s message", p.Type, m.Role)
			}
			if strings.TrimSpace(p.Refusal) != "" {
				out = append(out, part{Text: p.Refusal})
			}
		case "image_url":
			ip, err := imagePart(p)
			if err != nil {
				return nil, provider.At(partAt(k), err)
			}
			out = append(out, ip)
		case "file", "input_audio":
			if model {
				return nil, provider.Refuse(partAt(k), "gemini: unsupported content part type %q in a %s message", p.Type, m.Role)
			}
			mp, err := mediaPart(p)
			if err != nil {
				return nil, provider.At(partAt(k), err)
			}
			out = append(out, mp)
		default:
			return nil, provider.Refuse(partAt(k), "gemini: unsupported content part type %q", p.Type)
		}
	}
	return out, nil
}

// callRef is what a tool message's tool_call_id names: the function, and
// the call's position among the calls of its model content (consecutive
// assistant messages join one content: review 39i).
type callRef struct {
	name string
	at   int
}

// modelParts translates an assistant message whose calls follow base calls
// of the content it joins; a call hands back the thought signature the
// endpoint ep wrote for it, and the first call without one gets the
// placeholder.
func modelParts(m *chat.Message, names map[string]callRef, base int, ep provider.Endpoint) ([]part, error) {
	out, err := contentParts(m, true)
	if err != nil {
		return nil, err
	}
	// A turn that refused, as OpenAI's clients hand it back (openai-go's
	// ToParam, openai-python's model_dump: often with content null), is
	// the model's text, so the model knows what it said (docs/doors.md);
	// a refusal part of the same text already says it.
	if r := strings.TrimSpace(m.Refusal); r != "" && !slices.ContainsFunc(out, func(p part) bool { return strings.TrimSpace(p.Text) == r }) {
		out = append(out, part{Text: m.Refusal})
	}
	for i, tc := range m.ToolCalls {
		args := chat.HistoryArguments(tc.Function.Arguments)
		names[tc.ID] = callRef{name: tc.Function.Name, at: base + i}
		p := part{FunctionCall: &functionCall{Name: tc.Function.Name, Args: args}, ThoughtSignature: handedBack(tc.ExtraContent, ep)}
		if i == 0 && p.ThoughtSignature == "" {
			p.ThoughtSignature = SkipSignature
		}
		out = append(out, p)
	}
	return out, nil
}

// responsePart translates a tool message; at is its call's position, -1
// when the message names a function but no call of the history.
func responsePart(m *chat.Message, names map[string]callRef) (_ []part, at int, _ error) {
	ref, ok := names[m.ToolCallID]
	if !ok {
		ref = callRef{name: m.Name, at: -1}
	}
	name := ref.name
	if name == "" {
		return nil, -1, provider.Refuse("tool_call_id", "gemini: tool message answers unknown tool_call_id %q", m.ToolCallID)
	}
	text, err := m.Text("\n")
	if err != nil {
		return nil, -1, err
	}
	resp := json.RawMessage(nil)
	t := strings.TrimSpace(text)
	switch {
	case refResponse([]byte(t)): // as text, below
		resp, _ = rawjson.Marshal(map[string]string{"content": text})
	case strings.HasPrefix(t, "{") && json.Valid([]byte(t)):
		resp = json.RawMessage(t)
	case t != "" && json.Valid([]byte(t)) && (t[0] == '[' || t[0] == '"'):
		resp, _ = rawjson.Marshal(map[string]json.RawMessage{"content": json.RawMessage(t)})
	default:
		resp, _ = rawjson.Marshal(map[string]string{"content": text})
	}
	return []part{{FunctionResponse: &functionResponse{Name: name, Response: resp}}}, ref.at, nil
}

// partAt is the member of a message's content part k, for a refusal of it.
func partAt(k int) string { return fmt.Sprintf("content[%d]", k) }

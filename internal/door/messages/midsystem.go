package messages

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/detour-llm/detour/internal/provider/chat"
	"github.com/detour-llm/detour/internal/rawjson"
)

// Mid-conversation system messages (docs/doors.md, Messages table): a
// message of role "system" holds text blocks, and, under Anthropic's
// mid-conversation tool changes (Claude Code sends the beta), tool_addition
// and tool_removal blocks that change which tools the model is offered from
// that point on. A translated target has one tool list for the whole
// request, and what it answers is the turn at the end of the conversation:
// so it gets the tools in effect there, the request's tools with every
// change applied in order. A system message may also be limited to its
// turn (clear_at).

// toolChange is one tool_addition or tool_removal, in conversation order.
type toolChange struct {
	field  string // the block's path, for errors
	remove bool
	name   string          // the tool referred to
	def    json.RawMessage // a tool_addition's definition by value; nil for a reference
}

// inToolTarget is a tool change's "tool".
type inToolTarget struct {
	Type       string          `json:"type"`
	Name       string          `json:"name"`
	Definition json.RawMessage `json:"definition"`
}

// clearAtNextUser is the one clear_at value the door knows.
const clearAtNextUser = "next_user_message"

// systemMessage translates messages[i] of role system: its text (the
// text blocks, and a mid_conv_system block's text blocks, joined by
// newlines, as system does) and its tool changes, appended to changes.
// Block types Anthropic may add later are its to judge (Unsupported), not
// malformed: the top-level system takes text alone, a system message more.
func systemMessage(field string, m *inMessage, changes *[]toolChange) (string, error) {
	blocks, s, err := content(field+".content", m.Content)
	if err != nil {
		return "", err
	}
	if blocks == nil {
		return s, nil
	}
	texts := make([]string, 0, len(blocks))
	for j := range blocks {
		b := &blocks[j]
		bf := fmt.Sprintf("%s.content.%d", field, j)
		switch b.Type {
		case "text":
			if b.Text == nil {
				return "", invalid(bf+".text", "Field required")
			}
			if !strings.HasPrefix(*b.Text, BillingHeaderPrefix) {
				texts = append(texts, *b.Text)
			}
		case "mid_conv_system":
			// An earlier form of the same thing: text blocks in "content".
			s, err := system(b.Content)
			if err != nil {
				return "", relabel(err, "system", bf+".content")
			}
			if s != "" {
				texts = append(texts, s)
			}
		case "tool_addition", "tool_removal":
			c, err := readToolChange(bf, b)
			if err != nil {
				return "", err
			}
			*changes = append(*changes, c)
		case "":
			return "", invalid(bf+".type", "Field required")
		default:
			return "", unsupported(bf+".type", "%q blocks in a system message", b.Type)
		}
	}
	return strings.Join(texts, "\n"), nil
}

// readToolChange reads a tool_addition or tool_removal block. A reference
// by name to a tool of the request translates; an MCP tool or toolset
// needs Anthropic's MCP connector (mcp_servers), and a change of another
// kind is Anthropic's to judge.
func readToolChange(field string, b *inBlock) (toolChange, error) {
	c := toolChange{field: field, remove: b.Type == "tool_removal"}
	if !rawjson.Set(b.Tool) {
		return c, invalid(field+".tool", "Field required")
	}
	var t inToolTarget
	if err := json.Unmarshal(b.Tool, &t); err != nil {
		return c, decodeError(field+".tool", err)
	}
	switch {
	case t.Type == "tool_reference":
		if t.Name == "" {
			return c, invalid(field+".tool.name", "Field required")
		}
		c.name = t.Name
	case t.Type == "tool_definition" && !c.remove:
		if !rawjson.Set(t.Definition) {
			return c, invalid(field+".tool.definition", "Field required")
		}
		var def inTool
		if err := json.Unmarshal(t.Definition, &def); err != nil {
			return c, decodeError(field+".tool.definition", err)
		}
		c.name, c.def = def.Name, t.Definition
	default:
		return c, unsupported(field+".tool", "a %s of a tool of type %q", b.Type, t.Type)
	}
	return c, nil
}

// applyToolChanges applies the conversation's tool changes, in order, to
// the translated tools: a reference adds back a tool the request defined
// (in tools, or by value in an earlier change) or withdraws one offered; a
// definition adds a tool. A change Anthropic would judge otherwise (a
// reference to no tool offered or defined, a definition of a name already
// offered) is its to judge, as are tools of one name given twice. The
// offered tools are found by name in a map, not by a walk of the list at
// each change: 20,000 changes of 20,000 tools took 2 s (review 41i).
func applyToolChanges(out *outRequest, defined map[string]chat.Tool, changes []toolChange) error {
	all := out.Tools                           // offered, and withdrawn (gone), in the order offered
	gone := make([]bool, len(all), len(all)+1) // withdrawn
	at := make(map[string]int, len(all))       // name → its place in all, while offered
	for i := range all {
		name := all[i].Function.Name
		if _, dup := at[name]; dup {
			return unsupported(fmt.Sprintf("tools.%d.name", i), "tools of one name, %q, given twice", name)
		}
		at[name] = i
	}
	for _, c := range changes {
		i, offered := at[c.name]
		switch {
		case c.remove:
			if !offered {
				return unsupported(c.field+".tool", "a tool_removal of %q, which is not offered at that point", c.name)
			}
			gone[i] = true
			delete(at, c.name)
		case c.def != nil:
			if offered {
				return unsupported(c.field+".tool", "a tool_addition defining %q, which is already offered", c.name)
			}
			t, err := functionTool(c.field+".tool.definition", c.def)
			if err != nil {
				return err
			}
			defined[c.name] = t
			at[c.name] = len(all)
			all, gone = append(all, t), append(gone, false)
		case !offered:
			t, ok := defined[c.name]
			if !ok {
				return unsupported(c.field+".tool", "a tool_addition of %q, which the request does not define", c.name)
			}
			at[c.name] = len(all)
			all, gone = append(all, t), append(gone, false)
		}
	}
	out.Tools = all[:0]
	for i := range all {
		if !gone[i] {
			out.Tools = append(out.Tools, all[i])
		}
	}
	return nil
}

// functionTool translates a tool definition given by value.
func functionTool(field string, raw json.RawMessage) (chat.Tool, error) {
	var t inTool
	if err := json.Unmarshal(raw, &t); err != nil {
		return chat.Tool{}, decodeError(field, err)
	}
	return customTool(field, &t)
}

// clearedAt reads a system message's clear_at: whether the message is
// cleared (not shown to the model) because a user message follows it.
// Anthropic's documentation says a message with clear_at
// "next_user_message" stops reaching the model once a user message
// follows; it does not say whether a user message of tool results (a turn
// still running) counts. So: no user message after it, kept; a user
// message without tool results after it (someone wrote), cleared; only tool
// results after it, Anthropic's to judge. last is where the conversation's
// last user messages are, read once for all its system messages (a scan
// after each took a 515 KiB body of them 24 s: review 41i).
func clearedAt(field string, msgs []inMessage, i int, last *lastUsers) (bool, error) {
	raw := msgs[i].ClearAt
	if !rawjson.Set(raw) {
		return false, nil
	}
	var v string
	if s, ok := rawjson.String(raw); ok {
		v = s
	}
	if v != clearAtNextUser {
		// The value is the client's: not quoted back (review 64j: its
		// escapes ran past the record's masks).
		return false, unsupported(field+".clear_at", "clear_at other than next_user_message")
	}
	last.read(msgs)
	switch {
	case last.plain > i:
		return true, nil
	case last.results > i:
		return false, unsupported(field+".clear_at", "clear_at %q on a system message followed by tool results only (whether they clear it is Anthropic's to judge)", v)
	}
	return false, nil
}

// lastUsers is the index of the conversation's last user message without
// tool results (plain) and with them (results), -1 when there is none.
type lastUsers struct {
	done           bool
	plain, results int
}

// read finds them, once, from the end of msgs.
func (l *lastUsers) read(msgs []inMessage) {
	if l.done {
		return
	}
	l.done, l.plain, l.results = true, -1, -1
	for j := len(msgs) - 1; j >= 0 && (l.plain < 0 || l.results < 0); j-- {
		if msgs[j].Role != "user" {
			continue
		}
		if holdsToolResult(msgs[j].Content) {
			l.results = max(l.results, j)
		} else {
			l.plain = max(l.plain, j)
		}
	}
}

// holdsToolResult reports whether a user message's content has a
// tool_result block.
func holdsToolResult(raw json.RawMessage) bool {
	var blocks []struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return false
	}
	for _, b := range blocks {
		if b.Type == "tool_result" {
			return true
		}
	}
	return false
}

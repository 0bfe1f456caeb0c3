package anthropic

import (
	"strings"

	"github.com/detour-llm/detour/internal/provider/chat"
)

// Prompt-cache breakpoints a chat client marks on its content parts
// (`cache_control`, as OpenRouter and LiteLLM carry them to Claude) go to a
// Claude target on the blocks they mark, within what Anthropic takes
// (docs/doors.md, "Chat Completions to Claude and Gemini targets"): the
// answer is the same either way, but a marked prompt is read from Claude's
// cache at a tenth of its price instead of paid again every turn.

// maxBreakpoints is the most cache_control blocks Anthropic takes in one
// request; more is a 400 ("A maximum of 4 blocks with cache_control may be
// provided").
const maxBreakpoints = 4

// breakpoint is the client's mark as Anthropic takes it: type "ephemeral"
// with a ttl of "5m" or "1h" (other ttls left to Anthropic's default);
// nil for no mark or a type Anthropic does not know, which it would refuse.
func breakpoint(c *chat.CacheControl) *chat.CacheControl {
	if c == nil || c.Type != "ephemeral" {
		return nil
	}
	out := &chat.CacheControl{Type: "ephemeral"}
	if c.TTL == "5m" || c.TTL == "1h" {
		out.TTL = c.TTL
	}
	return out
}

// partMark is part p's breakpoint as Anthropic takes it: its cache_control
// (breakpoint), else OpenAI's own prompt_cache_breakpoint, which openai-go,
// openai-node and the AI SDK write (probe 67c: it was dropped, and a chat
// client's marked prompt was never cached at Claude). Its ttl is the least
// the cache is to live: "30m" and "12h" are Claude's "1h", the longest it
// keeps; none is Claude's default.
func partMark(p *chat.Part) *chat.CacheControl {
	if c := breakpoint(p.CacheControl); c != nil || p.CacheControl != nil && p.CacheControl.Type != "" {
		return c
	}
	b := p.PromptCacheBreakpoint
	if b == nil || b.Mode != "explicit" {
		return nil
	}
	out := &chat.CacheControl{Type: "ephemeral"}
	if b.TTL == "30m" || b.TTL == "12h" {
		out.TTL = "1h"
	}
	return out
}

// systemBlock is a system message as one text block: its text parts joined
// by newlines, marked with the last breakpoint among them (the prefix it
// ends then takes the rest of that message too).
func systemBlock(m *chat.Message) (block, error) {
	parts, err := m.Parts()
	if err != nil {
		return block{}, err
	}
	b := block{Type: "text"}
	var texts []string
	for _, p := range parts {
		if p.Type != "text" {
			continue
		}
		texts = append(texts, p.Text)
		if c := partMark(&p); c != nil {
			b.CacheControl = c
		}
	}
	b.Text = strings.Join(texts, "\n")
	if b.CacheControl == nil {
		b.CacheControl = breakpoint(m.CacheControl)
	}
	return b, nil
}

// markLast puts a message's (or the request's) breakpoint c on the last of
// blocks that Anthropic lets carry one (not a thinking block), unless a
// part already marked it: Anthropic takes marks on blocks only, and the
// last block ends the prefix the client meant to cache.
func markLast(blocks []block, c *chat.CacheControl) {
	bp := breakpoint(c)
	if bp == nil {
		return
	}
	for i := len(blocks) - 1; i >= 0; i-- {
		if t := blocks[i].Type; t == "thinking" || t == "redacted_thinking" {
			continue
		}
		if blocks[i].CacheControl == nil {
			blocks[i].CacheControl = bp
		}
		return
	}
}

// systemText is the system prompt as one string, its messages joined by a
// blank line.
func systemText(system []block) string {
	texts := make([]string, len(system))
	for i := range system {
		texts[i] = system[i].Text
	}
	return strings.Join(texts, "\n\n")
}

// systemOf is the request's system member: the blocks when one of them
// carries a breakpoint (a string cannot), the text otherwise; nil for none.
func systemOf(system []block) any {
	for i := range system {
		if system[i].CacheControl != nil {
			return system
		}
	}
	if t := systemText(system); t != "" {
		return t
	}
	return nil
}

// limitBreakpoints keeps the request's breakpoints within what Anthropic
// takes, in the order it reads them (system, then messages): at most
// maxBreakpoints — the first (the long stable prefix: the system prompt)
// and the last ones (the conversation so far) —, and no "1h" after a
// shorter one (Anthropic wants longer-lived entries first), which becomes
// the default instead. system is out's system blocks.
func limitBreakpoints(out *messagesRequest, system []block) {
	var marks []**chat.CacheControl
	for i := range system {
		if system[i].CacheControl != nil {
			marks = append(marks, &system[i].CacheControl)
		}
	}
	for i := range out.Messages {
		for j := range out.Messages[i].Content {
			if b := &out.Messages[i].Content[j]; b.CacheControl != nil {
				marks = append(marks, &b.CacheControl)
			}
		}
	}
	if len(marks) > maxBreakpoints {
		for _, m := range marks[1 : len(marks)-(maxBreakpoints-1)] {
			*m = nil
		}
		marks = append(marks[:1], marks[len(marks)-(maxBreakpoints-1):]...)
	}
	short := false
	for _, m := range marks {
		switch {
		case (*m).TTL != "1h":
			short = true
		case short:
			*m = &chat.CacheControl{Type: "ephemeral"}
		}
	}
}

// marked reports whether any block of system or msgs carries a
// breakpoint: the client placed its own, and a prompt_cache_key adds none
// beside them (review 62l: one more on the tail cost a cache write of it
// every request, and with four of the client's it dropped one of theirs).
func marked(system []block, msgs []message) bool {
	for i := range system {
		if system[i].CacheControl != nil {
			return true
		}
	}
	for i := range msgs {
		for j := range msgs[i].Content {
			if msgs[i].Content[j].CacheControl != nil {
				return true
			}
		}
	}
	return false
}

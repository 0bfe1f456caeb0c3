package openai

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/detour-llm/detour/internal/rawjson"
)

// MaxDescription is the longest tools[].function.description OpenAI's Chat
// Completions takes, in characters: a longer one is a 400 "Invalid
// 'tools[0].function.description': string too long. Expected a string with
// maximum length 1024, …" (code string_above_max_length). Anthropic's
// Messages and OpenAI's Responses API take longer ones, and the agents
// written for them send them (Claude Code's Agent and Bash tools, Codex's
// update_goal).
const MaxDescription = 1024

// fullDescriptions opens the system message that carries the full text of
// the descriptions FitDescriptions cut.
const fullDescriptions = "Full descriptions of the tools whose description was cut short (it ends with …):"

// FitDescriptions returns body, a Chat Completions request, with every
// function tool's description longer than MaxDescription characters cut to
// its first MaxDescription-1 characters and "…", and the full text of each
// such description in one system message ("## <name>" then the text)
// placed after the system and developer messages the conversation opens
// with, so the model still reads all of it. A body without such a
// description, or one that is not a request Detour can read that way (no
// messages array), is returned as is, byte for byte; so is every member
// of a changed body but tools and messages.
func FitDescriptions(body []byte) []byte {
	ts, te, err := rawjson.MemberSpan(body, "tools")
	if err != nil || ts < 0 {
		return body
	}
	tools, ok := rawjson.ScanArray(body[ts:te])
	if !ok {
		return body
	}
	first := -1 // the first tool whose description is too long
	for i := 0; first < 0; i++ {
		_, tool, more := tools.Next()
		if !more {
			return body // the common case: nothing allocated
		}
		if _, _, _, _, long := tooLong(tool); long {
			first = i
		}
	}
	tools, _ = rawjson.ScanArray(body[ts:te])
	var (
		elems [][]byte
		full  strings.Builder
	)
	for i := 0; ; i++ {
		_, tool, more := tools.Next()
		if !more {
			break
		}
		elems = append(elems, tool)
		if i < first {
			continue
		}
		fs, fe, ds, de, long := tooLong(tool)
		if !long {
			continue
		}
		fn := tool[fs:fe]
		desc, _ := rawjson.String(fn[ds:de])
		name, _ := rawjson.String(rawjson.Member(fn, "name"))
		if full.Len() > 0 {
			full.WriteString("\n\n")
		}
		full.WriteString("## ")
		full.WriteString(name)
		full.WriteByte('\n')
		full.WriteString(desc)
		short := rawjson.AppendString(nil, shorten(desc))
		elems[i] = rawjson.Replace(tool, fs, fe, rawjson.Replace(fn, ds, de, short))
	}
	ms, me, _ := rawjson.MemberSpan(body, "messages")
	if ms < 0 {
		return body
	}
	msgs, ok := rawjson.ScanArray(body[ms:me])
	if !ok {
		return body
	}
	var lead, rest [][]byte
	role := "system"
	for {
		_, m, more := msgs.Next()
		if !more {
			break
		}
		if len(rest) == 0 {
			r, _ := rawjson.String(rawjson.Member(m, "role"))
			if r == "system" || r == "developer" {
				lead, role = append(lead, m), r
				continue
			}
		}
		rest = append(rest, m)
	}
	sys := []byte(`{"role":`)
	sys = rawjson.AppendString(sys, role)
	sys = append(sys, `,"content":`...)
	sys = rawjson.AppendString(sys, fullDescriptions+"\n\n"+full.String())
	sys = append(sys, '}')
	messages := joinArray(append(append(lead, sys), rest...))
	// messages and tools are replaced from the later member back, so the
	// earlier one's span still holds.
	if ms > ts {
		body = rawjson.Replace(body, ms, me, messages)
		return rawjson.Replace(body, ts, te, joinArray(elems))
	}
	body = rawjson.Replace(body, ts, te, joinArray(elems))
	return rawjson.Replace(body, ms, me, messages)
}

// tooLong finds a function tool's description longer than MaxDescription
// characters: the span of the tool's function member, and the span of the
// description within it.
func tooLong(tool []byte) (fs, fe, ds, de int, long bool) {
	fs, fe, err := rawjson.MemberSpan(tool, "function")
	if err != nil || fs < 0 {
		return 0, 0, 0, 0, false
	}
	fn := tool[fs:fe]
	ds, de, err = rawjson.MemberSpan(fn, "description")
	// A JSON string of n bytes holds at most n-2 characters.
	if err != nil || ds < 0 || de-ds-2 <= MaxDescription {
		return 0, 0, 0, 0, false
	}
	desc, ok := rawjson.String(fn[ds:de])
	if !ok || utf8.RuneCountInString(desc) <= MaxDescription {
		return 0, 0, 0, 0, false
	}
	return fs, fe, ds, de, true
}

// shorten returns desc's first MaxDescription-1 characters and "…".
func shorten(desc string) string {
	n := 0
	for i := range desc {
		if n == MaxDescription-1 {
			return desc[:i] + "…"
		}
		n++
	}
	return desc
}

// joinArray writes elems as one JSON array.
func joinArray(elems [][]byte) []byte {
	n := 2
	for _, e := range elems {
		n += len(e) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, '[')
	for i, e := range elems {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, e...)
	}
	return append(out, ']')
}

// SentParam is p, a member of the body NewRequest sent for canonical, a
// door's translation (an OpenAI-dialect upstream's error.param), as the
// member of canonical it names, "" where it names none: FitDescriptions
// put its note among the messages, after the system and developer
// messages the conversation opens with, so each later message is one
// index further in the body sent than in canonical (hostile 69d: an
// honest param naming the client's input[0] was told as its input[1]).
// Any other p, and every p of a body not fitted, is p. Read on the error
// path alone: the tools are scanned again.
func SentParam(canonical []byte, p string) string {
	rest, ok := strings.CutPrefix(p, "messages")
	if !ok || rest == "" || (rest[0] != '[' && rest[0] != '.') {
		return p
	}
	lead, fitted := noteAt(canonical)
	if !fitted {
		return p
	}
	i, tail, ok := rawjson.PathIndex(rest)
	switch {
	case !ok || i < lead:
		return p
	case i == lead:
		return "" // the note: Detour's, none of the client's
	}
	return "messages[" + strconv.Itoa(i-1) + "]" + tail
}

// noteAt reports whether FitDescriptions changes body and, if so, the
// index of the message it adds.
func noteAt(body []byte) (int, bool) {
	ts, te, err := rawjson.MemberSpan(body, "tools")
	if err != nil || ts < 0 {
		return 0, false
	}
	tools, ok := rawjson.ScanArray(body[ts:te])
	if !ok {
		return 0, false
	}
	for long := false; !long; {
		_, tool, more := tools.Next()
		if !more {
			return 0, false
		}
		_, _, _, _, long = tooLong(tool)
	}
	ms, me, _ := rawjson.MemberSpan(body, "messages")
	if ms < 0 {
		return 0, false
	}
	msgs, ok := rawjson.ScanArray(body[ms:me])
	if !ok {
		return 0, false
	}
	lead := 0
	for {
		_, m, more := msgs.Next()
		if !more {
			return lead, true
		}
		if r, _ := rawjson.String(rawjson.Member(m, "role")); r != "system" && r != "developer" {
			return lead, true
		}
		lead++
	}
}

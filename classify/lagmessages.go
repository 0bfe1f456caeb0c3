package classify

import "bytes"

// The Anthropic-dialect twin of round 54b's lag rule (round 55, hunt 55c):
// a server's copy of the Messages API refusing a tool_choice member or type
// that the API documents (docs.claude.com/en/api/messages#body-tool-choice:
// type auto, any, tool and, since 2025-02-27, none; name;
// disable_parallel_tool_use) lags behind it; Anthropic's own API serves the
// request, so the answer is the server's gap (unknown), not the client's.

var messagesToolChoiceMembers = map[string]bool{"type": true, "name": true, "disable_parallel_tool_use": true}

var messagesToolChoiceTypes = map[string]bool{"auto": true, "any": true, "tool": true, "none": true}

// toolChoiceMemberLag reports Bedrock's JSON-schema validator refusing
// documented tool_choice members ("#/tool_choice: extraneous key
// [disable_parallel_tool_use] is not permitted"): every extraneous key the
// text names stands under #/tool_choice and is such a member. A key at "#:"
// (stream, model: InvokeModel carries them outside the body) or inside a
// tool's schema is no lag.
func toolChoiceMemberLag(f *facts, req []byte) bool {
	const key = "extraneous key ["
	for i := 0; i < f.nTexts; i++ {
		t := f.texts[i]
		if echoed(req, t) || bytes.Contains(req, []byte(key)) {
			continue
		}
		n, rest, ok := 0, t, true
		for ok {
			k := bytes.Index(rest, []byte(key))
			if k < 0 {
				break
			}
			ok = bytes.HasSuffix(bytes.TrimRight(rest[:k], " "), []byte("#/tool_choice:"))
			r := rest[k+len(key):]
			j := bytes.IndexByte(r, ']')
			ok = ok && j > 0 && messagesToolChoiceMembers[string(r[:j])]
			n++
			rest = r
		}
		if ok && n > 0 {
			return true
		}
	}
	return false
}

// toolChoiceTypeLag reports pydantic's literal_error at ('body',
// 'tool_choice', 'type'), the only error printed, whose input is a type
// the Messages API documents (vLLM's /v1/messages given {"type":"none"}).
// An input the API does not have (a typo) stays the client's.
func toolChoiceTypeLag(f *facts, req []byte) bool {
	const loc, in = "'loc': ('body', 'tool_choice', 'type')", "'input': '"
	for i := 0; i < f.nTexts; i++ {
		t := f.texts[i]
		t = t[relayLabel(t):]
		if !bytes.HasPrefix(t, []byte("[{'type': 'literal_error'")) || echoed(req, t) || bytes.Contains(req, []byte("literal_error")) {
			continue
		}
		if bytes.Count(t, []byte("{'type': '")) != 1 || !bytes.Contains(t, []byte(loc)) {
			continue
		}
		k := bytes.Index(t, []byte(in))
		if k < 0 {
			continue
		}
		r := t[k+len(in):]
		if j := bytes.IndexByte(r, '\''); j > 0 && messagesToolChoiceTypes[string(r[:j])] {
			return true
		}
	}
	return false
}

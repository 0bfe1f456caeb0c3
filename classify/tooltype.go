package classify

import "bytes"

// A tool type an endpoint's schema lacks: a capability gap, not bad input.

// toolTypeVariant reports a schema's refusal of a tool's type, a tag its
// union does not have ("Invalid discriminator value. Expected 'function' |
// 'mcp'" with param "tools.6.type", LM Studio's Responses API given Codex's
// other tool types): the types beside function are each vendor's own, so
// another target may serve it — the gap xAI words as "tools[55].type:
// unknown variant `x_search`" (phrasesinput.go). The path is the param, or
// opens a text ("tools.6.type: Invalid discriminator value"). Any other
// member's tag (a message's role, a content part's type) stays bad input.
func toolTypeVariant(f *facts) bool {
	path := toolTypeLen(f.param) == len(f.param) && len(f.param) > 0
	said := false
	for i := 0; i < f.nTexts; i++ {
		t := f.texts[i]
		if !containsFold(t, "discriminator") && !containsFold(t, "unknown variant") {
			continue
		}
		said = true
		if k := toolTypeLen(t); k > 0 && k < len(t) && t[k] == ':' {
			path = true
		}
	}
	return said && path
}

// datedToolTag reports Anthropic's schema refusing a dated hosted-tool
// type at a tool ("tools.0: Input tag 'computer_20250124' found using
// 'type' does not match any of the expected tags: 'bash_20250124',
// 'custom', …", Claude on Bedrock and Vertex, whose tools schemas lack tool
// versions Anthropic's own API serves): a capability of this endpoint, as
// a tool type's unknown variant is (toolTypeVariant). The text opens with
// the path tools.N or tools[N] and nothing deeper, and the tag is a
// versioned tool type, name_YYYYMMDD (a relay's labels before the path
// aside); a content block's tag, a misspelt
// "custom" and a tag deeper in a tool stay bad input. A text the client's
// request holds is no evidence.
func datedToolTag(f *facts, req []byte) bool {
	const said, lead = "does not match any of the expected tags", ": input tag '"
	for i := 0; i < f.nTexts; i++ {
		t := f.texts[i]
		t = t[relayLabel(t):] // "upstream error: ", "[groq] ", a quote around it all
		k := toolsIndexLen(t)
		if k == 0 || len(t) < k+len(lead) || !foldEq(t[k:k+len(lead)], lead) || !containsFold(t, said) {
			continue
		}
		tag := t[k+len(lead):]
		j := bytes.IndexByte(tag, '\'')
		if j < 0 || !datedType(tag[:j]) || echoed(req, t) {
			continue
		}
		return true
	}
	return false
}

// foldEq reports whether b is s, ASCII case folded (s in lower case).
func foldEq(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		if lowerTab[b[i]] != s[i] {
			return false
		}
	}
	return true
}

// toolsIndexLen is the length of the path tools.N or tools[N] at the start
// of p, 0 where p does not open with one.
func toolsIndexLen(p []byte) int {
	const root = "tools"
	if len(p) < len(root)+2 || string(p[:len(root)]) != root || p[len(root)] != '.' && p[len(root)] != '[' {
		return 0
	}
	open := p[len(root)] == '['
	i := len(root) + 1
	j := i
	for j < len(p) && p[j] >= '0' && p[j] <= '9' {
		j++
	}
	if j == i {
		return 0
	}
	if open {
		if j >= len(p) || p[j] != ']' {
			return 0
		}
		j++
	}
	return j
}

// datedType reports a versioned tool type: a lower-case name, '_', and an
// eight-digit date (web_search_20250305).
func datedType(t []byte) bool {
	const date = 8
	if len(t) < date+2 || t[len(t)-date-1] != '_' {
		return false
	}
	for _, c := range t[len(t)-date:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	for _, c := range t[:len(t)-date-1] {
		if !(c >= 'a' && c <= 'z' || c == '_') {
			return false
		}
	}
	return t[0] >= 'a' && t[0] <= 'z'
}

// toolTypeLen is the length of the path tools[N].type or tools.N.type at
// the start of p, 0 where p does not open with one.
func toolTypeLen(p []byte) int {
	const leaf = ".type"
	j := toolsIndexLen(p)
	if j == 0 || len(p)-j < len(leaf) || string(p[j:j+len(leaf)]) != leaf {
		return 0
	}
	return j + len(leaf)
}

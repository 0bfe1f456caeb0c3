package classify

// Anthropic's Messages API once took only user and assistant inside
// messages; it now takes a message of role system there too, and Claude
// Code (2.1.154 and later) sends one mid-conversation. Servers that emulate
// the API and have not followed (vLLM's and Z.ai's /v1/messages, DeepSeek's
// and MiniMax's Anthropic endpoints) refuse it in their validators' words.
// In the Anthropic dialect that refusal is a gap of the server, not the
// client's bad input: another target, Anthropic's own, serves the request.
// A role no Messages server takes (tool, model, human) stays bad input, and
// so does the refusal in the OpenAI dialect, whose API has no such change.

// roleValueLeads introduce the value a validator rejects after it named
// the role: pydantic's 'input': 'system' (or "input":"system"), serde's
// "unknown variant `system`", "invalid value: `system`".
var roleValueLeads = [...]string{"input", "variant", "value"}

// systemRoleRefused reports whether body refuses a message's role and the
// value it rejects is system: a role named under messages (the path
// messages.1.role, messages[0].role, ('body', 'messages', 1, 'role'), or
// the words "message role"; not a JSON "message" key before it, nor a
// path whose root is masked, "`***.role`"), then, within a short reach,
// the rejected value — the first one a lead introduces (roleValueLeads),
// or, after "message role:", the word itself (MiniMax's "invalid message
// role: system"). A value listed as expected ("expected one of `system`,
// `user`") is not the rejected one: the first value decides. A refusal
// whose words, from the role to the value, the client's request req holds
// is the client's text quoted back (echo.go): no evidence (review 40h).
func systemRoleRefused(body, req []byte) bool {
	for at := 0; at < len(body); {
		i := indexFold(body[at:], "role")
		if i < 0 {
			return false
		}
		s, e := at+i, at+i+len("role")
		at = e
		if s > 0 && wordTab[body[s-1]] == 1 || e < len(body) && (wordTab[body[e]] == 1 || body[e] == '_') {
			continue // "roles", "user_role"
		}
		before := body[max(0, s-48):s] // room for an indented loc list
		words := hasSuffixFoldB(before, "message ")
		if !words && !containsFold(before, "messages") {
			continue // not a message's role (a JSON "message" key is no path)
		}
		reach := body[e:min(len(body), e+200)]
		var v []byte
		if words {
			// "invalid message role: system (2013)"
			v = colonValue(reach)
		}
		if v == nil {
			v = leadValue(reach)
		}
		if v == nil {
			continue
		}
		if !eqFold(v, "system") {
			return false
		}
		if len(req) == 0 || !echoed(req, body[s:e+endIn(reach, v)]) {
			return true
		}
	}
	return false
}

// endIn is where v, a slice of t, ends in t.
func endIn(t, v []byte) int { return cap(t) - cap(v) + len(v) }

// leadValue is the first value a roleValueLeads word introduces in t: the
// word after it, past a key's quote and colon (input) or blanks (variant,
// value), quotes and backticks aside; nil for none.
func leadValue(t []byte) []byte {
	best, bestAt := []byte(nil), len(t)
	for _, l := range roleValueLeads {
		for at := 0; at < len(t); {
			i := indexFold(t[at:], l)
			if i < 0 || at+i >= bestAt {
				break
			}
			k := at + i + len(l)
			at = k
			if at-len(l) > 0 && wordTab[t[at-len(l)-1]] == 1 || k < len(t) && wordTab[t[k]] == 1 {
				continue // inside a word: "inputs", "values"
			}
			key := l == "input"
			if v := valueAt(t, k, key); v != nil {
				best, bestAt = v, at-len(l)
				break
			}
		}
	}
	return best
}

// valueAt reads the word at t[k] past quotes, blanks and backticks; a key
// (key set) must be followed by a colon first ("'input': 'system'", not
// "Input should be").
func valueAt(t []byte, k int, key bool) []byte {
	for k < len(t) && (t[k] == '\'' || t[k] == '"' || t[k] == '\\') {
		k++
	}
	if key {
		for k < len(t) && t[k] == ' ' {
			k++
		}
		if k >= len(t) || t[k] != ':' {
			return nil
		}
		k++
	} else if k >= len(t) || t[k] != ' ' && t[k] != ':' {
		return nil
	}
	return wordAfter(t, k)
}

// colonValue reads the word after a colon that opens t (blanks aside).
func colonValue(t []byte) []byte {
	k := 0
	for k < len(t) && t[k] == ' ' {
		k++
	}
	if k >= len(t) || t[k] != ':' {
		return nil
	}
	return wordAfter(t, k+1)
}

// wordAfter is the word at t[k], past blanks, a colon, quotes and
// backticks; nil where none follows.
func wordAfter(t []byte, k int) []byte {
	for k < len(t) && (t[k] == ' ' || t[k] == ':' || t[k] == '\'' || t[k] == '"' || t[k] == '`' || t[k] == '\\') {
		k++
	}
	j := k
	for j < len(t) && (wordTab[t[j]] == 1 || t[j] == '_') {
		j++
	}
	if j == k {
		return nil
	}
	return t[k:j]
}

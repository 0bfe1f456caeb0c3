package classify

import "bytes"

// fieldPathPrefix reports a message that begins by naming a request field:
// "max_tokens: 10000 > 4096…", "messages.1.content: …", "messages: roles…",
// or a JSON path ("'$.input' is invalid", "$.tools: …"). A dotted name whose
// last part ends in Error or Exception, or begins with a capital after a
// dot, is a relay's exception prefix ("litellm.BadRequestError: …",
// "httpx.ReadTimeout: …"), not a field.
func fieldPathPrefix(t []byte) bool {
	if len(t) > 2 && t[0] == '*' && t[1] == ' ' { // Gemini: "* GenerateContentRequest.contents: …"
		t = t[2:]
	}
	if q := t; len(q) > 0 && (q[0] == '\'' || q[0] == '`' || q[0] == '"') {
		q = q[1:]
		if len(q) > 1 && q[0] == '$' && (q[1] == '.' || q[1] == '[') {
			return true
		}
	} else if len(q) > 1 && q[0] == '$' && (q[1] == '.' || q[1] == '[') {
		return true
	}
	if len(t) == 0 || !(t[0] >= 'a' && t[0] <= 'z' || t[0] >= 'A' && t[0] <= 'Z' || t[0] == '_') {
		return false // a field starts with a letter: "[RID: …] …" is a tag, not a path
	}
	i, last := 0, 0
	dotted := false
	for i < len(t) && i < 256 { // Gemini's schema paths run long
		c := t[i]
		if c == '[' {
			// An index or a quoted key ("properties[\"endpoints\"]",
			// escaped as the raw text has it), up to its bracket.
			k := i + 1
			for k < len(t) && k-i < 80 && t[k] != ']' && t[k] != ' ' {
				k++
			}
			if k < len(t) && t[k] == ']' {
				dotted, i = true, k+1
				continue
			}
		}
		if c == '_' || c == '.' || c == '[' || c == ']' {
			dotted = true
			if c == '.' {
				last = i + 1
			}
		} else if wordTab[c] == 0 || c >= 0x80 {
			break
		}
		i++
	}
	if i == 0 || i >= len(t) {
		return false
	}
	if t[i] == ' ' {
		return snakePathValue(t[:i], t[i+1:])
	}
	if t[i] != ':' {
		return false
	}
	if !hasLower(t[:i]) {
		return false // a status or code name in capitals ("RESOURCE_EXHAUSTED: …", "INVALID_ARGUMENT: …"), not a field
	}
	if dotted {
		seg := t[last:i]
		if last > 0 && len(seg) > 0 && seg[0] >= 'A' && seg[0] <= 'Z' {
			return false // a module's class: google.api_core.exceptions.ServiceUnavailable, httpx.ReadTimeout
		}
		return !bytes.HasSuffix(seg, []byte("Error")) && !bytes.HasSuffix(seg, []byte("Exception"))
	}
	switch string(t[:i]) {
	case "messages", "system", "tools", "temperature", "metadata", "stream",
		"thinking", "contents", "prompt", "input", "stop", "n", "container":
		return true
	}
	return false
}

// hasLower reports whether t holds a lower-case ASCII letter.
func hasLower(t []byte) bool {
	for _, c := range t {
		if c >= 'a' && c <= 'z' {
			return true
		}
	}
	return false
}

// snakePathValue reports "output_config.effort 'max' is not supported…": a
// dotted snake_case path (lower case, with an underscore, so neither a host
// name nor a module's exception) followed by a quoted value names a request
// field and what it was given. A double quote is read as a JSON string
// holds it too, escaped (`\"high\"`: round 48 read the same message as
// bad_request in plain text and unknown in an envelope).
func snakePathValue(path, rest []byte) bool {
	if len(rest) > 1 && rest[0] == '\\' && rest[1] == '"' {
		rest = rest[1:]
	}
	if len(rest) == 0 || (rest[0] != '\'' && rest[0] != '`' && rest[0] != '"') {
		return false
	}
	dot, under := false, false
	for _, c := range path {
		switch {
		case c == '.':
			dot = true
		case c == '_':
			under = true
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return dot && under
}

// requestRoots are the request members a relayed field path starts from.
var requestRoots = [...]string{"messages", "tools", "tool_choice", "system", "contents", "input", "thinking"}

// rootedFieldPath reports a request field path followed by a colon anywhere
// in a message ("… following errors: messages.1.content.0.type: Expected …"):
// the upstream's own field error relayed inside a wrapper's message (a
// proxy's exception text, Bedrock's "The model returned the following
// errors: …"). The path must start at a request member, at a word start,
// go on with '.' or '[' and hold an index (messages.1.content, tools[0]), so
// a file name ("messages.json:") is not one. It walks back from each colon,
// so prose without colons costs one IndexByte.
func rootedFieldPath(t []byte) bool {
	for off := 0; off < len(t); {
		k := bytes.IndexByte(t[off:], ':')
		if k < 0 {
			return false
		}
		k += off
		off = k + 1
		j := k
		for j > 0 && k-j <= 160 && pathByte(t[j-1]) {
			j--
		}
		if j == k || k-j > 160 {
			continue
		}
		if rootedPath(t[j:k]) {
			return true
		}
	}
	return false
}

// pathByte is a byte a field path is made of.
func pathByte(c byte) bool {
	return c < 0x80 && wordTab[c] == 1 || c == '_' || c == '.' || c == '[' || c == ']'
}

// rootedPath reports p = root ('.' | '[') … holding an index.
func rootedPath(p []byte) bool {
	for _, root := range requestRoots {
		if len(p) <= len(root) || string(p[:len(root)]) != root || p[len(root)] != '.' && p[len(root)] != '[' {
			continue
		}
		for _, c := range p[len(root):] {
			if c == '[' || c >= '0' && c <= '9' {
				return true
			}
		}
	}
	return false
}

// snakeFieldBefore reports whether the word before t[i] (blanks and a
// closing quote skipped) is a request field in snake_case: lower case
// letters and digits with an underscore, starting with a letter
// ("response_format", "'top_logprobs'"). Prose ("Image input") and a bare
// word ("'stream'") are not.
func snakeFieldBefore(t []byte, i int) bool {
	e := i
	for e > 0 && (t[e-1] == ' ' || t[e-1] == '\t') {
		e--
	}
	if e > 0 && (t[e-1] == '\'' || t[e-1] == '`' || t[e-1] == '"') {
		e--
	}
	s, under := e, false
	for s > 0 {
		c := t[s-1]
		if c == '_' {
			under = true
		} else if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			break
		}
		s--
	}
	if s > 0 && (t[s-1] >= 'A' && t[s-1] <= 'Z' || t[s-1] == '.' || t[s-1] == '-') {
		return false // part of a longer name: a type, a module, a model id
	}
	return under && s < e && t[s] >= 'a' && t[s] <= 'z'
}

// quotedFieldBefore reports whether a request member's name, in quotes or
// backticks, stands just before t[i] ("`temperature` is deprecated …",
// "'top_k' is …"): a lower-case identifier, dots and underscores allowed;
// not a version or a model id ('2023-03-15-preview', `gpt-4o`).
func quotedFieldBefore(t []byte, i int) bool {
	e := i
	for e > 0 && (t[e-1] == ' ' || t[e-1] == '\t') {
		e--
	}
	if e < 3 {
		return false
	}
	q := t[e-1]
	if q != '\'' && q != '`' && q != '"' {
		return false
	}
	s := e - 1
	for s > 0 && e-1-s <= 64 {
		c := t[s-1]
		if c == q {
			break
		}
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '.') {
			return false
		}
		s--
	}
	return s > 0 && t[s-1] == q && s < e-1 && t[s] >= 'a' && t[s] <= 'z'
}

// bodyLoc reports a pydantic location printed as a Python tuple rooted at
// the request body ("Input should be a valid list at ('body', 'messages')",
// the str() of a FastAPI validation error): the field is named, as in a
// detail[].loc. The one-element tuple ('body',) is the body itself, which
// did not parse as the object expected (Fireworks: "'loc': ('body',), 'msg':
// 'Input should be a valid dictionary or object to extract fields from'").
func bodyLoc(t []byte) bool {
	return bytes.Contains(t, []byte("('body', '")) || bytes.Contains(t, []byte(`(\"body\", \"`)) ||
		bytes.Contains(t, []byte("('body',)")) || bytes.Contains(t, []byte(`(\"body\",)`))
}

// memberName reports whether g, blanks aside, is one request member's name:
// snake_case ("add_generation_prompt", letter case aside) or in quotes or
// backticks ("`stream`"), never a server's start-up flag ("--enable-auto-tool-choice")
// nor prose ("the server").
func memberName(g []byte) bool {
	g = trimMemberBlanks(g)
	quoted := false
	if len(g) >= 2 && (g[0] == '`' || g[0] == '\'' || g[0] == '"') && g[len(g)-1] == g[0] {
		g, quoted = g[1:len(g)-1], true
	}
	if len(g) == 0 || lowerTab[g[0]] < 'a' || lowerTab[g[0]] > 'z' {
		return false
	}
	under := false
	for _, c := range g {
		switch {
		case c == '_' || c == '.':
			under = true
		case lowerTab[c] >= 'a' && lowerTab[c] <= 'z' || c >= '0' && c <= '9':
		default:
			return false
		}
	}
	return under || quoted
}

// memberNameBefore reports whether a request member's name, snake_case or
// in quotes or backticks, stands just before t[i] (blanks aside). Letter
// case aside: a sentence's first word ("Continue_final_message requires
// …") or a message in capitals says the same.
func memberNameBefore(t []byte, i int) bool {
	e := len(trimMemberBlanks(t[:i]))
	q := byte(0)
	if e > 0 && (t[e-1] == '\'' || t[e-1] == '`' || t[e-1] == '"') {
		q = t[e-1]
		e--
	}
	s := e
	for s > 0 {
		c := t[s-1]
		if !(c == '_' || c == '.' || lowerTab[c] >= 'a' && lowerTab[c] <= 'z' || c >= '0' && c <= '9') {
			break
		}
		s--
	}
	if s == e || s > 0 && (t[s-1] == '-' || t[s-1] == '.' || wordTab[t[s-1]] == 1) {
		return false
	}
	if q != 0 {
		return s > 0 && t[s-1] == q
	}
	return bytes.IndexByte(t[s:e], '_') >= 0
}

// trimMemberBlanks drops the blanks around g, a JSON text's escaped ones ("\t",
// "\n", "\r") too.
func trimMemberBlanks(g []byte) []byte {
	esc := func(b []byte) bool { return len(b) == 2 && b[0] == '\\' && (b[1] == 't' || b[1] == 'n' || b[1] == 'r') }
	for {
		switch {
		case len(g) > 0 && (g[0] == ' ' || g[0] == '\t' || g[0] == '\n' || g[0] == '\r'):
			g = g[1:]
		case len(g) > 0 && (g[len(g)-1] == ' ' || g[len(g)-1] == '\t' || g[len(g)-1] == '\n' || g[len(g)-1] == '\r'):
			g = g[:len(g)-1]
		case len(g) >= 2 && esc(g[:2]):
			g = g[2:]
		case len(g) >= 2 && esc(g[len(g)-2:]):
			g = g[:len(g)-2]
		default:
			return g
		}
	}
}

// pathHead returns the field path a message opens with (fieldPathPrefix)
// and what follows it: the path up to its colon or the blank after it
// ("tools.16.model: …", "output_config.effort 'max' …"), Gemini's "* "
// aside. ok is false where the message opens with no path.
func pathHead(t []byte) (path, rest []byte, ok bool) {
	if !fieldPathPrefix(t) {
		return nil, nil, false
	}
	if len(t) > 2 && t[0] == '*' && t[1] == ' ' {
		t = t[2:]
	}
	k := bytes.IndexAny(t, ": ")
	if k <= 0 {
		return nil, nil, false
	}
	return t[:k], t[k+1:], true
}

// modelGapTails end a sentence that says what it names is this model's gap
// ("tool_choice: type \"tool\" and \"any\" are not supported for this
// model."); modelGapHeads open one ("messages.0.content.1.image: This
// model does not support image input").
var modelGapTails = [...]string{"not supported for this model", "not supported with this model", "not supported by this model", "not supported on this model"}
var modelGapHeads = [...]string{"this model does not support", "the model does not support", "model does not support"}

// pairWords name another member or condition beside the one refused ("…
// is not supported when thinking is disabled on this model", "… with
// tool_choice any", "… requires …"): a request at odds with itself, which
// keeps its path's proof.
var pairWords = [...]string{"when", "while", "unless", "if", "with", "without", "requires", "required", "together", "combined", "combination", "alongside", "both", "except"}

// modelGapAfterPath reports a message that opens with a field path and
// whose first sentence after it says only that this model lacks what the
// path names: it ends in "is (are) not supported for (with, by, on) this
// model", or opens with "This model does not support", and names no other
// member or condition beside it (pairWords). The path names the member;
// the words say the gap is the model's, which another target may fill, as
// a gap said after a path inside the message is (round 66, hunt 66h:
// Claude Opus 5.5's "tool_choice: type \"tool\" and \"any\" are not
// supported for this model.", which Opus 4.8 and Sonnet 5 take). A
// sentence the client's request holds is its own words (echo.go).
func modelGapAfterPath(t, req []byte) bool {
	_, rest, ok := pathHead(t)
	if !ok {
		return false
	}
	for len(rest) > 0 && (rest[0] == ' ' || rest[0] == '\t') {
		rest = rest[1:]
	}
	s := trimTail(rest[:sentenceEnd(rest, 0)])
	var between []byte
	found := false
	for _, tail := range modelGapTails {
		if hasSuffixFoldB(s, tail) {
			between, found = s[:len(s)-len(tail)], true
			break
		}
	}
	if !found {
		for _, head := range modelGapHeads {
			if hasPrefixFold(s, head) {
				between, found = s[len(head):], true
				break
			}
		}
	}
	if !found || hasPairWord(between) {
		return false
	}
	return len(req) == 0 || !echoed(req, s)
}

// hasPairWord reports whether t holds one of pairWords as a whole word.
func hasPairWord(t []byte) bool {
	for i := 0; i < len(t); {
		for i < len(t) && wordTab[t[i]] == 0 {
			i++
		}
		j := i
		for j < len(t) && (wordTab[t[j]] != 0 || t[j] == '_') {
			j++
		}
		for _, w := range pairWords {
			if eqFold(t[i:j], w) {
				return true
			}
		}
		i = j
	}
	return false
}

// pathWrappers are the roots that hold a request's body rather than name a
// member of it: FastAPI's "body.model", a "request.model".
var pathWrappers = [...]string{"body", "request", "json", "payload"}

// nestedModelPath reports a message that opens with the path of a model
// member inside another member ("tools.16.model: Claude Fable 5 is not
// available. Please use Opus 4.8.", a tool's own model; "advisor.model: …"):
// not the top-level model Detour writes, but one the client named, so gone
// or not-available wording after it is that member's value, as beside a
// param naming such a field (decide.go; docs/behaviour.md, "What the client
// named or supplied"; round 66, hunt 66h). A wrapper's or a message type's
// root ("body.model", Gemini's "GenerateContentRequest.model") is the
// top-level model. A path the client's request holds as its own words is
// no proof (echo.go).
func nestedModelPath(t, req []byte) bool {
	path, rest, ok := pathHead(t)
	if !ok || len(rest) == 0 || t[len(t)-len(rest)-1] != ':' {
		return false
	}
	if !bytes.HasSuffix(path, []byte(".model")) {
		return false // "model: …" itself, or no model
	}
	head := path[:len(path)-len(".model")] // "tools.16", "tools[16]"
	if bytes.IndexAny(head, ".[") < 0 {
		// One root before "model": a wrapper or a type name is the
		// top-level model; any other member holds a model of its own.
		if len(head) == 0 || head[0] >= 'A' && head[0] <= 'Z' {
			return false
		}
		for _, w := range pathWrappers {
			if string(head) == w {
				return false
			}
		}
	}
	return len(req) == 0 || !echoed(req, path)
}

// nestedModelText reports a text of the answer that opens with a nested
// model's path (nestedModelPath), after a relay's labels ("Error from
// provider(…): tools.16.model: …", litellm's exception names) or as the
// upstream's body a router relays (OpenRouter's metadata.raw).
func nestedModelText(f *facts, req []byte) bool {
	for i := 0; i < f.nTexts; i++ {
		t := f.texts[i]
		if nestedModelPath(t[relayLabel(t):], req) {
			return true
		}
	}
	return false
}

// trimTail drops what may trail a sentence: blanks, quotes, a full stop,
// line breaks raw or escaped ("… this model.\r\n").
func trimTail(s []byte) []byte {
	for len(s) > 0 {
		switch n := len(s); {
		case bareTrim(s[n-1]) || s[n-1] == '\r':
			s = s[:n-1]
		case n >= 2 && s[n-2] == '\\' && (s[n-1] == 'n' || s[n-1] == 'r' || s[n-1] == 't'):
			s = s[:n-2]
		default:
			return s
		}
	}
	return s
}

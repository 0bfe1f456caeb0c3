package classify

import "unicode/utf8"

// A gone model the client named (docs/behaviour.md, "Not found: whose?").
// The provider's words about a gone model ("The model `x` does not exist",
// "model \"x\" not found", "Model 'x' is not available", model_not_found)
// decide unavailable before the not-found scope is read, and the names that
// scope sees cannot hold a plain model name (gpt-4, llama3). But a request
// may name models of its own beside the one Detour sends — an extension's
// embedding_model, a tool's model, a relay's fallback "models" list — and
// a gone-model answer about one of those is the client's: read as the
// endpoint's, any client could cool the endpoint for everyone by naming a
// model that does not exist.
//
// So where a verdict is unavailable, the model names the answer's texts
// give right after the word "model" (quoted — blanks and escapes allowed —
// or a bare token up to a blank or the punctuation that ends a clause) are
// read. If one of them is exactly the model Detour sent, the answer is the
// endpoint's, whatever the request holds. A name the client's request holds
// as a whole string value of a member other than its top-level "model" (a
// prompt that merely mentions it is not) is the client's, even a variant
// of Detour's model (gpt-4o-2024-05-13, house/gpt-4o, or GPT-4O as the
// client spelled it, sent as a tool's model to a gpt-4o endpoint); any
// other spelling of Detour's model (another case, a provider prefix, a
// resource path ending in it, a name containing it or contained in it
// where the message names it in full) is the endpoint's. A client's name
// makes the answer bad_request: a client can only keep its own 404 from
// walking the route. So are the names inside a run the message quotes
// from the client's text ("nope` model `gpt-4o", one value naming two
// models, echoed back): a client cannot write Detour's exact model into a
// name of its own. Each distinct name costs one scan of the request (at
// most maxNamed), each distinct run one more (at most maxRuns); nothing is
// allocated.

// modelNamed reports whether the answer's texts name, after the word
// "model", a model that is not the one Detour sent and that the client's
// request holds as a whole value of a member other than its top-level
// model. It reports false where any name is the model Detour sent.
func (ts *textScan) modelNamed() bool {
	if len(ts.req) == 0 || ts.model == "" {
		return false
	}
	if ts.adapterNamed() {
		return true
	}
	named, checks, runs := false, 0, 0
	var seen [maxNamed][]byte // the names looked for in the request, each once
	var tried [maxRuns][]byte // the runs of names looked for, each once
	for i := 0; i < ts.texts(); i++ {
		t := ts.text(i)
		echoTo := -1 // the end of a run of names the client wrote itself
		for at := 0; ; {
			s, e, next := nextModelName(t, at)
			if next < 0 {
				break
			}
			at = next
			name := t[s:e]
			if s < echoTo {
				named = true // inside text the client wrote: its own names
				continue
			}
			// A run of names the message quotes from the client ("nope`
			// model `gpt-4o", one value of its request naming two models)
			// is the client's, Detour's exact model among them.
			if runs < maxRuns {
				if end := ts.runOfModel(t, e, s+maxNeedle); end > e && !seenName(tried[:runs], t[s:end]) {
					tried[runs] = t[s:end]
					runs++
					if echoed(ts.req, t[s:end]) {
						echoTo, named = end, true
						continue
					}
				}
			}
			if string(name) == ts.model {
				return false // Detour's model itself: the endpoint's
			}
			// A name the client sent itself, in another member, is the
			// client's, even a variant of Detour's model; one that is
			// Detour's model in another case counts only as the client
			// spelled it.
			folded := hasFold(ts.model, name) && len(name) == len(ts.model)
			if checks < maxNamed && !seenName(seen[:checks], name) {
				seen[checks] = name
				checks++
				if valueElsewhere(ts.req, name, !folded) {
					named = true
					continue
				}
			}
			if folded || providerPrefixed(ts.model, name) || pathTo(name, ts.model) || ts.isModel(name) {
				return false // Detour's model as the provider writes it: the endpoint's
			}
		}
	}
	return named
}

// adapterNamed reports whether the answer's texts name, after the word
// "lora" or "adapter", an adapter the client's request holds as a whole
// value of a member other than its top-level model (a per-request adapter:
// Workers AI's lora, SGLang's lora_path), and that is no part of the model
// Detour sent (Triton's base<sep>adapter names the adapter inside it). The
// adapter is then what was not found, whatever base model the answer also
// names: the client's.
func (ts *textScan) adapterNamed() bool {
	checks := 0
	var seen [maxNamed][]byte
	for i := 0; i < ts.texts(); i++ {
		t := ts.text(i)
		for at := 0; ; {
			s, e, next := nextAdapterName(t, at)
			if next < 0 {
				break
			}
			at = next
			name := t[s:e]
			if hasFold(ts.model, name) || seenName(seen[:checks], name) {
				continue // inside Detour's model: the endpoint's
			}
			if checks == maxNamed {
				return false
			}
			seen[checks] = name
			checks++
			if valueElsewhere(ts.req, name, true) {
				return true
			}
		}
	}
	return false
}

// nextAdapterName finds the next adapter name in t at or after from: the
// word "lora" or "adapter" (not lora_path, adapters), an optional ':' or
// '=', blanks, and a quoted span or a bare token, as nextModelName reads a
// model's. "LoRA adapter 'x'" gives x (the word "adapter" is no name).
func nextAdapterName(t []byte, from int) (s, e, next int) {
	for i := from; i+4 <= len(t); i++ {
		c := lowerTab[t[i]]
		if c != 'l' && c != 'a' || i > 0 && (inWord[t[i-1]] == 1 || t[i-1] == '-') {
			continue
		}
		end, ok := prefixAt(t, i, "lora")
		if !ok {
			if end, ok = prefixAt(t, i, "adapter"); !ok {
				continue
			}
		}
		if end < len(t) && (inWord[t[end]] == 1 || t[end] == '-') {
			continue
		}
		j := skipBlanks(t, end)
		if j < len(t) && (t[j] == ':' || t[j] == '=') {
			j = skipBlanks(t, j+1)
		}
		if j == end || j >= len(t) {
			continue
		}
		if s, e, ok := modelToken(t, j); ok && !(e-s == len("adapter") && hasFold(t[s:e], "adapter")) {
			return s, e, end
		}
	}
	return 0, 0, -1
}

// maxRuns bounds the runs of names looked for in the request per answer:
// an honest provider quotes one value of the client's in a message.
const maxRuns = 4

// runOfModel returns the end of the last model name in t that starts at
// or after from and ends by limit, when one of those names is a spelling
// of Detour's model (the only names a client could gain by writing them
// into its own); otherwise from.
func (ts *textScan) runOfModel(t []byte, from, limit int) int {
	end, detours := from, false
	for at := from; ; {
		s, e, next := nextModelName(t, at)
		if next < 0 || e > limit {
			break
		}
		name := t[s:e]
		detours = detours || ts.isModel(name) || providerPrefixed(ts.model, name) || pathTo(name, ts.model)
		end, at = e, next
	}
	if !detours {
		return from
	}
	return end
}

// seenName reports whether name is one of the names already looked for.
func seenName(seen [][]byte, name []byte) bool {
	for _, n := range seen {
		if string(n) == string(name) {
			return true
		}
	}
	return false
}

// providerPrefixed reports whether model is name behind a provider prefix
// (openai/gpt-4o for gpt-4o), case aside.
func providerPrefixed(model string, name []byte) bool {
	k := len(model) - len(name)
	return k > 1 && model[k-1] == '/' && hasFold(model[k:], name)
}

// pathTo reports whether name is a resource path whose last segment is
// model (Vertex's publishers/google/models/claude-sonnet-4-5 for
// claude-sonnet-4-5), case aside.
func pathTo(name []byte, model string) bool {
	k := len(name) - len(model)
	return k > 1 && name[k-1] == '/' && hasFold(name[k:], model)
}

// nextModelName finds the next model name in t at or after from: the word
// "model" (not models, modelId, model_not_found), an optional ':' or '=',
// blanks, and a quoted span ('x', `x`, "x", \"x\") or a bare token. It
// returns the name's span t[s:e] and where to go on; next is -1 when there
// is none.
func nextModelName(t []byte, from int) (s, e, next int) {
	for i := from; i+5 <= len(t); i++ {
		if lowerTab[t[i]] != 'm' || i > 0 && (inWord[t[i-1]] == 1 || t[i-1] == '-') {
			continue
		}
		end, ok := prefixAt(t, i, "model")
		if !ok || end < len(t) && (inWord[t[end]] == 1 || t[end] == '-') {
			continue
		}
		j := skipBlanks(t, end)
		if j < len(t) && (t[j] == ':' || t[j] == '=') {
			j = skipBlanks(t, j+1)
		}
		if j == end || j >= len(t) {
			continue // "model" glued to what follows, or the end
		}
		if s, e, ok := modelToken(t, j); ok {
			return s, e, e
		}
	}
	return 0, 0, -1
}

// skipBlanks skips raw and escaped blanks from i.
func skipBlanks(t []byte, i int) int {
	for i < len(t) {
		w := isBlank(t, i)
		if w == 0 {
			break
		}
		i += w
	}
	return i
}

// modelToken reads the name at t[i]: a quoted span on one line (blanks
// and JSON escapes allowed: a client names its models as it likes), or a
// bare token of name bytes whose trailing clause punctuation is cut. A bare
// word of the sentence (the model "does not exist") is none. The text is
// at most the 4 KiB read of the body, which bounds a name.
func modelToken(t []byte, i int) (s, e int, ok bool) {
	open, close := 1, ""
	switch {
	case t[i] == '\'' || t[i] == '`' || t[i] == '"':
		close = string(t[i])
	case t[i] == '\\' && i+1 < len(t) && t[i+1] == '"':
		open, close = 2, `\"`
	}
	if close != "" {
		in := i + open
		for j := in; j < len(t); j++ {
			switch c := t[j]; {
			case c < ' ' || c == '"' && close != `"`:
				return 0, 0, false // the line or the JSON string ended first
			case c == '\\' && close == `\"` && j+1 < len(t) && t[j+1] == '"':
				return in, j, j > in
			case c == '\\':
				if j+1 < len(t) && t[j+1] == 'n' {
					return 0, 0, false // an escaped line break
				}
				j++ // an escape is part of the name
			case string(c) == close:
				return in, j, j > in
			}
		}
		return 0, 0, false
	}
	j := i
	for j < len(t) && modelByte(t[j]) {
		j++
	}
	for j > i && (t[j-1] == '.' || t[j-1] == ':' || t[j-1] == '-' || t[j-1] == '/') {
		j-- // the end of a clause, not part of the name
	}
	if j == i || sentenceWord(t[i:j]) {
		return 0, 0, false
	}
	return i, j, true
}

// modelByte reports a byte a bare model name holds: letters, digits and
// the marks model ids use (gpt-4.1, llama3:8b, org/model, model@v2).
func modelByte(c byte) bool {
	return c >= 0x80 || inWord[c] == 1 || c == '-' || c == '.' || c == ':' || c == '/' || c == '@'
}

// sentenceWords follow "model" in a sentence that names none ("The model
// does not exist", "model is not available", "model you requested").
var sentenceWords = [...]string{
	"does", "doesn't", "do", "is", "isn't", "was", "has", "not", "you", "your", "the", "a", "an", "that", "which",
	"for", "with", "in", "of", "or", "and", "to", "cannot", "can", "could", "must", "may", "name", "id",
	"identifier", "version", "requested", "specified", "provided", "selected", "field", "parameter",
}

func sentenceWord(w []byte) bool {
	for _, s := range sentenceWords {
		if len(w) == len(s) && hasFold(w, s) {
			return true
		}
	}
	return false
}

// valueElsewhere reports whether req, the client's JSON request, holds name
// (JSON escapes decoded on both sides; ASCII case aside with fold) as a
// whole string value anywhere but the top-level "model" member. A member's
// name is no value.
func valueElsewhere(req, name []byte, fold bool) bool {
	depth := 0
	topModel := false // the last token was the top-level "model" member's name and its colon
	for i := 0; i < len(req); i++ {
		switch c := req[i]; c {
		case '{', '[':
			depth++
			topModel = false
		case '}', ']':
			depth--
			topModel = false
		case ',':
			topModel = false
		case '"':
			s := i + 1
			e := s
			for e < len(req) && req[e] != '"' {
				if req[e] == '\\' {
					e++
				}
				e++
			}
			if e >= len(req) {
				return false
			}
			i = e
			j := e + 1
			for j < len(req) && (req[j] == ' ' || req[j] == '\t' || req[j] == '\n' || req[j] == '\r') {
				j++
			}
			if j < len(req) && req[j] == ':' {
				// A member's name.
				topModel = depth == 1 && e-s == 5 && string(req[s:e]) == "model"
				i = j
				continue
			}
			if !topModel && sameValue(req[s:e], name, fold) {
				return true
			}
			topModel = false
		}
	}
	return false
}

// sameValue reports whether the raw JSON strings v and name decode to the
// same text (ASCII case folded with fold).
func sameValue(v, name []byte, fold bool) bool {
	i, k := 0, 0
	for i < len(v) && k < len(name) {
		a, w := runeAt(v, i)
		b, x := runeAt(name, k)
		if fold && a < utf8.RuneSelf && b < utf8.RuneSelf {
			a, b = rune(lowerTab[byte(a)]), rune(lowerTab[byte(b)])
		}
		if a != b {
			return false
		}
		i, k = i+w, k+x
	}
	return i == len(v) && k == len(name)
}

// runeAt decodes the character at b[i] of a raw JSON string: an escape, or
// UTF-8.
func runeAt(b []byte, i int) (rune, int) {
	if b[i] == '\\' {
		return unescapeAt(b, i)
	}
	if b[i] < utf8.RuneSelf {
		return rune(b[i]), 1
	}
	return utf8.DecodeRune(b[i:])
}

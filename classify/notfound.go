package classify

import (
	"strings"
)

// Not found: whose? (docs/behaviour.md). A 404, a not-found code
// (not_found_error, NOT_FOUND) or, in a 4xx that otherwise proves nothing,
// not-found wording says something is missing. It is the endpoint's model
// or deployment only when nothing else is named: a client that names a file,
// a container, a vector store or a tool that does not exist gets the same
// 404, and reading that as unavailable would let any client cool an
// endpoint for everyone. So, given the model Detour sent (Response.Model)
// and the client's request (Response.Request), a not-found answer whose
// message names something the request also names, other than the model,
// is bad_request: the client's input is at fault.
//
// What counts as a name in the upstream's message:
//   - a quoted span ('…', `…`, "…") of 4 to 256 bytes holding something
//     besides letters ('summarize the doc', 'check_weather', "report.pdf"
//     — not 'messages', a word every request holds);
//   - an identifier-like token of 6 to 256 bytes of letters, digits, '_',
//     '-' and '.', holding a letter and a digit or '_'
//     (file_011CNha8iCJcU1wXNR6q4V8w, cntr_6862…, files/abc123 → abc123).
//
// A name equal to the model, containing it (claude-x-20250929 for
// claude-x) or, where the message names the model in full too, contained
// in it (llama-v3 in accounts/…/models/llama-v3) is the model's and is
// passed over. Whatever the names, a request that refers to something
// stored at the provider (a member in resourceKeys: file_id, container,
// previous_response_id, …) makes a 404 that proves nothing about the model
// its own: a base62 id, a name in plain letters or one too long to compare
// would otherwise slip through, and the cost is asymmetric (a gone model
// misread costs that one request a walk; a client's 404 misread cools the
// endpoint for everyone). The provider's own words about a model
// (a strong code such as model_not_found, or a taught phrase such as
// "model … does not exist") decide before this rule is read, so they keep
// unavailable, unless the model they name is one the client named in
// another member and not the model Detour sent (clientmodel.go). At most maxNamed names are checked against the request (each
// check reads it once); nothing is allocated.

// maxNamed bounds the names of one answer checked against the request.
const maxNamed = 8

// notFoundEvidence is the evidence of a not-found answer about a name the
// client sent; notFoundResourceEvidence of one that names nothing the rules
// can read, to a request that refers to something stored at the provider.
const (
	notFoundEvidence         = "not-found:client-named"
	notFoundResourceEvidence = "not-found:client-resource"
)

// clientScoped reports whether v, reached by refine, is a not-found answer
// about something the client sent rather than the model, and the evidence;
// scoped: v is a gone phrase's whose gap may hold the client's name.
func (ts *textScan) clientScoped(v Verdict, def Class, defEv string, cs *codeScan, scoped bool) (bool, string) {
	if len(ts.req) == 0 {
		return false, ""
	}
	switch {
	case v.Class == Unavailable && v.Evidence == defEv:
	case v.Class == Unavailable && scoped:
	case v.Class == Unavailable && cs.weak == Unavailable && v.Evidence == cs.weakEv:
	case v.Class == Unknown && def == Unknown && v.Evidence == defEv && ts.saysNotFound():
	case v.Class == Unknown && def == Unknown && cs.weak == Unknown && v.Evidence == cs.weakEv && cs.weakEv != "" && ts.saysNotFound():
		// A code that says only "unknown" (Bedrock's ValidationException)
		// about a thing that does not exist: as silent as the status.
	case v.Class == Forbidden && ts.saysMayNotExist():
		// "You do not have permission to access the File x or it may
		// not exist": a stored thing the request refers to, below.
		if ts.namesResource() && refersToResource(ts.req) {
			return true, notFoundResourceEvidence
		}
		return false, ""
	default:
		return false, ""
	}
	switch {
	case ts.model != "" && ts.clientNamed():
		return true, notFoundEvidence
	case ts.f != nil && ts.f.parsed && !ts.f.plain && ts.namesResource() && refersToResource(ts.req):
		// A provider's own error envelope about a stored thing, not a
		// plain page nor a bare "Not Found" (a wrong base_url's 404 stays
		// the endpoint's).
		return true, notFoundResourceEvidence
	}
	return false, ""
}

// resourceWords are the words a not-found answer about something stored at
// the provider uses for it.
var resourceWords = [...]string{"file", "container", "vector", "conversation", "response", "cache", "skill", "assistant", "thread", "batch", "object", "guardrail"}

// namesResource reports whether one of the answer's texts speaks of a
// stored thing (resourceWords).
func (ts *textScan) namesResource() bool {
	for i := 0; i < ts.texts(); i++ {
		for _, w := range resourceWords {
			if containsFold(ts.text(i), w) {
				return true
			}
		}
	}
	return false
}

// resourceKeys are the request members that name something stored at the
// provider (a file, a container, a vector store, a cached context, an
// earlier response or conversation): a request holding one can get a 404
// about it that says nothing of the model.
var resourceKeys = [...]string{
	`"file_id"`, `"file_ids"`, `"fileUri"`, `"file_uri"`, `"container"`, `"container_id"`,
	`"vector_store_ids"`, `"vector_store_id"`, `"previous_response_id"`, `"conversation"`,
	`"cached_content"`, `"cachedContent"`, `"skill_id"`, `"assistant_id"`, `"thread_id"`,
	`"guardrailIdentifier"`, // Bedrock's guardrailConfig: a guardrail the client chose
}

// refersToResource reports whether the request, valid JSON, has a member
// named in resourceKeys (a quoted key followed by a colon; inside a JSON
// string a quote is escaped, so only a member name can match). Only the
// client's own request is read: a client that adds such a member can only
// keep its own 404 from walking the route, never cool anything.
func refersToResource(req []byte) bool {
	for _, k := range resourceKeys {
		for at := 0; ; {
			j, next := memberValue(req, k, at)
			if next < 0 {
				break
			}
			at = next
			// An id is a string (a list of them for the *_ids members):
			// the same name with an object is a JSON schema's property
			// (a tool's parameters), which names nothing stored.
			if j >= 0 && j < len(req) && (req[j] == '"' || strings.HasSuffix(k, `_ids"`) && req[j] == '[') {
				return true
			}
		}
	}
	// Cohere's conversation_id, at the top level only (an app's
	// metadata.conversation_id names nothing stored at the provider).
	return topMember(req, topResourceKeys[:])
}

// topResourceKeys name something stored at the provider only as the
// request's own top-level members.
var topResourceKeys = [...]string{"conversation_id"}

// escapedAt reports whether the quote at b[i] is escaped (an odd run of
// backslashes before it).
func escapedAt(b []byte, i int) bool {
	n := 0
	for i-n-1 >= 0 && b[i-n-1] == '\\' {
		n++
	}
	return n%2 == 1
}

// notFoundWords are the wordings of a not-found answer sent with a status
// that does not say so itself.
// A stored thing that expired ("Container is expired.": a code
// interpreter's container idle for 20 minutes) is as gone as one never made.
var notFoundWords = [...]string{"not found", "no such", "does not exist", "doesn't exist", "could not be found", "could not find", "is expired", "has expired"}

// mayNotExistWords are the words of an access denial that allows the
// thing asked for may not exist at all.
var mayNotExistWords = [...]string{"may not exist", "might not exist", "does not exist or", "not found (or permission denied)"}

func (ts *textScan) saysMayNotExist() bool {
	for i := 0; i < ts.texts(); i++ {
		for _, w := range mayNotExistWords {
			if containsFold(ts.text(i), w) {
				return true
			}
		}
	}
	return false
}

func (ts *textScan) saysNotFound() bool {
	for i := 0; i < ts.texts(); i++ {
		for _, w := range notFoundWords {
			if containsFold(ts.text(i), w) {
				return true
			}
		}
	}
	return false
}

// clientNamed reports whether the answer's texts name something, other than
// the model, that the client's request also holds.
func (ts *textScan) clientNamed() bool {
	checks := 0
	for i := 0; i < ts.texts() && checks < maxNamed; i++ {
		t := ts.text(i)
		for at := 0; checks < maxNamed; {
			s, e, next := nextName(t, at)
			if next < 0 {
				break
			}
			at = next
			if ts.isModel(t[s:e]) {
				continue
			}
			checks++
			if echoed(ts.req, t[s:min(e, s+maxNeedle)]) {
				return true
			}
		}
	}
	return false
}

// isModel reports whether name is the model Detour sent, a longer name for
// it, or a part of it (ASCII case folded).
func (ts *textScan) isModel(name []byte) bool {
	m := ts.model
	switch {
	case len(name) == len(m):
		return hasFold(name, m)
	case len(name) > len(m):
		return len(m) >= 4 && hasFold(name, m)
	}
	// A part of the model's name is the model's only where the message
	// names the model in full too (models/…/llama-v3): a client's
	// files/gemini-2 is not the model gemini-2.5-pro.
	return len(name) >= 4 && hasFold(m, name) && ts.saysModel()
}

// saysModel reports whether one of the answer's texts holds the model's
// whole name.
func (ts *textScan) saysModel() bool {
	for i := 0; i < ts.texts(); i++ {
		if hasFold(ts.text(i), ts.model) {
			return true
		}
	}
	return false
}

// hasFold reports whether sub occurs in t, ASCII case folded, byte for byte
// (names hold no blanks worth folding).
func hasFold[T, U ~string | ~[]byte](t T, sub U) bool {
	for i := 0; i+len(sub) <= len(t); i++ {
		j := 0
		for j < len(sub) && lowerTab[t[i+j]] == lowerTab[sub[j]] {
			j++
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}

// nextName finds the next name in t at or after from: its span t[s:e] and
// where to go on; next is -1 when there is none.
func nextName(t []byte, from int) (s, e, next int) {
	after := -1 // the end of the last escape: a name may start there
	if from == 0 {
		// A text quoted whole is its words, not one name.
		from = wholeQuoted(t)
		after = from
	}
	for i := from; i < len(t); {
		c := t[i]
		switch {
		case c == '\\' && (i+1 >= len(t) || t[i+1] != '"'):
			// An escape (\n, \u00e9): the letter after the backslash does
			// not start a name.
			if i+1 < len(t) && t[i+1] == 'u' {
				i += 6
			} else {
				i += 2
			}
			after = i
		case c == '\'' || c == '`' || c == '"' || c == '\\':
			if c == '\'' && i > 0 && wordTab[t[i-1]] == 1 {
				i++ // an apostrophe: doesn't
				continue
			}
			open, close := 1, string(c)
			if c == '\\' {
				open, close = 2, `\"`
			}
			in := i + open
			end := indexByteStr(t[in:min(len(t), in+maxNeedle+1)], close)
			if end < 0 {
				i += open
				continue
			}
			if quotedName(t[in : in+end]) {
				return in, in + end, in + end + len(close)
			}
			i = in + end + len(close)
		case idByte(c) && (i == 0 || i == after || !idByte(t[i-1])):
			j := i
			for j < len(t) && idByte(t[j]) {
				j++
			}
			k := j
			for k > i && (t[k-1] == '.' || t[k-1] == '-') {
				k-- // sentence punctuation, not part of the name
			}
			if idLike(t[i:k]) {
				return i, k, j
			}
			i = j
		default:
			i++
		}
	}
	return 0, 0, -1
}

// indexByteStr is the index of sep (one or two bytes) in t, or -1.
func indexByteStr(t []byte, sep string) int {
	for i := 0; i+len(sep) <= len(t); i++ {
		if t[i] == sep[0] && (len(sep) == 1 || t[i+1] == sep[1]) {
			return i
		}
	}
	return -1
}

func idByte(c byte) bool {
	return c < 0x80 && wordTab[c] == 1 || c == '_' || c == '-' || c == '.'
}

// idLike reports an identifier-like token: a letter, and a digit or '_'.
func idLike(b []byte) bool {
	if len(b) < 6 {
		return false
	}
	letter, mark, dash := false, false, false
	run, longest := 0, 0
	for _, c := range b {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			letter = true
		case c >= '0' && c <= '9', c == '_':
			mark = true
		case c == '-':
			dash = true
		}
		if c == '-' || c == '.' {
			run = 0
		} else {
			run++
			longest = max(longest, run)
		}
	}
	// A dash marks an id when a part of it is longer than words are
	// (file-abcdefghijklmnopqrstuv, base62 without a digit), not in
	// hyphenated words (well-known, non-existent).
	return letter && (mark || dash && longest >= 12)
}

// quotedName reports a quoted span that names something: 4 to 256 bytes,
// a letter or digit, and something besides letters.
func quotedName(b []byte) bool {
	if len(b) < 4 || len(b) > maxNeedle {
		return false
	}
	alnum, other := false, false
	for _, c := range b {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
			alnum = true
		case c >= '0' && c <= '9':
			alnum, other = true, true
		default:
			other = true
		}
	}
	return alnum && other
}

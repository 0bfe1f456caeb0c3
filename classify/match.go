package classify

import "strings"

// Case-insensitive, whitespace-tolerant phrase matching over raw body text,
// without allocating. A phrase matches only where a word starts; a space in a
// phrase matches one or more blanks (spaces, tabs, newlines, or their JSON
// escapes \n \t \r). A phrase may name a second part that must follow the
// first within a short gap ("model…not found"). Text in scripts written
// without spaces (Chinese) has no word starts to speak of: there every
// character starts a candidate match, so 余额不足 is found inside a sentence.

// lowerTab and wordTab are built by a variable initializer (not init) so the
// phrase sets, package variables too, can index by them.
var lowerTab, wordTab = tables()

// inWord marks the bytes that continue a word: letters, digits, '_' and the
// continuation bytes of a multi-byte character (0x80–0xBF). A lead byte
// (>= 0xC0) starts a new candidate: in scripts without spaces every
// character is a possible match start.
var inWord = func() (t [256]byte) {
	for i := range t {
		c := byte(i)
		if (wordTab[c] == 1 && c < 0xC0) || c == '_' {
			t[i] = 1
		}
	}
	return t
}()

func tables() (lower, word [256]byte) {
	for i := range lower {
		c := byte(i)
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower[i] = c
		if (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c >= 0x80 {
			word[i] = 1
		}
	}
	return lower, word
}

// phrase is one taught sentence fragment and the class it decides.
type phrase struct {
	a, b        string // b, when set, must follow a within gap bytes
	gap         int
	class       Class
	weak        bool // a weak quota phrase: a per-minute period overrides it
	badInput    bool // evidence of bad input: only where the default is unknown
	notRate     bool // ignored on a rate-limited answer ("too many tokens" from a throttle)
	vague       bool // an unknown-class phrase that names nothing: a code still decides
	word        bool // must end where the word does: an abbreviation (TPD), not a word's start
	last        bool // must end the sentence (the text, or a full stop, '!', '?', ';', a line break)
	slash       bool // a unit after a slash ("1000 calls / month"), blanks allowed between
	subject     bool // the model itself is what is unsupported, not a feature of it (gone.go)
	param       bool // the word before names a request field in snake_case (fieldpath.go)
	noModel     bool // the gap between the parts does not speak of a model
	noAcct      bool // the gap does not speak of the account (a key, a token, payment, billing, a plan)
	scoped      bool // gone wording whose gap may hold what the client named: the not-found scope applies (notfound.go)
	routing     bool // a router's words about the providers it may use: the client's own where its request carries routing preferences (members.go, carriesRouting)
	goneNoun    bool // gone wording about what the sentence names before it: a model, an endpoint, an API (gone.go)
	clause      bool // both parts in one sentence: no full stop, ';' or line break between them
	clientThing bool // between the two parts, a URL or a medium the client sent ("Failed to download https://…: … timeout", "download image: connection timeout")
	feature     bool // gone wording about anything else the sentence names: a feature of the request (gone.go)
	door        bool // an API this endpoint does not serve (the door the client chose): outranks a gone-model code
	ourModel    bool // the text must name the model Detour sent (where it is known): not a tool's or a feature's (pick.go)
	notClient   bool // no evidence where the text names a URL the client's request holds: a credential of the client's resource (pick.go)
	bareModel   bool // the top-level model only: not after a field path's '.' or ']' ("session.model is required", pick.go)
	noDetails   bool // only where the body holds no list of details beside it ("details", "errors", "issues"; pick.go)
	noMIME      bool // no MIME type follows ("unsupported content type: text/plain" is the request's HTTP Content-Type)
	memberGap   bool // a request member's name stands before and is the gap, snake_case or quoted, not a --flag ("a_b requires c_d to be false"; fieldpath.go)
	quoted      bool // a member named in quotes or backticks stands before it ("`temperature` is deprecated …"; fieldpath.go)
	opens       bool // opens its sentence or clause: no word before it ("Model must be one of", not "Embedding model must be one of"; pick.go)
	ofPath      bool // a gap in what the path the message opens with names (Gemini's schema subset): outranks that path (decide.go)
	overParam   bool // a capability gap worded for a hosted tool: outranks a named param and its bad-input code (decide.go)
	forWhat     bool // b is followed by a capability or an input kind the model lacks ("not supported for vision"; gone.go, capabilityAfter), which the match takes in
	prefix      bool // an identifier's head: may run on into the identifier (CUBLAS_STATUS_NOT_SUPPORTED)
	shortWins   bool // a quota phrase a minute's or a second's word, or a Retry-After under an hour, beside it makes a throttle (decide.go)
	evidence    string
}

// phraseSet indexes phrases by a hash of their first three bytes (blanks
// folded to one space), in compressed rows; within a row indexes ascend, and
// the index in list is the priority (lower wins). Every phrase starts with a
// letter or digit and its second byte is not a blank, so a match can only
// begin at a word start and its key is read from the text's next three bytes.
// cand is one phrase in a row: its index and its first 16 bytes as a
// filter (see window), kept together so a row is read in one sweep.
type cand struct {
	pre, mask, pre2, mask2 uint64
	idx                    uint16
}

type phraseSet struct {
	list  []phrase
	start [keySpace + 1]uint16
	cands []cand
	used  [keySpace / 64]uint64 // keys with a non-empty row
}

const keySpace = 4096

func key3(a, b, c byte) uint32 {
	return (uint32(a)*961 + uint32(b)*31 + uint32(c)) & (keySpace - 1)
}

// normTab lowers a byte and folds a blank to ' '.
var normTab = func() (n [256]byte) {
	n = lowerTab
	n['\t'], n['\n'], n['\r'] = ' ', ' ', ' '
	return n
}()

func newPhraseSet(list []phrase) *phraseSet {
	s := &phraseSet{list: list}
	var rows [keySpace][]cand
	for i := range s.list {
		p := &s.list[i]
		if len(p.a) < 3 || wordTab[p.a[0]] == 0 || p.a[1] == ' ' || p.a != string(bytesLower(p.a)) {
			panic("classify: bad phrase " + p.a)
		}
		if p.evidence == "" {
			p.evidence = "phrase:" + p.a
			if p.b != "" {
				p.evidence += "…" + p.b
			}
		}
		c := cand{idx: uint16(i)}
		for j := 0; j < 16 && j < len(p.a); j++ {
			if j < 8 {
				c.pre |= uint64(p.a[j]) << (8 * j)
				c.mask |= 0xff << (8 * j)
			} else {
				c.pre2 |= uint64(p.a[j]) << (8 * (j - 8))
				c.mask2 |= 0xff << (8 * (j - 8))
			}
		}
		k := key3(p.a[0], p.a[1], p.a[2])
		rows[k] = append(rows[k], c)
		s.used[k/64] |= 1 << (k % 64)
	}
	for k := range rows {
		s.start[k] = uint16(len(s.cands))
		s.cands = append(s.cands, rows[k]...)
	}
	s.start[keySpace] = uint16(len(s.cands))
	return s
}

func bytesLower(p string) []byte {
	b := []byte(p)
	for i, c := range b {
		b[i] = lowerTab[c]
	}
	return b
}

// isBlank reports whether t[i] starts a blank and returns its width.
func isBlank(t []byte, i int) int {
	switch t[i] {
	case ' ', '\t', '\n', '\r':
		return 1
	case '\\':
		if i+1 < len(t) {
			switch t[i+1] {
			case 'n', 't', 'r':
				return 2
			}
		}
	}
	return 0
}

// prefixAt reports whether p matches t at i, returning the end of the match.
func prefixAt(t []byte, i int, p string) (int, bool) {
	j := i
	for k := 0; k < len(p); k++ {
		if p[k] == ' ' {
			n := 0
			for j < len(t) {
				w := isBlank(t, j)
				if w == 0 {
					break
				}
				j += w
				n++
			}
			if n == 0 {
				return 0, false
			}
			continue
		}
		if j < len(t) && p[k] == '\'' && t[j] == 0xE2 {
			if w := typoQuote(t, j); w > 0 {
				j += w
				continue
			}
		}
		if j >= len(t) || lowerTab[t[j]] != p[k] {
			return 0, false
		}
		j++
	}
	return j, true
}

// typoQuote returns 3 where t[i] starts a typographic single quote, U+2018
// or U+2019 (’, the apostrophe of typeset text: "doesn’t support"), which
// phrases read as an apostrophe; 0 otherwise.
func typoQuote(t []byte, i int) int {
	if i+2 < len(t) && t[i] == 0xE2 && t[i+1] == 0x80 && (t[i+2] == 0x98 || t[i+2] == 0x99) {
		return 3
	}
	return 0
}

// indexFold returns the index of p in t (case-insensitive, blanks tolerant),
// or -1.
func indexFold(t []byte, p string) int {
	if len(p) == 0 {
		return 0
	}
	c0 := p[0]
	for i := 0; i < len(t); i++ {
		if lowerTab[t[i]] != c0 {
			continue
		}
		if _, ok := prefixAt(t, i, p); ok {
			return i
		}
	}
	return -1
}

func containsFold(t []byte, p string) bool { return indexFold(t, p) >= 0 }

// hit is a phrase found in a text: its index in the set (the set's length
// for none) and the bytes it matched, t[start:end].
type hit struct{ idx, start, end int }

// find returns the highest-priority phrase of index lo ≤ idx < limit found
// in t at or after from, and where it first matched; idx is limit when none
// is found.
func (s *phraseSet) find(t []byte, from, lo, limit int) hit {
	h := hit{idx: limit}
	n := len(t)
	i := from
	if i > 0 && i < n && (wordTab[t[i-1]] == 1 || t[i-1] == '_') {
		for i < n && inWord[t[i]] == 1 { // from is inside a word
			i++
		}
	}
	for i < n {
		c := t[i]
		if c == '_' { // inside an identifier (check_billing, per_day_report): no word starts here
			goto next
		}
		if wordTab[c] == 0 {
			if c == '\\' && i+1 < n && (t[i+1] == 'n' || t[i+1] == 't' || t[i+1] == 'r') {
				i += 2 // an escaped blank: the next byte starts a word
				continue
			}
			i++
			continue
		}
		if i+2 < n {
			c3 := normTab[t[i+2]]
			if c3 == '\\' && i+3 < n && (t[i+3] == 'n' || t[i+3] == 't' || t[i+3] == 'r') {
				c3 = ' ' // an escaped blank after a two-letter word ("no\nlonger")
			}
			k := key3(lowerTab[c], normTab[t[i+1]], c3)
			if s.used[k/64]&(1<<(k%64)) == 0 {
				goto next
			}
			w, end := window(t, i)
			var w2 uint64
			have2 := false
			for _, cd := range s.cands[s.start[k]:s.start[k+1]] {
				pi := int(cd.idx)
				if pi >= limit {
					break
				}
				if pi < lo || w&cd.mask != cd.pre {
					continue
				}
				if cd.mask2 != 0 {
					if !have2 {
						w2, _ = window(t, end)
						have2 = true
					}
					if w2&cd.mask2 != cd.pre2 {
						continue
					}
				}
				if e, ok := s.list[pi].matchAt(t, i); ok {
					limit = pi
					h = hit{idx: pi, start: i, end: e}
					if limit == lo {
						return h // nothing can rank higher
					}
					break
				}
			}
		}
	next:
		i++
		// Skip the rest of the word; a multi-byte character's lead byte
		// (>= 0xC0) starts a candidate of its own (see the file comment).
		for i < n && inWord[t[i]] == 1 {
			i++
		}
	}
	return h
}

// classMask is a set of classes.
type classMask uint16

func (m classMask) has(c Class) bool { return m&(1<<c) != 0 }

// window returns the next 8 bytes of t from i, lowered, with each run of
// blanks (escaped ones too) folded to one space and a typographic single
// quote to an apostrophe (typoQuote): the phrase filter's view.
func window(t []byte, i int) (uint64, int) {
	if i+9 <= len(t) { // fast path: no blank runs, no escapes in reach
		var w uint64
		for j := 0; j < 8; j++ {
			c := t[i+j]
			if c < ' ' || c == '\\' || c == 0xE2 || (c == ' ' && (t[i+j+1] <= ' ' || t[i+j+1] == '\\')) {
				goto slow
			}
			w |= uint64(lowerTab[c]) << (8 * j)
		}
		return w, i + 8
	}
slow:
	var w uint64
	for j := 0; j < 8 && i < len(t); j++ {
		if b := isBlank(t, i); b > 0 {
			for i < len(t) {
				b = isBlank(t, i)
				if b == 0 {
					break
				}
				i += b
			}
			w |= uint64(' ') << (8 * j)
			continue
		}
		if q := typoQuote(t, i); q > 0 {
			w |= uint64('\'') << (8 * j)
			i += q
			continue
		}
		w |= uint64(lowerTab[t[i]]) << (8 * j)
		i++
	}
	return w, i
}

// matchAt reports whether p matches t at i and where the match ends.
func (p *phrase) matchAt(t []byte, i int) (int, bool) {
	end, ok := prefixAt(t, i, p.a)
	if !ok || inURL(t, i) {
		return 0, false
	}
	if p.slash && (!afterSlash(t, i) || end < len(t) && t[end] == '/') {
		return 0, false
	}
	if p.subject && !modelIsSubject(t, i, end) {
		return 0, false
	}
	if p.param && !snakeFieldBefore(t, i) {
		return 0, false
	}
	if p.quoted && !quotedFieldBefore(t, i) {
		return 0, false
	}
	if (p.goneNoun || p.feature) && goneSubject(t, i) != p.goneNoun {
		return 0, false
	}
	if p.noMIME && mimeAfter(t, end) {
		return 0, false
	}
	if p.b == "" {
		if p.prefix {
			return end, true
		}
		if p.word && end < len(t) && (wordTab[t[end]] == 1 || t[end] == '_') {
			return 0, false
		}
		if p.last && end < len(t) && sentenceEnd(t, end) != end && !relayTail(t[end:]) {
			return 0, false
		}
		// A phrase is a word, not the start of an identifier: "billing"
		// does not match a client's billing_address.
		// An identifier-like phrase (per_day) must end where the identifier
		// does: per_day_report is a client's name.
		if end >= len(t) {
			return end, true
		}
		if strings.IndexByte(p.a, '_') >= 0 {
			return end, t[end] != '_' && wordTab[t[end]] == 0
		}
		return end, t[end] != '_'
	}
	lim := min(end+p.gap+len(p.b), len(t))
	j := indexFold(t[end:lim], p.b)
	if j < 0 {
		return 0, false
	}
	if p.subject && featureBetween(t[end:end+j]) {
		return 0, false
	}
	if p.clause && clauseEnds(t[end:end+j]) {
		return 0, false
	}
	if p.memberGap && (!memberName(t[end:end+j]) || !memberNameBefore(t, i)) {
		return 0, false
	}
	if p.clientThing && !namesClientThing(t[end:end+j]) {
		return 0, false
	}
	if p.noModel && containsFold(t[end:end+j], "model") {
		return 0, false
	}
	if p.noAcct && accountWords(t[end:end+j]) {
		return 0, false
	}
	e, _ := prefixAt(t, end+j, p.b)
	if p.forWhat {
		return capabilityAfter(t, e)
	}
	return e, true
}

// relayTail reports whether t, what follows a phrase that must end its
// sentence, is only what relays add after a message: blanks, quotes, a
// full stop, a line break (raw or escaped), one-api's "(request id: …)"
// or LiteLLM's model-group suffix (ownWords). The words still end the
// upstream's sentence.
func relayTail(t []byte) bool {
	i := 0
	for i < len(t) {
		if t[i] == '\\' && i+1 < len(t) && (t[i+1] == 'n' || t[i+1] == 'r' || t[i+1] == 't') {
			i += 2
			continue
		}
		if !bareTrim(t[i]) {
			break
		}
		i++
	}
	r := t[i:]
	if len(r) == 0 || prefixFold(r, "(request id:") {
		return true
	}
	for _, p := range litellmSuffixes {
		if prefixFold(r, p) {
			return true
		}
	}
	return false
}

// prefixFold reports whether t opens with p, ASCII case folded.
func prefixFold(t []byte, p string) bool {
	return len(t) >= len(p) && indexFold(t[:len(p)], p) == 0
}

// mimeAfter reports whether a MIME type ("text/plain", "application/json")
// follows t[:i], after blanks, a colon or a quote.
func mimeAfter(t []byte, i int) bool {
	for i < len(t) && (t[i] == ' ' || t[i] == ':' || t[i] == '\'' || t[i] == '"' || t[i] == '`' || t[i] == '\\') {
		i++
	}
	s := i
	for i < len(t) && (lowerTab[t[i]] >= 'a' && lowerTab[t[i]] <= 'z' || t[i] >= '0' && t[i] <= '9' || t[i] == '.' || t[i] == '+' || t[i] == '-') {
		i++
	}
	return i > s && i < len(t) && t[i] == '/'
}

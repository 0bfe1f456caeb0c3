package classify

// Case-insensitive, whitespace-tolerant phrase matching over raw body text,
// without allocating. A phrase matches only where a word starts; a space in a
// phrase matches one or more blanks (spaces, tabs, newlines, or their JSON
// escapes \n \t \r). A phrase may name a second part that must follow the
// first within a short gap ("model…not found").

// lowerTab and wordTab are built by a variable initializer (not init) so the
// phrase sets, package variables too, can index by them.
var lowerTab, wordTab = tables()

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
	a, b     string // b, when set, must follow a within gap bytes
	gap      int
	class    Class
	weak     bool // a weak quota phrase: a per-minute period overrides it
	badInput bool // evidence of bad input: only where the default is unknown
	evidence string
}

// phraseSet indexes phrases by their first byte; the index in list is the
// priority (lower wins).
type phraseSet struct {
	list  []phrase
	first [256][]uint16
}

func newPhraseSet(list []phrase) *phraseSet {
	s := &phraseSet{list: list}
	for i := range s.list {
		p := &s.list[i]
		if p.evidence == "" {
			p.evidence = "phrase:" + p.a
			if p.b != "" {
				p.evidence += "…" + p.b
			}
		}
		c := lowerTab[p.a[0]]
		s.first[c] = append(s.first[c], uint16(i))
	}
	return s
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
		if j >= len(t) || lowerTab[t[j]] != p[k] {
			return 0, false
		}
		j++
	}
	return j, true
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

// best returns the index of the highest-priority phrase found in t (lower is
// better), starting from limit (only phrases below limit are tried), or limit
// when none is found.
func (s *phraseSet) best(t []byte, limit int) int {
	n := len(t)
	for i := 0; i < n; {
		c := t[i]
		if c == '\\' && i+1 < n && (t[i+1] == 'n' || t[i+1] == 't' || t[i+1] == 'r') {
			i += 2 // an escaped blank: the next byte starts a word
			continue
		}
		for _, pi := range s.first[lowerTab[c]] {
			if int(pi) >= limit {
				break
			}
			if s.list[pi].matchAt(t, i) {
				limit = int(pi)
				break
			}
		}
		i++
		if wordTab[c] == 1 { // skip the rest of the word
			for i < n && wordTab[t[i]] == 1 {
				i++
			}
		}
	}
	return limit
}

func (p *phrase) matchAt(t []byte, i int) bool {
	end, ok := prefixAt(t, i, p.a)
	if !ok {
		return false
	}
	if p.b == "" {
		return true
	}
	lim := min(end+p.gap+len(p.b), len(t))
	return indexFold(t[end:lim], p.b) >= 0
}

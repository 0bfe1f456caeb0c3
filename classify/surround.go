package classify

// What surrounds a phrase's match and changes what it says: the words in
// the gap of a two-part phrase (accountWords), a rate's unit after a slash
// (afterSlash), and a link the match lies inside (inURL).

// accountWords reports whether gap speaks of the account rather than the
// request: a fix to a key, a token, a credential, payment, billing or a
// plan is no evidence of the client's bad input. Whole words only (a '_'
// joins a word): a request's tokenizer or keywords field is no key.
func accountWords(gap []byte) bool {
	for i := 0; i < len(gap); {
		for i < len(gap) && !accountWordByte(gap[i]) {
			i++
		}
		j := i
		for j < len(gap) && accountWordByte(gap[j]) {
			j++
		}
		switch w := gap[i:j]; {
		case len(w) == 0:
		case eqFold(w, "key"), eqFold(w, "keys"), eqFold(w, "apikey"), eqFold(w, "token"),
			eqFold(w, "credential"), eqFold(w, "credentials"), eqFold(w, "payment"),
			eqFold(w, "billing"), eqFold(w, "plan"), eqFold(w, "subscription"):
			return true
		}
		i = j
	}
	return false
}

func accountWordByte(c byte) bool { return wordTab[c] != 0 || c == '_' }

// eqFold reports whether w is s, ASCII case aside.
func eqFold(w []byte, s string) bool { return len(w) == len(s) && hasFold(w, s) }

// afterSlash reports whether the word at i follows a '/', blanks allowed
// between: the unit of a rate such as "1000 API calls / month" or
// "requests/day". A slash inside a path or URL (…/limits/day) is not one:
// the run of text before it holds no other '/'.
func afterSlash(t []byte, i int) bool {
	for i > 0 {
		switch {
		case t[i-1] == ' ' || t[i-1] == '\t' || t[i-1] == '\n' || t[i-1] == '\r':
			i--
			continue
		case i > 1 && t[i-2] == '\\' && (t[i-1] == 'n' || t[i-1] == 't' || t[i-1] == 'r'):
			i -= 2 // an escaped blank
			continue
		}
		break
	}
	if i == 0 || t[i-1] != '/' {
		return false
	}
	for j := i - 2; j >= 0 && t[j] != ' ' && t[j] != '\t'; j-- {
		if t[j] == '/' {
			return false
		}
	}
	return true
}

// maxURLBack bounds how far back inURL looks for the start of a URL.
const maxURLBack = 512

// inURL reports whether t[i] lies inside a URL: a run of bytes with no
// blank, quote, bracket, comma or backslash that starts with http:// or
// https://. A link's path ("https://console.groq.com/settings/billing/plans")
// is an address to visit, not a statement about the account or the
// request. A link right after a JSON escape of a line break or a tab
// (`\n`, `\r`, `\t`) starts after it; escaped slashes (`https:\/\/…`)
// are decoded before the scan (unescapeText).
func inURL(t []byte, i int) bool {
	s := i
	for s > 0 && i-s < maxURLBack && !urlBound(t[s-1]) {
		s--
	}
	if s > 0 && t[s-1] == '\\' && (t[s] == 'n' || t[s] == 'r' || t[s] == 't') {
		s++
	}
	if _, ok := prefixAt(t, s, "https://"); ok {
		return true
	}
	_, ok := prefixAt(t, s, "http://")
	return ok
}

// urlBound reports whether c ends a URL in text.
func urlBound(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '"', '\'', '`', '(', ')', '<', '>', '[', ']', ',', '\\':
		return true
	}
	return false
}

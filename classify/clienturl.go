package classify

import "bytes"

// A URL the client sent, named by the answer (pick.go, clientURL): a
// relay's "Failed to download file from https://…: 401 Unauthorized. Please
// re-authenticate." is about the client's resource, not Detour's key.

// namesClientURL reports whether t holds an http(s) URL that req holds too.
// Only the first maxURLs URLs are looked for: each search reads the whole
// request, and the answer's text is the upstream's, hostile until proven.
func namesClientURL(t, req []byte) bool { return namesURL(t, req, false) }

// fetchKeys name the members whose URL an upstream fetches; a plain "url"
// is one inside an object that fetchParents names (OpenAI's "image_url":
// {"url": …}, Anthropic's image or document "source": {"type": "url",
// "url": …}), not a search result's or a citation's.
var (
	urlKey       = [...]string{"url"}
	fetchKeys    = [...]string{"image_url", "file_url", "fileUri", "file_uri", "audio_url", "video_url", "document_url"}
	fetchParents = [...]string{"image_url", "source", "file", "image", "document", "audio_url", "video_url", "file_url", "input_audio"}
)

// namesURL is namesClientURL, or with fetched, for a URL the request gives
// the upstream to fetch: the value of a member named in fetchKeys (an
// image's, a file's, a document's "url": fetchedValue). The words of what
// that URL's host answered are the host's (pick.go, aboutProvider); a link
// the request holds elsewhere (a provider's docs link pasted in a message,
// a search result's) is no resource the upstream fetched, and its quota or
// key words beside it stay the provider's (review 61h: 44 corpus answers
// lost their class when the request held their own docs link).
func namesURL(t, req []byte, fetched bool) bool {
	n := 0
	for at := 0; at < len(t) && n < maxURLs; {
		i := indexFold(t[at:], "http")
		if i < 0 {
			return false
		}
		s := at + i
		e := s
		for e < len(t) && t[e] > ' ' && t[e] != '"' && t[e] != '\'' && t[e] != '\\' && t[e] != ')' && t[e] != '`' && t[e] != '<' && t[e] != '>' && t[e] != ']' {
			e++
		}
		if u := trimURL(t[s:e]); bytesHasPrefixFold(u, "https://") || bytesHasPrefixFold(u, "http://") {
			if n++; wholeValue(req, u, fetched) {
				return true
			}
		}
		at = e + 1
	}
	return false
}

// wholeValue reports whether req holds the URL v as a JSON string value
// ("url":"https://…"), not inside prose: v starts the value and ends it, or
// ends where its query, its fragment or a trailing slash begins; the value
// may be written with JSON escapes ("\/", "\u0026", "\u0068ttps") or
// percent-encode a byte the answer quotes decoded ("%31", as Python's
// requests prints a URL), as the upstream decodes both before it fetches
// and quotes it (review 32a).
// With fetched, the value must be that of a member named in fetchKeys.
func wholeValue(req, v []byte, fetched bool) bool {
	// Candidates are where a string opens with "http", or with an escape
	// ("\u0068ttps", "%68ttp"), each found with bytes.Index; urlAt compares
	// the rest within that one string (review 32j: a match may not run
	// across strings, nor start at every quote).
	for _, open := range [...]string{`"h`, `"H`, `"\u`, `"%`} { // any case of the scheme (review 32k)
		for at := 0; at < len(req); {
			i := bytes.Index(req[at:], []byte(open))
			if i < 0 {
				break
			}
			p := at + i + 1
			at = p
			if p >= 2 && req[p-2] == '\\' {
				continue // an escaped quote inside a string
			}
			if e, ok := urlAt(req, p, v); ok && urlEnds(req, e) && (!fetched || fetchedValue(req, p-1)) {
				return true
			}
		}
	}
	return false
}

// urlEnds reports whether the string value of req that a URL matched up to
// e ends there: at its closing quote, after a trailing slash, or where a
// query or a fragment begins that runs to the closing quote as a URL's
// does (no blank, no escaped character outside ASCII: "…/completions? why
// does it return 401" is prose after a URL, not the URL, review 32j).
func urlEnds(req []byte, e int) bool {
	b, n := reqByte(req, e)
	switch {
	case e < len(req) && req[e] == '"':
		return true
	case n > 0 && b == '/':
		return e+n < len(req) && req[e+n] == '"'
	case n > 0 && (b == '?' || b == '#' || b == '&'):
		return urlTail(req, e+n)
	}
	return false
}

// urlTail reports whether req from i to the closing quote of its string is
// what a URL's query or fragment holds: no blank, written or escaped
// ("%20" in a query is a URL's own, and so is an escaped character beyond
// ASCII, "caf\u00e9": review 32k), at most maxURLTail bytes.
func urlTail(req []byte, i int) bool {
	for end := min(len(req), i+maxURLTail); i < end; i++ {
		switch c := req[i]; {
		case c == '"':
			return true
		case c <= ' ':
			return false
		case c == '\\' && i+1 < len(req):
			switch req[i+1] {
			case 'n', 't', 'r', 'b', 'f':
				return false
			case 'u':
				if i+5 < len(req) && hexByte(req[i+2], req[i+3]) == 0 && hexByte(req[i+4], req[i+5]) <= ' ' {
					return false // \u0020 and the controls
				}
			}
			i++ // the escaped byte is not the string's end
		}
	}
	return false
}

// maxURLTail bounds the query or fragment urlTail reads.
const maxURLTail = 8 << 10

// urlAt matches v (trailing slash aside) against req from p, ASCII case
// aside (a fetcher lowercases the host), reading each byte of req as JSON
// and a URL decode it (reqByte) and each "%XX" of v as the byte it writes
// ("%20" for a space, "%E5%9B%BE" for 图); it returns where the match ends.
func urlAt(req []byte, p int, v []byte) (int, bool) {
	if len(v) > 0 && v[len(v)-1] == '/' {
		v = v[:len(v)-1]
	}
	i := p
	for j := 0; j < len(v); {
		c := v[j]
		if i < len(req) && lowerTab[req[i]] == lowerTab[c] {
			i, j = i+1, j+1
			continue
		}
		b, n := reqByte(req, i)
		switch {
		case n == 0 || req[i] == '"':
			return 0, false // the string ends: a match never runs into the next one (review 32j)
		case lowerTab[b] == lowerTab[c]:
			i, j = i+n, j+1
		case c == '%' && j+2 < len(v) && hexByte(v[j+1], v[j+2]) == int(b):
			i, j = i+n, j+3
		default:
			return 0, false
		}
	}
	return i, true
}

// reqByte reads one byte of a JSON string of the request at req[i] as the
// upstream decodes it: an escape ("\/", "\u" of an ASCII byte) or a URL's
// "%XX", else the byte itself; n is the bytes it took, 0 at the end.
func reqByte(req []byte, i int) (b byte, n int) {
	if i >= len(req) {
		return 0, 0
	}
	switch req[i] {
	case '\\':
		if i+1 < len(req) && req[i+1] == '/' {
			return '/', 2
		}
		if i+5 < len(req) && req[i+1] == 'u' && hexByte(req[i+2], req[i+3]) == 0 {
			if h := hexByte(req[i+4], req[i+5]); h >= 0 && h < 0x80 {
				return byte(h), 6
			}
		}
	case '%':
		if i+2 < len(req) {
			if h := hexByte(req[i+1], req[i+2]); h >= 0 {
				return byte(h), 3
			}
		}
	}
	return req[i], 1
}

// hexByte is the byte two hex digits write, -1 where they are not hex.
func hexByte(a, b byte) int {
	h := func(c byte) int {
		switch {
		case c >= '0' && c <= '9':
			return int(c - '0')
		case lowerTab[c] >= 'a' && lowerTab[c] <= 'f':
			return int(lowerTab[c]-'a') + 10
		}
		return -1
	}
	x, y := h(a), h(b)
	if x < 0 || y < 0 {
		return -1
	}
	return x<<4 | y
}

// maxURLs bounds the URLs of one answer looked for in the request.
const maxURLs = 8

// trimURL drops the punctuation a sentence puts after a URL.
func trimURL(u []byte) []byte {
	for len(u) > 0 && (u[len(u)-1] == '.' || u[len(u)-1] == ',' || u[len(u)-1] == ':' || u[len(u)-1] == ';') {
		u = u[:len(u)-1]
	}
	return u
}

// fetchedValue reports whether the JSON string opening at req[q] (its
// quote) is a URL the upstream fetches: the value of a member in
// fetchKeys, or of a "url" in an object that is the value of a member in
// fetchParents.
func fetchedValue(req []byte, q int) bool {
	name, at := memberBefore(req, q)
	switch {
	case at < 0:
		return false
	case isKey(name, urlKey[:]): // "\u0075rl" too, as every parser reads it (review 61j)
		for j, depth := at-1, 0; j >= 0; j-- {
			switch req[j] {
			case '"':
				j = quoteBefore(req, j)
			case '}', ']':
				depth++
			case '[':
				if depth == 0 {
					return false // a "url" in an array's object: no parent member
				}
				depth--
			case '{':
				if depth > 0 {
					depth--
					continue
				}
				parent, pat := memberBefore(req, j)
				return pat >= 0 && isKey(parent, fetchParents[:])
			}
		}
		return false
	}
	return isKey(name, fetchKeys[:])
}

// memberBefore is the name of the member whose value opens at req[q] and
// the offset of its opening quote; -1 when no "name": stands before q.
func memberBefore(req []byte, q int) ([]byte, int) {
	i := q - 1
	for i >= 0 && (req[i] == ' ' || req[i] == '\t' || req[i] == '\n' || req[i] == '\r') {
		i--
	}
	if i < 0 || req[i] != ':' {
		return nil, -1
	}
	i--
	for i >= 0 && (req[i] == ' ' || req[i] == '\t' || req[i] == '\n' || req[i] == '\r') {
		i--
	}
	if i < 1 || req[i] != '"' {
		return nil, -1
	}
	start := quoteBefore(req, i)
	if start < 0 {
		return nil, -1
	}
	return req[start+1 : i], start
}

// quoteBefore is the offset of the quote that opens the JSON string whose
// closing quote is req[end] (the nearest quote before it not escaped by
// an odd run of backslashes); -1 for none.
func quoteBefore(req []byte, end int) int {
	for j := end - 1; j >= 0; j-- {
		if req[j] != '"' {
			continue
		}
		n := 0
		for k := j - 1; k >= 0 && req[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return j
		}
	}
	return -1
}

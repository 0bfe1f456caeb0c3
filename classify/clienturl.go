package classify

import "bytes"

// A URL the client sent, named by the answer (pick.go, clientURL): a
// relay's "Failed to download file from https://…: 401 Unauthorized. Please
// re-authenticate." is about the client's resource, not Detour's key.

// namesClientURL reports whether t holds an http(s) URL that req holds too.
// Only the first maxURLs URLs are looked for: each search reads the whole
// request, and the answer's text is the upstream's, hostile until proven.
func namesClientURL(t, req []byte) bool {
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
			if n++; wholeValue(req, u) {
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
// may be written with JSON escapes ("\/", "\u0026").
func wholeValue(req, v []byte) bool {
	// Candidates are where "http" opens a string value (found with
	// bytes.Index, not byte by byte); urlAt compares the rest, case aside.
	for at := 0; at < len(req); {
		i := bytes.Index(req[at:], []byte("http"))
		if i < 0 {
			return false
		}
		p := at + i
		at = p + 1
		if p == 0 || req[p-1] != '"' || (p >= 2 && req[p-2] == '\\') {
			continue
		}
		if e, ok := urlAt(req, p, v); ok && e < len(req) {
			switch c := req[e]; {
			case c == '"' || c == '?' || c == '#' || c == '\\' && e+1 < len(req) && req[e+1] == 'u':
				return true
			case c == '/' && e+1 < len(req) && req[e+1] == '"':
				return true
			case c == '\\' && e+2 < len(req) && req[e+1] == '/' && req[e+2] == '"':
				return true
			}
		}
	}
	return false
}

// urlAt matches v (trailing slash aside) against req from p, ASCII case
// aside (a fetcher lowercases the host), where req may escape '/' as "\/"
// and '&' as "\u0026" and v may percent-encode a byte req holds raw ("%20"
// for a space, "%E5%9B%BE" for 图); it returns where the match ends.
func urlAt(req []byte, p int, v []byte) (int, bool) {
	if len(v) > 0 && v[len(v)-1] == '/' {
		v = v[:len(v)-1]
	}
	i := p
	for j := 0; j < len(v); {
		c := v[j]
		switch {
		case i < len(req) && lowerTab[req[i]] == lowerTab[c]:
			i, j = i+1, j+1
		case c == '%' && j+2 < len(v) && i < len(req) && hexByte(v[j+1], v[j+2]) == int(req[i]):
			i, j = i+1, j+3
		case c == '/' && i+1 < len(req) && req[i] == '\\' && req[i+1] == '/':
			i, j = i+2, j+1
		case c == '&' && i+5 < len(req) && string(req[i:i+6]) == "\\u0026":
			i, j = i+6, j+1
		default:
			return 0, false
		}
	}
	return i, true
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

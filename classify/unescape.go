package classify

import (
	"bytes"
	"unicode/utf8"
)

// Many servers write every character outside ASCII as a JSON escape:
// Python's json.dumps does by default, so a relay or a self-hosted server
// written in Python sends Zhipu's "余额不足" as "\u4f59\u989d\u4e0d\u8db3",
// and Bedrock's "isn’t supported" arrives as "isn\u2019t supported". The
// phrases are taught as text, so the classifier reads such a body with those
// escapes decoded (docs/design.md, "Escaped text"). Only escapes of text are
// decoded: a quote, a backslash and control characters stay escaped, so a
// JSON body stays JSON with the same structure, and every offset the scan
// takes is into the decoded copy.

// textBufs hold decoded copies for the length of one classification, so the
// classifier still allocates nothing once warm (a body is at most MaxBody
// bytes, and its decoded copy no longer). Nothing of a copy outlives the
// call: every verdict's evidence is a fixed string. A free list, not a
// sync.Pool: a pool may drop what it is given (the race detector makes it
// do so at random), and the list keeps at most bufFree buffers.
var textBufs = make(freeList[[MaxBody]byte], bufFree)

// bufFree bounds the buffers kept between classifications: as many as
// classify at once, up to 64 (256 KiB).
const bufFree = 64

// freeList is a free list of buffers: decoding buffers, and scanners
// (success).
type freeList[T any] chan *T

// Get returns a kept buffer, or a new one.
func (l freeList[T]) Get() *T {
	select {
	case b := <-l:
		return b
	default:
		return new(T)
	}
}

// Put keeps b for a later Get, unless the list is full.
func (l freeList[T]) Put(b *T) {
	select {
	case l <- b:
	default:
	}
}

// decoded returns body with its escaped text decoded (unescapeText) and
// each run of spaces folded to one (foldSpaces), and the buffer to hand
// back to textBufs once the copy is no longer read (nil when body held
// nothing to decode or fold).
func decoded(body []byte) ([]byte, *[MaxBody]byte) {
	// A markup page is searched for phrases only, as written: its
	// indentation is folded for nothing.
	esc, runs := firstEscape(body) >= 0, !markup(body) && bytes.Contains(body, []byte("  "))
	if !esc && !runs || len(body) > MaxBody {
		return body, nil
	}
	buf := textBufs.Get()
	d := body
	if esc {
		d = unescapeText(buf[:0], body)
	}
	if runs {
		d = foldSpaces(buf[:0], d) // in place where d is buf's already
	}
	if len(d) == len(body) {
		textBufs.Put(buf)
		return body, nil
	}
	return d, buf
}

// markup reports whether body is a markup page (it opens with '<').
func markup(body []byte) bool {
	t := trimLeft(body)
	return len(t) > 0 && t[0] == '<'
}

// foldSpaces appends b to dst with each run of spaces written as one: a
// message that says "Quota limit  exceeded" or "retry after  60 seconds"
// says what it says with one blank, and the readers of counts and waits
// expect one. Between JSON's tokens a blank means nothing; inside a string
// the copy is only read, never sent on. dst may be b[:0].
func foldSpaces(dst, b []byte) []byte {
	for {
		i := bytes.Index(b, []byte("  "))
		if i < 0 {
			return append(dst, b...) // a copy moves forward only: in place is safe
		}
		dst = append(dst, b[:i+1]...)
		b = b[i+1:]
		for len(b) > 0 && b[0] == ' ' {
			b = b[1:]
		}
	}
}

// unescapeText appends to dst body with each JSON escape \uXXXX (a surrogate
// pair joined) that stands for a printable character decoded to UTF-8, and
// each escaped slash `\/` (PHP's json_encode writes every slash so: a link
// "https:\/\/…", a path "v1\/chat\/completions") as a slash, and returns it;
// body itself when it holds none. An escaped backslash's "u" (`\\u4f59`) is
// text, not an escape. The result is never longer than body.
func unescapeText(dst, body []byte) []byte {
	i := firstEscape(body)
	if i < 0 {
		return body
	}
	// Start at the first backslash of the run before the candidate: an even
	// run of backslashes before it makes it text.
	for i > 0 && body[i-1] == '\\' {
		i--
	}
	out := dst
	copied := 0 // body[:copied] is in out
	for i < len(body) {
		j := bytes.IndexByte(body[i:], '\\')
		if j < 0 {
			break
		}
		i += j
		if i+1 < len(body) && body[i+1] == '/' {
			out = append(out, body[copied:i]...)
			out = append(out, '/')
			i += 2
			copied = i
			continue
		}
		if i+1 < len(body) && body[i+1] == 'u' {
			if r, w, ok := escapedRune(body, i, `\`); ok && textRune(r) {
				out = append(out, body[copied:i]...)
				out = utf8.AppendRune(out, r)
				i += w
				copied = i
				continue
			}
		}
		i += 2 // any other escape (or an escaped backslash) is kept as is
	}
	if copied == 0 {
		return body
	}
	return append(out, body[copied:]...)
}

// firstEscape is the index of the first `\u` or `\/` in body, -1 for none.
func firstEscape(body []byte) int {
	u, s := bytes.Index(body, []byte(`\u`)), bytes.Index(body, []byte(`\/`))
	if u < 0 || s >= 0 && s < u {
		return s
	}
	return u
}

// textRune reports whether r may stand in a JSON string unescaped without
// changing what it means: printable, neither a quote nor a backslash, and
// not the U+FFFD of a lone surrogate (which stays escaped).
func textRune(r rune) bool {
	switch {
	case r < 0x20, r == '"', r == '\\', r == 0x7f:
		return false
	case r >= 0x80 && r < 0xa0: // C1 controls
		return false
	case r == utf8.RuneError:
		return false
	}
	return true
}

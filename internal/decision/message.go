package decision

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxMessage bounds Attempt.Message, in bytes.
const MaxMessage = 300

// Masked stands for a quoted value in a recorded message.
const Masked = "…"

// UpstreamMessage is what a failed attempt records of the upstream's own
// message, for the operator asking why, and for an unknown's `detour
// classify --suggest`: every quoted value masked (that
// is where upstreams quote the client's input back: "Invalid value: '…'"),
// runs of blanks folded to one space, at most MaxMessage bytes (cut at a
// character boundary).
func UpstreamMessage(msg string) string {
	msg = strings.Join(strings.Fields(MaskQuoted(msg)), " ")
	if len(msg) <= MaxMessage {
		return msg
	}
	cut := MaxMessage
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut]
}

// MaskQuoted replaces the content of every quoted value in s — between
// backticks, double quotes, or single quotes that do not stand inside a word
// (so "don't" is no quote) — with Masked, keeping the quotes. A double
// quote escaped with a backslash closes nothing. A quote left open masks
// the rest of s.
func MaskQuoted(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		q := s[i]
		if (q != '\'' && q != '"' && q != '`') || (q == '\'' && i > 0 && isWordByte(s, i-1)) {
			b.WriteByte(q)
			i++
			continue
		}
		end := closing(s, i+1, q)
		b.WriteByte(q)
		b.WriteString(Masked)
		if end < 0 {
			return b.String()
		}
		b.WriteByte(q)
		i = end + 1
	}
	return b.String()
}

// closing finds the quote q that closes a value opened before from: for a
// single quote, one not followed by a letter or digit ("it's" inside a
// quoted value does not close it); for a double quote, one not escaped by
// a backslash (a value written with Go's %q or as JSON, `"a\" b"`: an
// escaped quote closing it left the rest of the client's value unmasked,
// review 64i); -1 when none does.
func closing(s string, from int, q byte) int {
	for j := from; j < len(s); j++ {
		if s[j] != q {
			continue
		}
		if q == '\'' && j+1 < len(s) && isWordByte(s, j+1) {
			continue
		}
		if q == '"' && escaped(s, from, j) {
			continue
		}
		return j
	}
	return -1
}

// escaped reports whether s[j] follows an odd run of backslashes that
// starts at from or later.
func escaped(s string, from, j int) bool {
	n := 0
	for k := j - 1; k >= from && s[k] == '\\'; k-- {
		n++
	}
	return n%2 == 1
}

// isWordByte reports whether the character at s[i] (or the one it ends or
// starts) is a letter or digit.
func isWordByte(s string, i int) bool {
	c := s[i]
	if c < utf8.RuneSelf {
		return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
	}
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

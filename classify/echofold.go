package classify

import (
	"unicode"
	"unicode/utf8"
)

// A server that quotes the client back may first pass its text through
// Unicode's own mappings, which turn some non-ASCII characters into the
// ASCII a phrase is written in: Python's and Go's case mappings (ſ upper
// cased is S, the Kelvin sign lower cased is k, ß upper cased is SS), NFKC (fullwidth ｌｏｗ is
// low), a split on any white space (str.split, strings.Fields: a
// non-breaking space is a blank), a strip of invisible format characters,
// and a URL's percent-encoded UTF-8 decoded (vLLM's file:// paths). The
// echo check reads both sides through the same mappings, so the client's
// text stays the client's whichever of them the server applied
// (docs/design.md, "Echoed text"; hostile review 45b). Every other
// character is read as its compatibility decomposition, which covers the
// rest of NFC and NFKC (echo_nfkd.go, hostile 58).

// dropRune is foldRune's answer for a character read as nothing.
const dropRune = -1

// foldRune returns what the non-ASCII rune r reads as in the echo check:
// a typographic single quote an apostrophe (as phrases read it), a
// fullwidth ASCII form its ASCII, the few letters whose case mapping is
// ASCII that ASCII letter, any Unicode blank a space, an invisible format
// character dropRune, anything else itself.
func foldRune(r rune) rune {
	switch {
	case r == '\u2018' || r == '\u2019':
		return '\'' // typoQuote
	case r >= 0xFF01 && r <= 0xFF5E:
		return r - 0xFEE0 // fullwidth ASCII (NFKC)
	case r == '\u017F': // ſ
		return 's'
	case r == '\u0131' || r == '\u0130': // ı, İ
		return 'i'
	case r == '\u212A': // the Kelvin sign
		return 'k'
	case r == 0xAD || r >= 0x200B && r <= 0x200F || r >= 0x2060 && r <= 0x2064 || r == 0xFEFF:
		return dropRune // soft hyphen, zero-width and direction marks, word joiner, BOM
	case unicode.Is(unicode.Cf, r):
		// Every other invisible format character a server may strip: bidi
		// embeddings, overrides and isolates, tag characters, the
		// Mongolian vowel separator, the Arabic letter mark (review 61g:
		// "rate \u2066limited" quoted back whole read as the server's).
		return dropRune
	case unicode.IsSpace(r):
		return ' '
	}
	return r
}

// expandRune returns the ASCII letters a full case mapping turns r into
// where they are more than one (Python's str.upper: ß is SS, the ligature
// ﬃ is FFI), lower-cased; "" for any other rune.
func expandRune(r rune) string {
	switch r {
	case '\u00DF', '\u1E9E': // ß, ẞ
		return "ss"
	case '\uFB00':
		return "ff"
	case '\uFB01':
		return "fi"
	case '\uFB02':
		return "fl"
	case '\uFB03':
		return "ffi"
	case '\uFB04':
		return "ffl"
	case '\uFB05', '\uFB06':
		return "st"
	}
	return ""
}

// pctRune reads the run of "%XX" triplets at b[i] as a URL's decoder
// does: one ASCII byte, or the UTF-8 sequence of one rune (width 0 when
// it is neither: the '%' is then itself).
func pctRune(b []byte, i int) (r rune, width int) {
	var seq [utf8.UTFMax]byte
	n := 0
	for n < len(seq) && i+3*n+2 < len(b) && b[i+3*n] == '%' {
		h := hexByte(b[i+3*n+1], b[i+3*n+2])
		if h < 0 || n > 0 && h < 0x80 {
			break
		}
		seq[n] = byte(h)
		n++
		if h < 0x80 {
			break
		}
	}
	if n == 0 {
		return 0, 0
	}
	if seq[0] < utf8.RuneSelf {
		if seq[0] == 0 {
			return 0, 0 // "%00" as before: not decoded
		}
		return rune(seq[0]), 3
	}
	r, w := utf8.DecodeRune(seq[:n])
	if r == utf8.RuneError {
		return 0, 0
	}
	return r, 3 * w
}

// foldStart reports whether b[i] opens a rune foldRune or expandRune reads
// as ASCII letters or digits (skip must stop there): ß, ſ, ı, İ, ẞ, the
// Kelvin sign, a ligature, a fullwidth letter or digit; not at any other
// accented Latin letter or symbol, which share their lead bytes.
func foldStart(b []byte, i int) bool {
	if i+1 >= len(b) {
		return false
	}
	switch c := b[i+1]; b[i] {
	case 0xC3:
		return c == 0x9F // ß
	case 0xC4:
		return c == 0xB0 || c == 0xB1 // İ, ı
	case 0xC5:
		return c == 0xBF // ſ
	case 0xE1:
		return c == 0xBA && i+2 < len(b) && b[i+2] == 0x9E // ẞ
	case 0xE2:
		return c == 0x84 && i+2 < len(b) && b[i+2] == 0xAA // the Kelvin sign
	case 0xEF:
		if i+2 >= len(b) {
			return false
		}
		switch d := b[i+2]; c {
		case 0xAC:
			return d >= 0x80 && d <= 0x86 // the ligatures ﬀ…ﬆ
		case 0xBC:
			return d >= 0x90 && d <= 0x99 || d >= 0xA1 && d <= 0xBA // fullwidth 0-9, A-Z
		case 0xBD:
			return d >= 0x81 && d <= 0x9A // fullwidth a-z
		}
	}
	return false
}

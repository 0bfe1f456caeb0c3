package rawjson

import (
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// AppendVisible appends the JSON text src to dst with every invisible
// character written as a \u escape: C1 controls (U+0080–U+009F), format
// characters (Unicode category Cf: bidi overrides such as U+202E, zero-width
// spaces, U+FEFF, tag characters U+E0000–U+E007F), variation selectors
// (U+FE00–U+FE0F, U+E0100–U+E01EF: one can carry a hidden byte after a
// visible character, "emoji smuggling") and the other code points Unicode
// says are drawn as nothing (Other_Default_Ignorable_Code_Point: the Hangul
// fillers, U+034F; hostile 57b and review 57). The text decodes to the
// same value, and a person reading it in a terminal sees each one instead of
// having the line reordered or hidden (docs/security.md, "Hostile or
// broken upstreams"). src must be JSON: outside ASCII it holds only string contents, so
// an escape is always inside a string. Text of ASCII only is copied at once.
func AppendVisible(dst, src []byte) []byte {
	i := 0
	for i < len(src) && src[i] < utf8.RuneSelf {
		i++
	}
	if i == len(src) {
		return append(dst, src...)
	}
	start := 0
	for i < len(src) {
		if src[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(src[i:])
		if !Invisible(r) {
			i += size
			continue
		}
		dst = append(dst, src[start:i]...)
		if r > 0xFFFF {
			hi, lo := utf16.EncodeRune(r)
			dst = appendU(appendU(dst, hi), lo)
		} else {
			dst = appendU(dst, r)
		}
		i += size
		start = i
	}
	return append(dst, src[start:]...)
}

// Invisible reports whether r is written escaped by AppendVisible: a C1
// control, a format character, a variation selector or another code point
// Unicode draws as nothing. Tables people read use it too (internal/query).
func Invisible(r rune) bool {
	return r >= 0x80 && r <= 0x9F || r != utf8.RuneError && (unicode.Is(unicode.Cf, r) ||
		unicode.Is(unicode.Variation_Selector, r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r))
}

func appendU(b []byte, r rune) []byte {
	return append(b, '\\', 'u', hexDigits[r>>12&0xF], hexDigits[r>>8&0xF], hexDigits[r>>4&0xF], hexDigits[r&0xF])
}

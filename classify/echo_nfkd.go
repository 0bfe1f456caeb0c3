package classify

import (
	"sync"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// A server that normalises the client's text before it quotes it back
// (Python's unicodedata.normalize("NFC"/"NFKC", …) in a validator,
// SentencePiece's nmt_nfkc, a tokenizer's NFC or NFKC normaliser) writes
// characters the client never wrote: U+F967 as 不, a Kangxi radical ⾜ as
// 足, Hangul or kana written decomposed as their syllables, mathematical
// bold 𝐥𝐨𝐰 or circled ⓛⓞⓦ as low, halfwidth ｸ as ク, superscript ⁹ as 9
// (hostile 58). The echo check reads both sides through the compatibility
// decomposition (NFKD) of every character, so a text and its NFC, NFD,
// NFKC or NFKD form read alike, whichever the server applied: NFKC is
// NFKD followed by a canonical composition, and two texts with the same
// NFKD have the same NFKC.
//
// Decomposition, not composition, on purpose: it maps each character on
// its own (no look-ahead, no state), so the reading of a text is the
// concatenation of its characters' readings, and a needle found in the
// request as read before is found in it as read now: the echo check finds
// at least what it found. A composition would not keep that: the client's
// "low" followed by a combining acute accent composes to "lẃ", and an
// upstream that quotes the text as written (not normalised) would then
// have quoted "low" that the request, composed, no longer held. What it
// leaves: the canonical reordering of two or more combining marks in a row
// (no phrase holds one).
//
// The characters foldRune and expandRune already map keep their mapping
// (İ reads as i, ß as ss, a typographic apostrophe as one), which
// decomposition would write otherwise (İ is I and a combining dot). The
// decompositions come from golang.org/x/text/unicode/norm's tables, read
// in place (no allocation); Hangul syllables, which it decomposes by
// arithmetic, are decomposed here by the same arithmetic (Unicode §3.12).

// Hangul syllable decomposition (Unicode 15, §3.12).
const (
	hangulBase  = 0xAC00
	hangulEnd   = 0xD7A4
	hangulLBase = 0x1100
	hangulVBase = 0x1161
	hangulTBase = 0x11A7
	hangulTN    = 28
	hangulNN    = 21 * hangulTN
)

// hangulJamo writes the Hangul syllable r's jamo (its canonical
// decomposition: two or three, three bytes each) to buf and returns their
// length.
func hangulJamo(buf *[9]byte, r rune) int {
	s := r - hangulBase
	n := utf8.EncodeRune(buf[:], hangulLBase+s/hangulNN)
	n += utf8.EncodeRune(buf[n:], hangulVBase+s%hangulNN/hangulTN)
	if t := s % hangulTN; t != 0 {
		n += utf8.EncodeRune(buf[n:], hangulTBase+t)
	}
	return n
}

// decompose returns the UTF-8 of r's compatibility decomposition (NFKD),
// nil when r reads as itself, is a Hangul syllable (hangulJamo), or
// foldRune or expandRune maps it. The slice is norm's table, not a copy.
func decompose(r rune) []byte {
	switch {
	case r < 0xA0:
		return nil // ASCII and C1 controls: no decomposition
	case r >= 0x4E00 && r <= 0x9FFF:
		return nil // CJK unified ideographs: none decomposes
	case r >= hangulBase && r < hangulEnd:
		return nil
	}
	if r < 0x10000 && !decTable().decomposes(r) {
		return nil
	}
	if expandRune(r) != "" || foldRune(r) != r {
		return nil
	}
	if r < 0x800 {
		t := decTable()
		e := t.small[r]
		return t.bytes[e>>8 : e>>8+e&0xFF]
	}
	var enc [utf8.UTFMax]byte
	w := utf8.EncodeRune(enc[:], r)
	return norm.NFKD.Properties(enc[:w]).Decomposition()
}

// decomposesTo reports whether the rune at b[i] (a lead byte) reads,
// decomposed, beginning with the ASCII byte c (a lower-case letter or a
// digit) or with a rune foldStart stops at: skip must stop there (𝐥, ⓛ,
// ¹, ℓ, ª, 𝚤; é for e). It may say so of more. Nothing from U+4000 to
// U+9FFF nor from U+B000 to U+D7FF decomposes to ASCII (CJK, Hangul
// syllables, whose jamo are not; U+A7F2 ꟲ does, so not U+A000–AFFF): their
// lead bytes are answered at once.
func decomposesTo(b []byte, i int, c byte) bool {
	l := b[i]
	switch {
	case l >= 0xE4 && l <= 0xE9 || l >= 0xEB && l <= 0xED:
		return false
	case l >= 0xE0 && l < 0xF0:
		if r, _ := utf8.DecodeRune(b[i:]); r < 0x10000 && !decTable().decomposes(r) {
			return false
		}
	case l < 0xE0:
		if i+1 >= len(b) {
			return false
		}
		r := rune(l&0x1F)<<6 | rune(b[i+1]&0x3F)
		if r < 0x80 {
			return false
		}
		f := decTable().first[r]
		return f != 0 && (f < utf8.RuneSelf && lowerTab[f] == c || f >= utf8.RuneSelf && foldStart(norm.NFKD.Properties(b[i:]).Decomposition(), 0))
	}
	d := norm.NFKD.Properties(b[i:]).Decomposition()
	if len(d) == 0 {
		return false
	}
	if d[0] < utf8.RuneSelf {
		return lowerTab[d[0]] == c
	}
	return foldStart(d, 0) // 𝚤 decomposes to ı, which foldRune reads as i
}

// decTab answers, without norm's lookup, whether a character of the Basic
// Multilingual Plane has a compatibility decomposition (most have none:
// the echo check reads every non-ASCII character of the request, and an
// accent, a dash or a quote must not cost a trie lookup), and the first
// byte of the decomposition of one below U+0800 (skip's question, for the
// accented Latin letters), and the decompositions themselves below U+0800
// (Latin, Greek, Cyrillic). Built from norm's tables at the first use.
type decTab struct {
	has   [0x10000 / 64]uint64 // bit r: r decomposes
	first [0x800]byte          // the first byte of r's decomposition, 0 if none
	// small is, for r below U+0800, where its decomposition lies in
	// bytes: offset<<8 | length.
	small [0x800]uint32
	bytes []byte
}

func (t *decTab) decomposes(r rune) bool { return t.has[r>>6]&(1<<(r&63)) != 0 }

var (
	decOnce sync.Once
	decT    decTab
)

func decTable() *decTab {
	decOnce.Do(func() {
		var enc [utf8.UTFMax]byte
		for r := rune(0xA0); r < 0x10000; r++ {
			if r >= 0xD800 && r < 0xE000 {
				continue // surrogates
			}
			w := utf8.EncodeRune(enc[:], r)
			d := norm.NFKD.Properties(enc[:w]).Decomposition()
			if len(d) == 0 {
				continue
			}
			decT.has[r>>6] |= 1 << (r & 63)
			if r < 0x800 {
				decT.first[r] = d[0]
				decT.small[r] = uint32(len(decT.bytes))<<8 | uint32(len(d))
				decT.bytes = append(decT.bytes, d...)
			}
		}
	})
	return &decT
}

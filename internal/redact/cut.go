package redact

import "bytes"

// Cut returns text cut at at (text itself when it is no longer), so that
// no secret is cut through: a secret that begins before the cut and ends
// after it is replaced from where it begins by Redacted, the cut moved
// there. It is found as written or with JSON escapes (`\/`, `\u003d`,
// `\u0026`: Go's, PHP's and Gson's encoders write some of a key's bytes
// so), since the message read after the cut decodes them. The mark fits
// within at, and the cut moved back for it is checked again, until no
// secret crosses it (review 63n: the room made for the mark cut through
// a whole key just before it).
//
// A cut through an echoed key left a fragment that the client's scrubbing
// keeps (shorter than ClientStretch, not the key's end), at a point the
// client chose by the length of its own text (review 63f); scrubbing
// before the cut instead shortened the text by the client's own
// key-shaped strings and pulled a later fragment in (review 63j). Only the
// bytes around at are searched: text may be megabytes. No oracle: it acts
// only where text holds a whole secret across the cut, which a client
// that wrote it knows.
func (s *Scrubber) Cut(text []byte, at int) []byte {
	if at >= len(text) {
		return text
	}
	at = max(at, 0)
	if s == nil || len(s.secrets.secrets) == 0 {
		return text[:at:at]
	}
	longest := 0
	for _, k := range s.secrets.secrets {
		longest = max(longest, len(k))
	}
	const escape = 6 // a byte written \u00XX
	lo, hi := max(0, at-escape*longest), min(len(text), at+escape*longest)
	// Not inside an escape: an odd run of backslashes just before lo
	// means text[lo] is escaped, and the window starts after it (review
	// 63q: a run of \\ against a key whose first byte was \u0051).
	odd := false
	for i := lo - 1; i >= 0 && text[i] == '\\'; i-- {
		odd = !odd
	}
	if odd {
		lo++
	}
	dec, raw := decodeWindow(text[lo:hi])
	cut, hidden := at, false
	for cut > 0 {
		from := cut
		for _, k := range s.secrets.secrets {
			for i := 0; i < len(dec); {
				j := bytes.Index(dec[i:], []byte(k))
				if j < 0 {
					break
				}
				ds := i + j
				if rs, re := lo+raw[ds], lo+raw[ds+len(k)]; rs < cut && cut < re {
					from = min(from, rs)
				}
				i = ds + 1
			}
		}
		if from == cut {
			break
		}
		cut, hidden = max(0, min(from, at-len(Redacted))), true
	}
	out := text[:cut:cut]
	if hidden {
		out = append(out, Redacted...)
	}
	return out
}

// decodeWindow decodes the JSON escapes of w (a window of text, which may
// begin inside a string or outside any): dec holds the decoded bytes, and
// raw[i] where dec[i] began in w (raw[len(dec)] is len(w)). A \u escape of
// a character past ASCII decodes to one byte 0xFF, which no key holds.
func decodeWindow(w []byte) (dec []byte, raw []int) {
	dec, raw = make([]byte, 0, len(w)), make([]int, 0, len(w)+1)
	for i := 0; i < len(w); {
		c, n := w[i], 1
		if c == '\\' && i+1 < len(w) {
			switch e := w[i+1]; {
			case shortEscape[e] != 0:
				c, n = shortEscape[e], 2
			case e == 'u':
				if r, width := hex4(w[i+2:]); width == 4 {
					c, n = 0xFF, 6
					if r < 0x80 {
						c = byte(r)
					}
				}
			}
		}
		dec, raw = append(dec, c), append(raw, i)
		i += n
	}
	return dec, append(raw, len(w))
}

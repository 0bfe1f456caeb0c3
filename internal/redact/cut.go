package redact

import (
	"bytes"
	"strings"
)

// Cut returns text cut at at (text itself when it is no longer), so that
// no secret is cut through: a secret that begins before at and ends after
// it — as written, or with its '/' escaped as JSON encoders may write it
// (\/) — is replaced from where it begins by Redacted. A cut through an
// echoed key left a fragment that the client's scrubbing keeps (shorter
// than ClientStretch, not the key's end), at a point the client chose by
// the length of its own text (review 63f); scrubbing before the cut
// instead shortened the text by the client's own key-shaped strings and
// pulled a later fragment in (review 63j). Only the bytes around at are
// searched: text may be megabytes. No oracle: it acts only where text
// holds a whole secret across at, which a client that wrote it knows.
func (s *Scrubber) Cut(text []byte, at int) []byte {
	if at >= len(text) {
		return text
	}
	from := at
	if s != nil {
		for _, k := range s.secrets.secrets {
			from = min(from, straddles(text, at, k))
			if strings.IndexByte(k, '/') >= 0 {
				from = min(from, straddles(text, at, strings.ReplaceAll(k, "/", `\/`)))
			}
		}
	}
	if from < at {
		// Room for the mark within at: a reader that cuts at at again
		// shows it whole, never "[redac" (review 63l).
		from = max(0, min(from, at-len(Redacted)))
		return append(text[:from:from], Redacted...)
	}
	return text[:at:at]
}

// straddles returns where an occurrence of k in text that begins before
// at and ends after it begins, at when none does.
func straddles(text []byte, at int, k string) int {
	lo := max(0, at-len(k)+1)
	hi := min(len(text), at+len(k)-1)
	if hi-lo < len(k) {
		return at
	}
	if i := bytes.Index(text[lo:hi], []byte(k)); i >= 0 {
		return lo + i
	}
	return at
}

package classify

import "bytes"

// An upstream that lists or dumps the client's request can join two of the
// client's own strings into a two-part phrase that occurs nowhere in the
// request as a whole: Azure's "Unrecognized request arguments supplied:
// daily, limit" (two member names the client added), vLLM's Python dump of
// the request ("'model': 'x', … 'content': 'not found'"). Each part is then
// the client's when the upstream presents it as one of the client's items —
// inside quotes, or as an item of a comma-separated list after a colon — and
// that item is a whole string or member name of the request. A phrase with
// a part the client's is no evidence (docs/behaviour.md, "Echo
// rule"). A part in the upstream's own prose ("The model `x` does not
// exist") is the upstream's, so the word "model", a member of every
// request, does not void a real answer.

// joinedFromClient reports whether the first part of the two-part phrase
// p, matched in t at h, is an item of the client's request (so, where both
// are, the phrase is joined from two of them), or begins an identifier the
// client sent. The first part is enough: the upstream's words after the
// client's quoted value ("Tool 'no model' is not loaded") make no phrase of
// their own, the client's head chosen to complete it (found by a hostile
// review: an unavailable 5xx, the endpoint retired for a day). A second part
// alone inside the client's item is not: the upstream's own head ("The
// model `x` does not exist") states the phrase, and its second part is
// first met inside the name it quotes.
func (ts *textScan) joinedFromClient(t []byte, h hit, p *phrase) bool {
	aEnd, ok := prefixAt(t, h.start, p.a)
	if !ok {
		return false
	}
	j := indexFold(t[aEnd:h.end], p.b)
	if j < 0 {
		return false
	}
	return ts.clientItem(t, h.start, aEnd) || ts.clientID(t, h.start, aEnd)
}

// clientID reports whether t[ps:pe] is the head of a longer identifier
// ("model-report", a file the client named) that the client's request
// holds: then the phrase's first word is the client's name, not the word.
func (ts *textScan) clientID(t []byte, ps, pe int) bool {
	if pe >= len(t) || (t[pe] != '-' && t[pe] != '_') {
		return false
	}
	e := pe
	for e < len(t) && idByte(t[e]) {
		e++
	}
	ts.checks++
	return echoed(ts.req, t[ps:e])
}

// clientItem reports whether t[ps:pe] sits in an item the upstream quotes or
// lists, and that item is a whole string (or member name) of the request.
func (ts *textScan) clientItem(t []byte, ps, pe int) bool {
	return ts.wholeString(itemAround(t, ps, pe)) || ts.wholeString(labelled(t, ps, pe))
}

// wholeString reports whether u is a whole string (or member name) of the
// request.
func (ts *textScan) wholeString(u []byte) bool {
	if len(u) == 0 || len(u) > maxNeedle-2 {
		return false
	}
	var buf [maxNeedle]byte
	q := append(append(append(buf[:0], '"'), u...), '"')
	ts.checks++ // each reads the request once: counted against maxEchoChecks
	return echoed(ts.req, q)
}

// labelled returns the value t[ps:pe] lies in where the upstream writes
// one after a label and ends it with its sentence: between a ':' before
// it and a '.' followed by a blank (or the text's end), a ',' or a ';'
// after it, within maxItem bytes, on one line; nil otherwise. LiteLLM's
// throttle names the end user so ("Rate limit exceeded for end_user:
// daily. Limit type: requests."), and a user id "daily", "team-daily" or
// "usage limit" beside its own "Limit" made a day's quota of one
// client's per-minute throttle (review 63a).
func labelled(t []byte, ps, pe int) []byte {
	const maxItem = 120
	l := ps - 1
	for l >= 0 && ps-l <= maxItem && t[l] != ':' && t[l] != '\n' {
		l--
	}
	if l < 0 || ps-l > maxItem || t[l] != ':' {
		return nil
	}
	for r := pe; r < len(t) && r-pe <= maxItem && t[r] != '\n'; r++ {
		if c := t[r]; c == ',' || c == ';' || c == '.' && (r+1 == len(t) || t[r+1] == ' ') {
			return bytes.TrimSpace(t[l+1 : r])
		}
	}
	return nil
}

// itemAround returns the quoted span or the list item t[ps:pe] lies in, or
// nil: a quote (', ", `) before it with the same quote after it, within
// maxItem bytes; else an item between a ':' or ',' before it and a ',' ,
// ';' or the text's end after it.
func itemAround(t []byte, ps, pe int) []byte {
	const maxItem = 120
	for l := ps - 1; l >= 0 && ps-l <= maxItem; l-- {
		c := t[l]
		if c == '\'' || c == '"' || c == '`' {
			r := bytes.IndexByte(t[pe:min(len(t), pe+maxItem)], c)
			if r < 0 {
				break
			}
			return bytes.TrimSuffix(t[l+1:pe+r], []byte{'\\'}) // a JSON-escaped quote: \"
		}
		if c == ',' || c == ':' || c == '\n' {
			break
		}
	}
	l := ps - 1
	for l >= 0 && ps-l <= maxItem && t[l] != ',' && t[l] != ':' {
		l--
	}
	if l < 0 || ps-l > maxItem {
		return nil
	}
	r := pe
	for r < len(t) && r-pe <= maxItem && t[r] != ',' && t[r] != ';' {
		r++
	}
	if r-pe > maxItem {
		return nil
	}
	return bytes.TrimSpace(t[l+1 : r])
}

package classify

// The sentence around a phrase: where it starts and ends, the word before
// a position, quoted spans. The gone-model and not-found readers ask these
// to tell whose a sentence speaks of (docs/behaviour.md, "A gone model is
// the model, not a feature of it").

// clauseEnds reports whether t holds the end of a sentence or a clause
// (sentenceEnd).
func clauseEnds(t []byte) bool { return sentenceEnd(t, 0) < len(t) }

// sentenceEnd returns where the sentence going on at t[i] ends, at most
// maxSubjectBack bytes on: at a full stop followed by a blank or the end
// (not a version's 2.0), '!', '?', ';' or a line break, raw or escaped;
// the mirror of sentenceStart.
func sentenceEnd(t []byte, i int) int {
	e := i
	for e < len(t) && e-i < maxSubjectBack {
		switch c := t[e]; {
		case c == '!' || c == '?' || c == ';' || c == '\n':
			return e
		case c == '\\' && e+1 < len(t) && t[e+1] == 'n':
			return e
		case c == '.' && (e+1 == len(t) || t[e+1] == ' '):
			return e
		}
		e++
	}
	return e
}

// sentenceEnds reports a full stop followed by a blank in t; an ellipsis
// ("Model ... is not supported", where a name was elided) ends nothing.
func sentenceEnds(t []byte) bool {
	for i := 0; i+1 < len(t); i++ {
		if t[i] == '.' && t[i+1] == ' ' && (i == 0 || t[i-1] != '.') {
			return true
		}
	}
	return false
}

// prevWord returns the bounds of the word before t[i] (blanks skipped),
// or -1.
func prevWord(t []byte, i int) (int, int) {
	e := i
	for e > 0 && (t[e-1] == ' ' || t[e-1] == '\t') {
		e--
	}
	s := e
	for s > 0 && wordTab[t[s-1]] == 1 {
		s--
	}
	if s == e {
		return -1, -1
	}
	return s, e
}

// determiner reports whether w is a word that points at a noun already
// known ("this", "the", "your": "this model").
func determiner(w []byte) bool {
	for _, d := range [...]string{"this", "the", "that", "your", "selected", "current"} {
		if e, ok := prefixAt(w, 0, d); ok && e == len(w) {
			return true
		}
	}
	return false
}

// preposition reports whether w makes what follows an object ("for",
// "with": "for this model").
func preposition(w []byte) bool {
	for _, p := range [...]string{"for", "with", "by", "on", "in", "to", "using", "via"} {
		if e, ok := prefixAt(w, 0, p); ok && e == len(w) {
			return true
		}
	}
	return false
}

// closes reports whether the quote at t[j] is closed by the same quote
// before t[i].
func closes(t []byte, j, i int) bool {
	for k := j + 1; k < i; k++ {
		if t[k] == t[j] && isQuote(t, k) {
			return true
		}
	}
	return false
}

// isQuote reports whether t[j] opens or closes a quoted span: a backquote,
// a double quote, or a single quote not between two letters (an apostrophe,
// "model's", is not one).
func isQuote(t []byte, j int) bool {
	switch t[j] {
	case '`', '"':
		return true
	case '\'':
		return !(j > 0 && wordTab[t[j-1]] == 1 && j+1 < len(t) && wordTab[t[j+1]] == 1)
	}
	return false
}

// sentenceStart returns where the sentence holding t[i] starts, at most
// maxSubjectBack bytes back: after a full stop or a label's colon followed
// by a blank (not a version's 2.0, a time's 00:00), a question or
// exclamation mark, a semicolon or a newline (escaped too).
func sentenceStart(t []byte, i int) int {
	s := i
	for s > 0 && i-s < maxSubjectBack {
		c := t[s-1]
		blank := s < len(t) && (t[s] == ' ' || t[s] == '\t')
		if c == '!' || c == '?' || c == '\n' || c == ';' || (c == '.' || c == ':') && blank {
			break
		}
		if c == 'n' && s > 1 && t[s-2] == '\\' { // an escaped newline: the sentence starts after it
			break
		}
		s--
	}
	return s
}

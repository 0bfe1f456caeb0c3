package classify

// A "not supported" about a model says it is gone only where the model
// itself is what is unsupported ("Model X is not currently supported",
// "Unsupported model X"). Where a feature of it is ("This model does not
// support image input. Image inputs are not currently supported", "Image
// input for this model is not supported", "Unsupported model for this
// feature: logprobs"), the answer is a capability gap the client's request
// ran into: reading it as a gone model would let any client cool the
// endpoint for everyone by asking for what the model lacks
// (docs/behaviour.md, "A gone model is the model, not a feature of it").

// modelIsSubject reports whether the word "model" matched at t[i:end] is
// the subject of the sentence, not the object of a preposition ("for this
// model", "with the model") or followed by what it is unsupported for
// ("unsupported model for this feature").
func modelIsSubject(t []byte, i, end int) bool {
	w1s, w1e := prevWord(t, i)
	if w1s >= 0 && determiner(t[w1s:w1e]) {
		if w2s, w2e := prevWord(t, w1s); w2s >= 0 && preposition(t[w2s:w2e]) {
			return false
		}
	} else if w1s >= 0 && preposition(t[w1s:w1e]) {
		return false
	}
	// "unsupported model for …": what follows says for what.
	j := end
	for j < len(t) && (t[j] == ' ' || t[j] == '\t') {
		j++
	}
	_, forWhat := prefixAt(t, j, "for ")
	return !(j > end && forWhat)
}

// featureBetween reports whether the gap between "model" and "not
// supported" speaks of support, lists something (a colon and a blank: a
// model id may hold a colon) or ends a sentence: the model
// supports, or lacks, a feature, which is what is not supported.
func featureBetween(gap []byte) bool {
	return containsFold(gap, "support") || containsFold(gap, ": ") || sentenceEnds(gap)
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

func determiner(w []byte) bool {
	for _, d := range [...]string{"this", "the", "that", "your", "selected", "current"} {
		if e, ok := prefixAt(w, 0, d); ok && e == len(w) {
			return true
		}
	}
	return false
}

func preposition(w []byte) bool {
	for _, p := range [...]string{"for", "with", "by", "on", "in", "to", "using", "via"} {
		if e, ok := prefixAt(w, 0, p); ok && e == len(w) {
			return true
		}
	}
	return false
}

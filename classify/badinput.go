package classify

import "bytes"

// The structural proof of bad input: a param, a field path, a bad-input code.

// ofPathLines reports whether every line of the message t that opens with
// a field path holds an ofPath phrase: Gemini lists each member it refuses
// on a line of its own, and one listed beside the schema subset for words
// of its own ("* GenerateContentRequest.contents[1].parts: contents.parts
// must not be empty") is bad input that no other target serves either
// (review 43h). A line a relay adds ("Received Model Group=…") is no path.
func ofPathLines(t []byte) bool {
	for len(t) > 0 {
		i, w := lineBreak(t)
		if i < 0 {
			i, w = len(t), 0
		}
		if line := bytes.TrimLeft(t[:i], " \t"); fieldPathPrefix(line) && !ofPathLine(line) {
			return false
		}
		t = t[i+w:]
	}
	return true
}

// ofPathLine reports whether line holds one of the ofPath phrases.
func ofPathLine(line []byte) bool {
	for i := range inputPhrases {
		if p := &inputPhrases[i]; p.ofPath && containsFold(line, p.a) {
			return true
		}
	}
	return false
}

// clientParam reports a param that may name the client's input: any but
// "model", the member Detour writes itself (the endpoint's model), which
// proves nothing of the client's request, nor does a bad-input code beside
// it (docs/behaviour.md, "bad_request needs proof"); nor "/", a JSON
// Pointer at the whole payload (Azure AI Foundry's invalid_payload), which
// names no member.
func clientParam(f *facts) bool {
	return len(f.param) > 0 && !eq(f.param, "model") && !eq(f.param, "/")
}

// structureProof names the structural evidence of bad input in f, "" for none.
func structureProof(f *facts) string {
	switch {
	case clientParam(f):
		return "openai:param"
	case f.fieldViolations:
		return "gemini:fieldViolations"
	case f.detailLoc:
		return "detail:loc"
	case f.fieldErrors:
		return "zod:_errors"
	case f.nTexts > 0 && (fieldPathPrefix(f.texts[0]) || rootedFieldPath(f.texts[0]) || labelledFieldPath(f.texts[0])):
		return "message:field-path"
	case f.nTexts > 0 && bodyLoc(f.texts[0]):
		return "message:loc"
	case relayedFieldPath(f):
		return "message:field-path"
	}
	return ""
}

// labelledFieldPath reports a message that opens with a field path after a
// relay's labels ("upstream error: '$.input' is invalid", relayLabel). It is
// relayed, so, like a path inside the message, it does not outweigh a
// capability gap the message states (refine).
func labelledFieldPath(t []byte) bool {
	k := relayLabel(t)
	return k > 0 && fieldPathPrefix(t[k:])
}

// relayedFieldPath reports a request-rooted, indexed field path followed by
// a colon in a text after the first: the upstream's own field error relayed
// by a router beside its own words (OpenRouter's "Provider returned error"
// with the upstream's body in metadata.raw).
func relayedFieldPath(f *facts) bool {
	for i := 1; i < f.nTexts; i++ {
		if rootedFieldPath(f.texts[i]) {
			return true
		}
	}
	return false
}

// badInputProof is structureProof or a bad-input code.
func badInputProof(f *facts, cs *codeScan) string {
	if ev := structureProof(f); ev != "" {
		return ev
	}
	return cs.badEv
}

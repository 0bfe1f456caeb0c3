package provider

// NoAnswer is the error an adapter's Response returns for a 2xx answer that
// holds nothing for the client: a prompt or every candidate blocked, or
// every candidate ended without content for a reason other than a normal
// stop. The classifier reads only the first MaxBody bytes of a body, and a
// long answer's outcome may lie past them (a Gemini 3 thoughtSignature of
// several KB before the finishReason); Digest is that outcome in the
// provider's own shape, made only of members the upstream sent (no text, no
// signature), for the gateway to classify in the answer's place
// (docs/behaviour.md, "Classes"). When the digest says the answer did not
// fail, Answer (when set) is the canonical answer to give instead: what
// Response would have returned without NoAnswer.
type NoAnswer struct {
	Msg    string
	Digest []byte
	Answer []byte
}

func (e *NoAnswer) Error() string { return e.Msg }

package gemini

import (
	"encoding/json"

	"github.com/detour-llm/detour/internal/provider"
)

// A model turn's thought signatures travel to an OpenAI client where
// Gemini's own OpenAI-compatible API puts them, a tool call's
// extra_content.google.thought_signature, which clients written for it
// hand back with the call; sealed for the endpoint that wrote them
// (provider.Seal), since only it accepts them (docs/doors.md,
// "Gemini thought signatures").

// signatureExtra is a tool call's extra_content carrying sig, written by
// the endpoint ep, sealed for it; nil when there is no signature or ep
// seals none.
func signatureExtra(ep provider.Endpoint, sig string) json.RawMessage {
	sealed := provider.Seal(ep, sig)
	if sealed == "" {
		return nil
	}
	return provider.SignatureExtra(sealed)
}

// handedBack is the signature a client's extra_content hands back for the
// endpoint ep: "" when it carries none, another endpoint's, or one the
// gateway did not seal (sent where it was not written, Gemini refuses the
// turn; without one, the placeholder serves it).
func handedBack(extra json.RawMessage, ep provider.Endpoint) string {
	return provider.Unseal(ep, provider.TaggedSignature(extra))
}

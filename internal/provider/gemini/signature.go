package gemini

import (
	"encoding/json"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/rawjson"
)

// A model turn's thought signatures travel to an OpenAI client where
// Gemini's own OpenAI-compatible API puts them, a tool call's
// extra_content.google.thought_signature, which clients written for it
// hand back with the call; tagged with the endpoint that wrote them
// (provider.CarrySignature), since only it accepts them (docs/doors.md,
// "Gemini thought signatures").

// signatureExtra is a tool call's extra_content carrying sig, written by
// the endpoint tagged tag; nil when there is no signature.
func signatureExtra(tag, sig string) json.RawMessage {
	if sig == "" {
		return nil
	}
	var v struct {
		Google struct {
			ThoughtSignature string `json:"thought_signature"`
		} `json:"google"`
	}
	v.Google.ThoughtSignature = provider.CarrySignature(tag, sig)
	b, _ := rawjson.Marshal(v)
	return b
}

// handedBack is the signature a client's extra_content hands back for the
// endpoint tagged tag: "" when it carries none, another endpoint's, or one
// the gateway did not write (sent where it was not written, Gemini refuses
// the turn; without one, the placeholder serves it).
func handedBack(extra json.RawMessage, tag string) string {
	if len(extra) == 0 || tag == "" {
		return ""
	}
	s, ok := rawjson.String(rawjson.Member(rawjson.Member(extra, "google"), "thought_signature"))
	if !ok {
		return ""
	}
	sig, _ := provider.CarriedSignature(s, tag)
	return sig
}

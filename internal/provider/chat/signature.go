package chat

import "github.com/detour-llm/detour/internal/provider"

// The doors carry a tool call's sealed Gemini thought signature where
// their API has room for it (docs/doors.md, "Gemini thought signatures"):
// these are provider's, for the doors, which read the canonical form
// alone.

// SignaturePrefix starts every signature the gateway seals.
const SignaturePrefix = provider.SignaturePrefix

// TaggedSignature is the sealed signature a call's ExtraContent carries, ""
// for none (provider.TaggedSignature).
func TaggedSignature(extra []byte) string { return provider.TaggedSignature(extra) }

// SignatureExtra is a call's ExtraContent carrying a sealed signature
// (provider.SignatureExtra).
func SignatureExtra(sealed string) []byte { return provider.SignatureExtra(sealed) }

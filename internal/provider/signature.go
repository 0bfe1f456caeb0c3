package provider

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// A Gemini thought signature is bound to the model, and the account, that
// wrote it: sent to another, Gemini refuses the turn ("Corrupted thought
// signature", a 400), where a turn without one is served with Google's
// placeholder (https://ai.google.dev/gemini-api/docs/thought-signatures).
// The gateway hands a client each signature tagged with the endpoint that
// wrote it, and sends it back only to that endpoint (docs/doors.md,
// "Gemini thought signatures").

// SignaturePrefix starts every thought signature the gateway hands a
// client: "detour1.<tag>.<signature>".
const SignaturePrefix = "detour1."

// SignatureTag names ep's account and model: 12 hex digits of a SHA-256
// over its provider's name, its model and its key, so a key changed under
// the same name tags anew, and nothing of the key can be read from it (as
// a bare client key's "key:" label, docs/config.md).
func SignatureTag(ep Endpoint) string {
	h := sha256.New()
	h.Write([]byte("detour thought signature\x00"))
	h.Write([]byte(ep.Account))
	h.Write([]byte{0})
	h.Write([]byte(strings.TrimPrefix(ep.Model, "models/")))
	h.Write([]byte{0})
	h.Write([]byte(ep.APIKey))
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0])[:6])
}

// CarrySignature is sig as the gateway hands it to a client, for the
// endpoint tagged tag.
func CarrySignature(tag, sig string) string { return SignaturePrefix + tag + "." + sig }

// CarriedSignature reads s, a signature a client handed back: ours reports
// whether the gateway tagged it; sig is the signature when it was tagged
// for the endpoint tagged tag, else "".
func CarriedSignature(s, tag string) (sig string, ours bool) {
	rest, ok := strings.CutPrefix(s, SignaturePrefix)
	if !ok {
		return "", false
	}
	t, sig, ok := strings.Cut(rest, ".")
	if !ok || tag == "" || t != tag || sig == "" {
		return "", true
	}
	return sig, true
}

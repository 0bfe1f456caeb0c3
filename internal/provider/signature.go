package provider

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"strings"

	"github.com/detour-llm/detour/internal/rawjson"
)

// A Gemini thought signature is bound to the model, and the account, that
// wrote it: sent to another, Gemini refuses the turn ("Corrupted thought
// signature", a 400), where a turn without one is served with Google's
// placeholder (https://ai.google.dev/gemini-api/docs/thought-signatures).
// The gateway hands a client each signature sealed for the endpoint that
// wrote it, and sends it back only to that endpoint (docs/doors.md,
// "Gemini thought signatures").

// SignaturePrefix starts every thought signature the gateway hands a
// client: "detour1.<seal>.<signature>".
const SignaturePrefix = "detour1."

// seal is 16 hex digits of an HMAC-SHA256, under ep's signing key, of its
// provider's name, model and key and of sig: a client cannot make one for
// bytes of its own, nor test guesses of the key against it (hostile 54b:
// a plain hash of the name, model and key let a client check a guessed
// key offline, and took any bytes under a tag it had seen).
func seal(ep Endpoint, key []byte, sig string) string {
	m := hmac.New(sha256.New, key)
	for _, part := range []string{ep.Account, strings.TrimPrefix(ep.Model, "models/"), ep.APIKey, sig} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(part)))
		m.Write(n[:])
		m.Write([]byte(part))
	}
	var sum [sha256.Size]byte
	return hex.EncodeToString(m.Sum(sum[:0])[:8])
}

// Seal is sig as the gateway hands it to a client, sealed for ep under its
// current signing key; "" when ep has no signing key (nothing is carried)
// or sig is empty.
func Seal(ep Endpoint, sig string) string {
	key := ep.Signing.Current()
	if len(key) == 0 || sig == "" {
		return ""
	}
	return SignaturePrefix + seal(ep, key, sig) + "." + sig
}

// Unseal is the signature s carries when the gateway sealed it for ep,
// under its signing key or the one before it (a replica that moved to the
// key its fleet shares still recognises what it sealed: docs/scale.md);
// "" for anything else (another endpoint's, bytes under a seal they were
// not sealed with, a signature the gateway did not seal, none).
func Unseal(ep Endpoint, s string) string {
	rest, ok := strings.CutPrefix(s, SignaturePrefix)
	if !ok {
		return ""
	}
	mac, sig, ok := strings.Cut(rest, ".")
	if !ok || sig == "" {
		return ""
	}
	for _, key := range ep.Signing.Keys() {
		if len(key) > 0 && hmac.Equal([]byte(mac), []byte(seal(ep, key, sig))) {
			return sig
		}
	}
	return ""
}

// TaggedSignature is the signature a tool call's extra_content carries as
// the gateway tagged it ({"google":{"thought_signature":"detour1.…"}}): ""
// for none, or one the gateway did not tag. A door with no extra_content
// of its own (the Messages door) carries it in a block of its own.
func TaggedSignature(extra []byte) string {
	if len(extra) == 0 {
		return ""
	}
	s, ok := rawjson.String(rawjson.Member(rawjson.Member(extra, "google"), "thought_signature"))
	if !ok || !strings.HasPrefix(s, SignaturePrefix) {
		return ""
	}
	return s
}

// SignatureExtra is a tool call's extra_content carrying tagged, a
// signature as Seal or TaggedSignature returns it.
func SignatureExtra(tagged string) []byte {
	b := []byte(`{"google":{"thought_signature":`)
	b = rawjson.AppendString(b, tagged)
	return append(b, "}}"...)
}

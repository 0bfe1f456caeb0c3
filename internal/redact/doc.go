// Package redact scrubs operator secrets out of text that leaves the
// process: error messages for clients (bodies and SSE error events),
// decision records, log lines and alert payloads.
//
// A Scrubber is built once per configuration from Rules (every provider and
// client key, credential header values, each provider's name and base URL)
// and is safe for concurrent use. It replaces:
//
//   - every run of 8 or more bytes that is a substring of a configured secret
//     with "[redacted]" (all 8-byte windows of the secrets are indexed; a
//     message is checked by sliding over it once);
//   - key-shaped tokens whatever their origin (sk-…, AIza…, Bearer …,
//     x-api-key: …, key=… in a URL, …) with "[redacted]";
//   - a provider's URLs, its host:port (also glued to other text, unless
//     that text makes another valid address) and (for a DNS name) its host
//     with "[provider NAME]", and the addresses in Go's network errors (dial tcp
//     ADDR, read tcp A->B) with the provider they belong to, or "[address]".
//
// ForClient is String for text a client will read: a run of secret bytes
// whose every 8-byte window the client itself sent in its request (as
// written, or as the upstream read it: JSON escapes decoded) is left as it
// is, and so is a run that does not Reveal a secret (ClientStretch bytes
// of it in a row, or its last 8), so an upstream that echoes the request,
// or writes what the client steered it to, cannot be used as an oracle
// that tells the client which of its guesses are part of a key.
//
// Current holds the scrubber of the configuration being served; Handler
// scrubs every slog record through it. The nil *Scrubber applies only the
// shape rules. The package imports nothing of ours.
package redact

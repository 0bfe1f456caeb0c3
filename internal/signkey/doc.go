// Package signkey holds the keys the gateway seals the opaque tokens it
// hands clients with (a Gemini thought signature: docs/doors.md, "Gemini
// thought signatures"): the key it seals with now and the one before it,
// which it still recognises, so that replicas that moved to a key shared
// through Redis keep recognising what they sealed before (docs/scale.md,
// "Redis restarted empty"). It knows nothing of Redis or of providers.
package signkey

package dispatch

import (
	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/rawjson"
)

// upstreamCode is the code an Anthropic-dialect upstream named its error
// by, error.details.error_code (docs/doors.md, "Errors"): the Messages
// door tells it to its client as Anthropic would, so the SDKs raise their
// typed error and recover a lost thread (review 62c: the door rebuilt the
// envelope without it, and anthropic-sdk-go's tool runner failed where
// Anthropic's own answer let it replay the turn). Only a plain code of
// lower-case letters, digits and underscores, at most 64 bytes: anything
// else is no code, and no text of the upstream's reaches the client
// through it unscrubbed.
func upstreamCode(e *endpointRT, body []byte) string {
	if e.prov.cfg.Dialect != classify.Anthropic {
		return ""
	}
	d := rawjson.Member(rawjson.Member(body, "error"), "details")
	c, ok := rawjson.String(rawjson.Member(d, "error_code"))
	if !ok || c == "" || len(c) > 64 {
		return ""
	}
	for i := 0; i < len(c); i++ {
		if b := c[i]; (b < 'a' || b > 'z') && (b < '0' || b > '9') && b != '_' {
			return ""
		}
	}
	return c
}

package messages

import (
	"encoding/json"
	"strings"
)

// What the door does with what real clients send beyond the Messages
// basics (docs/doors.md, "Real clients"), for translated targets only: an
// Anthropic target gets the body as sent.

// BillingHeaderPrefix starts the system block Claude Code sends first
// ("x-anthropic-billing-header: cc_version=…; cc_entrypoint=…;"): client
// bookkeeping for Anthropic, not prompt. The door drops a system text
// block that starts with it.
const BillingHeaderPrefix = "x-anthropic-billing-header:"

// MaxOutputTokens is the largest max_tokens the door sends on as
// max_completion_tokens. Claude Code asks for 32000 or 128000, more than
// most OpenAI and Gemini models can write (gpt-4o caps at 16384), which
// would make every request the upstream's 400. Above this the limit is
// left out, so the upstream's own maximum for the model applies: the
// answer can then stop at the model's limit (stop_reason max_tokens), and
// only a model able to write more than the client's max_tokens could
// exceed it.
const MaxOutputTokens = 16384

func outputLimit(maxTokens int) *int {
	if maxTokens > MaxOutputTokens {
		return nil
	}
	return &maxTokens
}

// endUser is metadata.user_id as the canonical "user": kept when it is an
// opaque string, dropped ("") when it is a JSON object, as Claude Code
// sends ({"device_id","account_uuid","session_id"}): device and session
// identifiers are not for a third party.
func endUser(id string) string {
	t := strings.TrimSpace(id)
	if strings.HasPrefix(t, "{") && json.Valid([]byte(t)) {
		return ""
	}
	return id
}

// relabel renames the field of a door error that was read under another
// name (a system message's content is read as "system").
func relabel(err error, from, to string) error {
	e, ok := err.(*Error)
	if !ok {
		return err
	}
	c := *e
	if c.Field == from {
		c.Field = to
	} else if strings.HasPrefix(c.Field, from+".") {
		c.Field = to + c.Field[len(from):]
	}
	return &c
}

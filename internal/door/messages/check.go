package messages

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
)

// Check reports what makes body not a Messages request at all, naming the
// member as Anthropic does: a member the Messages API documents as
// required missing or of the wrong type. Required are "model" (a non-empty
// string), "max_tokens" (a whole number, at least 0 — 0 fills the prompt
// cache without generating, as Anthropic documents; 1.6e1 is one),
// "messages" (a non-empty list of objects), and in each message "role"
// ("user" or "assistant", or "system": the mid-conversation system message
// Claude Code sends, which Anthropic accepts) and "content" (a string or a
// list). Nothing else is read: members Detour does not know, content block
// types and everything inside a block are the upstream's to judge, so what
// Anthropic adds later still passes through (docs/doors.md, "How the door
// is wired").
//
// Translate checks all of this too (and more); Check is for a body that goes
// upstream untranslated, which it reads once more, on that path only.
func Check(body []byte) *Error {
	var in struct {
		Model     json.RawMessage `json:"model"`
		MaxTokens json.RawMessage `json:"max_tokens"`
		Messages  json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return decodeError("", err)
	}
	var model string
	switch {
	case !present(in.Model):
		return invalid("model", "Field required")
	case json.Unmarshal(in.Model, &model) != nil:
		return invalid("model", "want a string")
	case model == "":
		return invalid("model", "must not be empty")
	}
	if err := checkMaxTokens(in.MaxTokens); err != nil {
		return err
	}
	return checkMessages(in.Messages)
}

// checkMaxTokens requires a JSON number that is a whole number ≥ 1.
func checkMaxTokens(raw json.RawMessage) *Error {
	raw = bytes.TrimSpace(raw)
	if !present(raw) {
		return invalid("max_tokens", "Field required")
	}
	if c := raw[0]; c != '-' && (c < '0' || c > '9') {
		return invalid("max_tokens", "want an integer, got %s", jsonKindOf(raw))
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	switch {
	case err != nil || f != math.Trunc(f):
		return invalid("max_tokens", "want an integer")
	case f < 0:
		return invalid("max_tokens", "must be at least 0")
	case f > 1<<53:
		return invalid("max_tokens", "too large")
	}
	return nil
}

// checkMessages requires a non-empty list of objects, each with a role of
// user, assistant or system and a string or list content.
func checkMessages(raw json.RawMessage) *Error {
	raw = bytes.TrimSpace(raw)
	if !present(raw) {
		return invalid("messages", "Field required")
	}
	if raw[0] != '[' {
		return invalid("messages", "want a list of messages, got %s", jsonKindOf(raw))
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return decodeError("messages", err)
	}
	if len(items) == 0 {
		return invalid("messages", "at least one message is required")
	}
	for i, it := range items {
		field := fmt.Sprintf("messages.%d", i)
		it = bytes.TrimSpace(it)
		if len(it) == 0 || it[0] != '{' {
			return invalid(field, "want a message object, got %s", jsonKindOf(it))
		}
		var m struct {
			Role    json.RawMessage `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(it, &m); err != nil {
			return decodeError(field, err)
		}
		var role string
		switch {
		case !present(m.Role):
			return invalid(field+".role", "Field required")
		case json.Unmarshal(m.Role, &role) != nil:
			return invalid(field+".role", "want a string, got %s", jsonKindOf(m.Role))
		case role != "user" && role != "assistant" && role != "system":
			return invalid(field+".role", "want \"user\" or \"assistant\", got %q", role)
		}
		c := bytes.TrimSpace(m.Content)
		switch {
		case !present(c):
			return invalid(field+".content", "Field required")
		case c[0] != '"' && c[0] != '[':
			return invalid(field+".content", "want a string or a list of content blocks, got %s", jsonKindOf(c))
		}
	}
	return nil
}

// jsonKindOf names the kind of a JSON value by its first byte.
func jsonKindOf(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch c := raw[0]; {
	case c == '"':
		return "a string"
	case c == '{':
		return "an object"
	case c == '[':
		return "a list"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	}
	return "a number"
}

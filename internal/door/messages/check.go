package messages

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"unicode"
	"unicode/utf8"

	"github.com/detour-llm/detour/internal/rawjson"
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
// is wired"). Member names match as encoding/json matches them (case
// folded), so Check accepts every body Translate accepts.
//
// Translate checks all of this too (and more); Check is for a body that goes
// upstream untranslated.
func Check(body []byte) *Error {
	if !json.Valid(body) {
		var v struct{}
		return decodeError("", json.Unmarshal(body, &v))
	}
	return CheckScanned(body)
}

// CheckScanned is Check for a body already known to be valid JSON (the
// HTTP front's strict scan checks every body before a door reads it). It
// reads only the members it checks, one scan of each level, where decoding
// reads the body several times over: a coding agent's 160 KB request cost
// Check ~5 ms (docs/benchmarks.md, "Large requests").
func CheckScanned(body []byte) *Error { return checkScanned(body, true) }

// CheckCountScanned is CheckScanned for a count_tokens body, which takes
// no max_tokens: "model" and "messages" as a Messages request has them.
// Anthropic's count answers a body without messages, or with none, 400
// (https://docs.anthropic.com/en/api/messages-count-tokens); so does
// Detour's estimate (review 63c: before, 200 and 0 tokens).
func CheckCountScanned(body []byte) *Error { return checkScanned(body, false) }

func checkScanned(body []byte, maxTokensRequired bool) *Error {
	var model, maxTokens, msgs []byte
	top, ok := rawjson.ScanObject(body)
	if !ok && kindOf(body) != "null" { // null decodes as an empty object
		return invalid("", "request body: want a JSON object, got a JSON %s", kindOf(body))
	}
	for k, v, ok := top.Next(); ok; k, v, ok = top.Next() {
		switch {
		case foldIs(k, "model"):
			model = v
		case foldIs(k, "max_tokens"):
			maxTokens = v
		case foldIs(k, "messages"):
			msgs = v
		}
	}
	switch name, isString := rawjson.String(bytes.TrimSpace(model)); {
	case !rawjson.Set(model):
		return invalid("model", "Field required")
	case !isString:
		return invalid("model", "want a string")
	case name == "":
		return invalid("model", "must not be empty")
	}
	if !maxTokensRequired {
		return checkMessages(msgs)
	}
	if err := checkMaxTokens(maxTokens); err != nil {
		return err
	}
	return checkMessages(msgs)
}

// foldIs reports whether the member name k (quoted, as written) is name as
// encoding/json matches a struct field's: equal once each rune is folded
// (its lower case's upper case). name is lower-case ASCII.
func foldIs(k []byte, name string) bool {
	if len(k) >= 2 && bytes.IndexByte(k, '\\') < 0 {
		in := k[1 : len(k)-1]
		if len(in) == len(name) && asciiFoldEq(in, name) {
			return true
		}
		if isASCII(in) {
			return false
		}
	}
	s, ok := rawjson.String(k)
	if !ok {
		return false
	}
	i := 0
	for _, r := range s {
		f := unicode.ToUpper(unicode.ToLower(r))
		if i >= len(name) || f != unicode.ToUpper(rune(name[i])) {
			return false
		}
		i++
	}
	return i == len(name)
}

func asciiFoldEq(b []byte, name string) bool {
	for i, c := range b {
		if c >= utf8.RuneSelf || unicode.ToUpper(rune(c)) != unicode.ToUpper(rune(name[i])) {
			return false
		}
	}
	return true
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// kindOf names a JSON value's kind as encoding/json's type errors do.
func kindOf(v []byte) string {
	switch jsonKindOf(v) {
	case "a list":
		return "array"
	case "a string":
		return "string"
	case "a boolean":
		return "bool"
	case "null":
		return "null"
	case "an object":
		return "object"
	}
	return "number"
}

// checkMaxTokens requires a JSON number that is a whole number ≥ 1.
func checkMaxTokens(raw json.RawMessage) *Error {
	raw = bytes.TrimSpace(raw)
	if !rawjson.Set(raw) {
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
	if !rawjson.Set(raw) {
		return invalid("messages", "Field required")
	}
	if raw[0] != '[' {
		return invalid("messages", "want a list of messages, got %s", jsonKindOf(raw))
	}
	items, _ := rawjson.ScanArray(raw)
	for i := 0; ; i++ {
		_, it, ok := items.Next()
		switch {
		case !ok && i == 0:
			return invalid("messages", "at least one message is required")
		case !ok:
			return nil
		}
		field := "messages." + strconv.Itoa(i)
		if len(it) == 0 || it[0] != '{' {
			return invalid(field, "want a message object, got %s", jsonKindOf(it))
		}
		var role, content []byte
		m, _ := rawjson.ScanObject(it)
		for k, v, ok := m.Next(); ok; k, v, ok = m.Next() {
			switch {
			case foldIs(k, "role"):
				role = v
			case foldIs(k, "content"):
				content = v
			}
		}
		switch r, isString := rawjson.String(role); {
		case !rawjson.Set(role):
			return invalid(field+".role", "Field required")
		case !isString:
			return invalid(field+".role", "want a string, got %s", jsonKindOf(role))
		case r != "user" && r != "assistant" && r != "system":
			return invalid(field+".role", "want \"user\" or \"assistant\", got %q", r)
		}
		c := bytes.TrimSpace(content)
		switch {
		case !rawjson.Set(c):
			return invalid(field+".content", "Field required")
		case c[0] != '"' && c[0] != '[':
			return invalid(field+".content", "want a string or a list of content blocks, got %s", jsonKindOf(c))
		}
	}
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

package dispatch

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

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
	c, _ := rawjson.String(rawjson.Member(d, "error_code"))
	return plainCode(c)
}

// plainCode is c if it is a plain code (lower-case letters, digits and
// underscores, 1 to 64 bytes), else "".
func plainCode(c string) string {
	if c == "" || len(c) > 64 {
		return ""
	}
	for i := 0; i < len(c); i++ {
		if b := c[i]; (b < 'a' || b > 'z') && (b < '0' || b > '9') && b != '_' {
			return ""
		}
	}
	return c
}

// openaiError is an OpenAI-dialect upstream's own error.code and
// error.param, which the OpenAI doors tell their client where the failure
// is the request's own (server/envelope.go): OpenAI names the value it
// refused there (unsupported_value, temperature), and an SDK's error
// carries both to the code that sends the request again without it. A
// code as plainCode takes it; a param a member's path (letters, digits,
// "_", ".", "-", "[" and "]", at most 128 bytes, with a letter: new-api's
// and one-api's "400" is their upstream's status, no member); anything
// else is none.
func openaiError(e *endpointRT, body []byte) (code, param string) {
	if e.prov.cfg.Dialect != classify.OpenAI {
		return "", ""
	}
	er := rawjson.Member(body, "error")
	c, _ := rawjson.String(rawjson.Member(er, "code"))
	p, _ := rawjson.String(rawjson.Member(er, "param"))
	if !hasLetter(c) {
		c = "" // a status ("400", "429", "500"), not OpenAI's code (review 67h)
	}
	switch strings.ToLower(p) {
	case "none", "null", "nil", "undefined":
		p = "" // LiteLLM's str(None): no member (review 67h)
	}
	return plainCode(c), plainParam(p)
}

// hasLetter reports whether s holds an ASCII letter.
func hasLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if b := s[i]; b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' {
			return true
		}
	}
	return false
}

// accountWords name, as a word of a details member's name, the operator's
// account or a principal of it: its value is an id the message scrubber
// would hide by the words around it, and a member name is none of those
// (review 67h: "project_number": 391029737820, "workspace_id").
var accountWords = [...]string{"org", "organization", "project", "workspace", "account", "key", "user", "consumer",
	"customer", "tenant", "billing", "subscription", "arn", "principal", "team"}

// accountMember reports whether member name k names the account.
func accountMember(k string) bool {
	for _, w := range strings.Split(k, "_") {
		if slices.Contains(accountWords[:], w) {
			return true
		}
	}
	return false
}

// plainParam is p if it is a member's path (openaiError: letters, digits,
// "_", ".", "-", "[" and "]", 1 to 128 bytes, with a letter), else "".
func plainParam(p string) string {
	if p == "" || len(p) > 128 {
		return ""
	}
	letter := false
	for i := 0; i < len(p); i++ {
		switch b := p[i]; {
		case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z':
			letter = true
		case b >= '0' && b <= '9', b == '_', b == '.', b == '-', b == '[', b == ']':
		default:
			return ""
		}
	}
	if !letter {
		return ""
	}
	return p
}

// upstreamDetails is the rest of an Anthropic-dialect upstream's
// error.details beside its code (upstreamCode), a JSON object, as its
// client reads it (anthropic-sdk-go's Error.Details: probe 67c,
// image_dimensions_too_large's max_side_length_pixels and paths, by which
// the client scales the image it sent). Only members named as a code is
// (plainCode) whose value is a number, a boolean, a member's path or code
// (plainParam) or a list of at most 64 of those; nil when none is, or
// without a code. Like the code, no free text of the upstream's reaches the
// client through it.
func upstreamDetails(e *endpointRT, body []byte) []byte {
	return detailsBeside(upstreamCode(e, body), body)
}

// upstreamError keeps on o what of a failed answer's error object its
// client reads beside Detour's envelope: the upstream's own code, the
// details beside it, an OpenAI upstream's code and param.
func (o *outcome) upstreamError(e *endpointRT, body []byte) {
	o.upCode = upstreamCode(e, body)
	o.upDetails = detailsBeside(o.upCode, body)
	o.oaCode, o.oaParam = openaiError(e, body)
}

// detailsBeside is upstreamDetails for the code already read.
func detailsBeside(code string, body []byte) []byte {
	if code == "" {
		return nil
	}
	d := rawjson.Member(rawjson.Member(body, "error"), "details")
	var m map[string]json.RawMessage
	if len(d) > 4096 || json.Unmarshal(d, &m) != nil {
		return nil
	}
	keep := map[string]json.RawMessage{}
	for k, v := range m {
		if k != "error_code" && plainCode(k) == k && !accountMember(k) && plainValue(v, true) {
			keep[k] = v
		}
	}
	if len(keep) == 0 {
		return nil
	}
	out := []byte{'{'}
	for _, k := range slices.Sorted(maps.Keys(keep)) {
		if len(out) > 1 {
			out = append(out, ',')
		}
		kb, _ := json.Marshal(k)
		vb, _ := json.Marshal(keep[k]) // compacted
		out = append(append(append(out, kb...), ':'), vb...)
	}
	return append(out, '}')
}

// plainValue reports whether v is a number, a boolean or a plain string
// (plainParam), or, where list, a list of at most 64 of those.
func plainValue(v json.RawMessage, list bool) bool {
	var x any
	if json.Unmarshal(v, &x) != nil {
		return false
	}
	switch x := x.(type) {
	case bool:
		return true
	case float64:
		return x > -1e9 && x < 1e9 // a size, a count, a limit; not an account's number
	case string:
		return plainParam(x) == x && !idLike(x)
	case []any:
		if !list || len(x) > 64 {
			return false
		}
		for _, el := range x {
			b, _ := json.Marshal(el)
			if !plainValue(b, false) {
				return false
			}
		}
		return true
	}
	return false
}

// idLike reports whether s, a plain string, reads as an id rather than a
// member's path or a code: a run of letters and digits longer than 20
// (a ULID, a prefixed key id: "wrkspc_01AbCd…") or six digits or more (a
// UUID, an account's number). A path's indexes and a code's words are
// shorter (last look 67i: an id under a member name that says nothing of
// the account passed by its shape).
func idLike(s string) bool {
	run, digits := 0, 0
	for i := 0; i < len(s); i++ {
		switch b := s[i]; {
		case b >= '0' && b <= '9':
			digits++
			run++
		case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z':
			run++
		default:
			run = 0
		}
		if run > 20 || digits >= 6 {
			return true
		}
	}
	return false
}

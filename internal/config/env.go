package config

import (
	"fmt"
	"strings"
)

// expand replaces "${VAR}" and "${VAR:-default}" in s with values from
// lookup and "$$" with "$". Any other "$" is kept as written. fromEnv reports
// whether any part of the result came from the environment (or a default
// written inside "${…}"), so callers can avoid echoing it.
//
// "${VAR:-default}" uses default when VAR is unset or empty, as in the shell;
// the default may name other variables ("${NEW:-${OLD}}"), expanded alike.
// An unset "${VAR}" is an error. Errors never contain s itself.
func expand(s string, lookup func(string) (string, bool)) (out string, fromEnv bool, err error) {
	if !strings.Contains(s, "$") {
		return s, false, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '$' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		switch s[i+1] {
		case '$':
			b.WriteByte('$')
			i++
			continue
		case '{':
		default:
			b.WriteByte(c)
			continue
		}
		end := closingBrace(s[i+2:])
		if end < 0 {
			return "", false, fmt.Errorf(`unterminated "${" (write "$$" for a literal "$")`)
		}
		expr := s[i+2 : i+2+end]
		name, def, hasDef := strings.Cut(expr, ":-")
		if !validVarName(name) {
			return "", false, fmt.Errorf(`bad environment variable reference: want ${NAME} or ${NAME:-default}, NAME of letters, digits and "_"`)
		}
		v, ok := lookup(name)
		switch {
		case hasDef && (!ok || v == ""):
			// The default may itself name a variable ("${NEW_KEY:-${OLD_KEY}}",
			// the shell's and Compose's fallback): expanded in its turn, never
			// kept as the literal text "${OLD_KEY}" (review 32f).
			if v, _, err = expand(def, lookup); err != nil {
				return "", false, err
			}
		case !ok:
			if !shownVar(name) {
				// A key pasted between "${" and "}" is a valid name too
				// (Mistral's and Azure's are letters and digits): named
				// only by its length (review 38c).
				return "", false, fmt.Errorf("environment variable of %d characters (not shown: a key written where a variable's name goes?) is not set", len(name))
			}
			return "", false, fmt.Errorf("environment variable %q is not set", name)
		}
		b.WriteString(v)
		fromEnv = true
		i += 2 + end
	}
	return b.String(), fromEnv, nil
}

// closingBrace is the index in s of the "}" that closes a "${" just
// before s, past any "${…}" nested in a default; -1 for none.
func closingBrace(s string) int {
	depth := 1
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '$' && i+1 < len(s) && s[i+1] == '$':
			i++
		case s[i] == '$' && i+1 < len(s) && s[i+1] == '{':
			depth++
			i++
		case s[i] == '}':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

func validVarName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_', r >= 'A' && r <= 'Z', r >= 'a' && r <= 'z':
		case r >= '0' && r <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// shownVar reports whether an unset variable's name may be quoted in an
// error: a name as people write them (OPENAI_API_KEY, db_password), in one
// case, with at most four digits. A name of mixed case or many digits may be
// a key pasted in its place.
func shownVar(name string) bool {
	digits := 0
	for i := 0; i < len(name); i++ {
		if name[i] >= '0' && name[i] <= '9' {
			digits++
		}
	}
	return envName(name) && digits <= 4
}

package config

import (
	"fmt"
	"strconv"
	"strings"
)

// How errors name what the operator wrote where a name belongs, without
// ever printing a secret pasted there (docs/config.md, "Ground rules").

// PlainName reports whether s may be quoted in an error as it is: a word
// shaped like Detour's own keys (max_inflight_body_bytes, cache_write_1h):
// lower-case letters, digits, '_' and '-', at most 24 bytes, at most two
// digits; or a camelCase typo of one (baseURL, apiKey): letters alone, at
// most 16. Anything else may be a secret pasted where a name goes — an
// Azure or Mistral key is 32 characters of hex or base62, `openssl rand
// -base64 18` makes 24 of mixed case (reviews 32h, 32j) — and is not
// quoted.
func PlainName(s string) bool {
	if s == "" || len(s) > 24 {
		return false
	}
	digits, upper, other := 0, false, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			digits++
			other = true
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
		case c == '_', c == '-':
			other = true
		default:
			return false
		}
	}
	if upper {
		// A camelCase typo (baseURL, apiKey, Name) is letters alone and
		// short; a mixed-case key has digits or runs longer (review 32k).
		return !other && len(s) <= 16
	}
	return digits <= 2
}

// headerWord reports whether s may be quoted as a header name: words of
// letters and digits joined by '-' ("X-Api-Key", "Authorization"), each at
// most 16 bytes, at most two digits in all: a mixed-case key of 22 or more
// characters is none.
func headerWord(s string) bool {
	if s == "" || len(s) > 48 {
		return false
	}
	digits, run := 0, 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '-':
			if run == 0 {
				return false
			}
			run = 0
			continue
		case c >= '0' && c <= '9':
			digits++
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z':
		default:
			return false
		}
		if run++; run > 16 {
			return false
		}
	}
	return digits <= 2 && run > 0
}

// unknownName is how an error names an unknown key (or, with header, a
// header name), and a hint, never the secret that may be run into it: a
// key and its value written together ("api_key:sk-…", "api_key sk-…",
// "api_key=sk-…", "Authorization Bearer sk-…", pasted from a shell line or
// an .env file) is named up to the blank, '=' or ':' that joins them;
// anything that is not a plain name (a key pasted alone) only by its
// length (reviews 30d, 32f, 32h, 32j).
func unknownName(s string, header bool) (name, hint string) {
	plain := PlainName
	if header {
		plain = headerWord
	}
	hidden := fmt.Sprintf("of %d characters (not shown)", len(s))
	if i := strings.IndexAny(s, ": =\t"); i >= 0 {
		head, sep := s[:i], s[i:i+1]
		if !plain(head) || strings.Trim(s[i+1:], "= ") == "" {
			return hidden, "" // "…A==": base64 padding, not an assignment
		}
		if sep == ":" {
			return strconv.Quote(head + ":…"), fmt.Sprintf(": is a space missing after %q?", head+":")
		}
		return strconv.Quote(head + sep + "…"), fmt.Sprintf(": a name and a value run together? (write %q)", head+": …")
	}
	if !plain(s) {
		return hidden, ""
	}
	return strconv.Quote(s), ""
}

// ShownArg names a stray command-line argument in an error: a file name
// (.yaml, .yml, .json, .jsonl, of path characters) or a plain word as
// written; an environment assignment (NAME=value, NAME in one case, as a
// container's args may carry one) up to its '='; else only its length — it
// may be a key, and stderr goes to the logs (reviews 32h, 32j).
func ShownArg(a string) string {
	if i := strings.IndexByte(a, '='); i >= 0 {
		if envName(a[:i]) && strings.Trim(a[i+1:], "=") != "" {
			return strconv.Quote(a[:i] + "=…")
		}
	} else if PlainName(a) || fileName(a) {
		return strconv.Quote(a)
	}
	return fmt.Sprintf("of %d characters (not shown)", len(a))
}

// envName reports an environment variable's name: letters, digits and '_',
// not starting with a digit, all upper case or all lower case (a base64
// key before its '=' padding is mixed).
func envName(s string) bool {
	if s == "" || len(s) > 64 || s[0] >= '0' && s[0] <= '9' {
		return false
	}
	upper, lower := false, false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c >= 'A' && c <= 'Z':
			upper = true
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= '0' && c <= '9', c == '_':
		default:
			return false
		}
	}
	return !(upper && lower)
}

// fileName reports a configuration or log file's name: one of their
// extensions, and only the characters of a path.
func fileName(a string) bool {
	ext := false
	for _, e := range [...]string{".yaml", ".yml", ".json", ".jsonl"} {
		ext = ext || strings.HasSuffix(a, e)
	}
	if !ext {
		return false
	}
	for i := 0; i < len(a); i++ {
		switch c := a[i]; {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		case c == '/', c == '.', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

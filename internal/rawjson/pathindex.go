package rawjson

import (
	"strconv"
	"strings"
)

// PathIndex reads the list index at the start of rest, the part of a
// member path (an error's param) after a list member's name, written
// "[2]", ".[2]" or ".2" as OpenAI spells one, and returns it with what
// follows it; ok is false where rest opens with no index of digits alone.
func PathIndex(rest string) (i int, tail string, ok bool) {
	rest = strings.TrimPrefix(rest, ".")
	var digits string
	if r, found := strings.CutPrefix(rest, "["); found {
		end := strings.IndexByte(r, ']')
		if end < 0 {
			return 0, "", false
		}
		digits, rest = r[:end], r[end+1:]
	} else {
		end := strings.IndexAny(rest, ".[")
		if end < 0 {
			end = len(rest)
		}
		digits, rest = rest[:end], rest[end:]
	}
	if digits == "" || strings.TrimLeft(digits, "0123456789") != "" {
		return 0, "", false
	}
	i, err := strconv.Atoi(digits)
	if err != nil {
		return 0, "", false
	}
	return i, rest, true
}

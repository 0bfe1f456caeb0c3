package provider

import (
	"encoding/json"
	"math"
	"strconv"
)

// WholeCounts is v, a valid JSON value holding token counts (a usage
// object), with every number that is not a plain integer written as one:
// its floor where it is finite and within ±2^53, else 0 (a 20-digit
// integer too: encoding/json refuses it for an int). encoding/json
// refuses to put 3.0 or 1e3 in an int, and the answer around the count then
// failed to decode: a whole answer that ran was retried and paid again, and
// a stream's last event lost its finish (hostile 52; easyllm's server sent
// "completion_tokens": 37.25, https://github.com/philschmid/easyllm/pull/42).
// v itself is returned, unread beyond one scan, when every number is
// already an integer: the usual answer costs no copy.
func WholeCounts(v []byte) []byte {
	if !hasFraction(v) {
		return v
	}
	out := make([]byte, 0, len(v))
	for i := 0; i < len(v); {
		c := v[i]
		switch {
		case c == '"':
			e := stringEnd(v, i)
			out = append(out, v[i:e]...)
			i = e
		case c == '-' || c >= '0' && c <= '9':
			e := i + 1
			for e < len(v) && numberByte(v[e]) {
				e++
			}
			out = appendWhole(out, v[i:e])
			i = e
		default:
			out = append(out, c)
			i++
		}
	}
	return out
}

// UnmarshalJSON reads u with its counts whole (WholeCounts): a count of
// 8.0 in one batch's usage failed the whole embeddings request (review 52).
func (u *EmbeddingUsage) UnmarshalJSON(b []byte) error {
	type plain EmbeddingUsage
	return json.Unmarshal(WholeCounts(b), (*plain)(u))
}

// countCeiling bounds a count read from a fraction or an exponent: past it
// (1e400, 1e300) the number says nothing a count could be.
const countCeiling = 1 << 53

// appendWhole appends the number n as a plain integer.
func appendWhole(out, n []byte) []byte {
	if _, ok := PlainInt(n); ok {
		return append(out, n...)
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsNaN(f) || math.Abs(f) > countCeiling {
		return append(out, '0')
	}
	return strconv.AppendInt(out, int64(math.Floor(f)), 10)
}

// hasFraction reports whether v holds, outside its strings, a number that
// is not a plain integer encoding/json puts in an int: one with a
// fraction or an exponent, or of more than 18 digits.
func hasFraction(v []byte) bool {
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '"':
			i = stringEnd(v, i) - 1
		case c == '-' || c >= '0' && c <= '9':
			e := i + 1
			for e < len(v) && numberByte(v[e]) {
				e++
			}
			if _, ok := PlainInt(v[i:e]); !ok {
				return true
			}
			i = e - 1
		}
	}
	return false
}

// stringEnd is the index just past the JSON string that opens at v[i].
func stringEnd(v []byte, i int) int {
	for j := i + 1; j < len(v); j++ {
		switch v[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(v)
}

func numberByte(c byte) bool {
	return c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}

package rawjson

import (
	"encoding/binary"
	"math/bits"
)

// maxDepth is encoding/json's limit on nesting: deeper values are invalid.
const maxDepth = 10000

// Check reports whether b is valid JSON, exactly as json.Valid does, in one
// pass; when b is an object it also sets vals[i] to the raw value of its
// top-level member keys[i] (the last one when it is repeated, as
// encoding/json reads it; nil when there is none), as Member would find it.
// A whole upstream answer is read with it instead of json.Valid and then a
// Member scan per member (docs/benchmarks.md, "Round 5"). vals must be at
// least as long as keys; on false its contents are unspecified.
func Check(b []byte, keys []string, vals [][]byte) bool {
	for i := range keys {
		vals[i] = nil
	}
	c := checker{b: b, max: maxDepth}
	i := skipSpace(b, 0)
	if i < len(b) && b[i] == '{' {
		i = c.object(i, 1, keys, vals)
	} else {
		i = c.value(i, 0)
	}
	return i >= 0 && skipSpace(b, i) == len(b)
}

// Within reports whether b is valid JSON whose objects and arrays nest at
// most depth deep (json.Valid with a tighter limit), in one pass: a walk
// whose cost grows with the nesting asks it first (the Gemini adapter's
// schema walk).
func Within(b []byte, depth int) bool {
	c := checker{b: b, max: min(depth, maxDepth)}
	i := c.value(skipSpace(b, 0), 0)
	return i >= 0 && skipSpace(b, i) == len(b)
}

// checker checks b, its objects and arrays nested at most max deep.
type checker struct {
	b   []byte
	max int
}

// value checks the value at b[i], nested depth deep; it returns the index
// past it, or -1.
func (c *checker) value(i, depth int) int {
	b := c.b
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return c.str(i)
	case '{', '[':
		if depth+1 > c.max {
			return -1
		}
		if b[i] == '{' {
			return c.object(i, depth+1, nil, nil)
		}
		return c.array(i, depth+1)
	case 't':
		return literal(b, i, "true")
	case 'f':
		return literal(b, i, "false")
	case 'n':
		return literal(b, i, "null")
	}
	return number(b, i)
}

// object checks the object at b[i], whose members are nested depth deep;
// it returns the index past it, or -1. For the top-level object, Check
// passes keys, and the raw value of each member named keys[k] goes to
// vals[k] (the last one when it is repeated, as in encoding/json).
func (c *checker) object(i, depth int, keys []string, vals [][]byte) int {
	b := c.b
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	for {
		ks := i
		ke := c.str(i)
		if ke < 0 {
			return -1
		}
		i = skipSpace(b, ke)
		if i >= len(b) || b[i] != ':' {
			return -1
		}
		vs := skipSpace(b, i+1)
		ve := c.value(vs, depth)
		if ve < 0 {
			return -1
		}
		for k, key := range keys {
			if keyIs(b[ks:ke], key) {
				vals[k] = b[vs:ve]
			}
		}
		i = skipSpace(b, ve)
		if i >= len(b) {
			return -1
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case '}':
			return i + 1
		default:
			return -1
		}
	}
}

func (c *checker) array(i, depth int) int {
	b := c.b
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1
	}
	for {
		i = c.value(i, depth)
		if i < 0 {
			return -1
		}
		i = skipSpace(b, i)
		if i >= len(b) {
			return -1
		}
		switch b[i] {
		case ',':
			i = skipSpace(b, i+1)
		case ']':
			return i + 1
		default:
			return -1
		}
	}
}

// Bytes a JSON string cannot hold as they are, eight at a time: below
// 0x20, '"' and '\\'.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// special8 flags, in the high bit of its byte, each of the eight bytes of x
// (little-endian) that is a control character, '"' or '\\'. It is the
// classic "has a byte less than n" and "has a zero byte" word tests: a flag
// can be wrong only above a true one, so the lowest flag is always right.
func special8(x uint64) uint64 {
	ctl := (x - 0x20*ones) &^ x
	q := x ^ '"'*ones
	bs := x ^ '\\'*ones
	return (ctl | (q-ones)&^q | (bs-ones)&^bs) & highs
}

// str checks the string at b[i] (encoding/json's rules: no control
// characters, only its escapes; bytes are not checked as UTF-8) and
// returns the index past it, or -1. It reads eight bytes at a time and
// goes straight to the first that needs a look.
func (c *checker) str(i int) int {
	b := c.b
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	j := i + 1
	for {
		if j+8 <= len(b) {
			m := special8(binary.LittleEndian.Uint64(b[j:]))
			if m == 0 {
				j += 8
				continue
			}
			j += bits.TrailingZeros64(m) >> 3
		}
		if j >= len(b) {
			return -1
		}
		switch ch := b[j]; {
		case ch == '"':
			return j + 1
		case ch == '\\':
			if j+1 >= len(b) {
				return -1
			}
			switch b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if j+6 > len(b) || !hex4(b[j+2:j+6]) {
					return -1
				}
				j += 6
			default:
				return -1
			}
		case ch < 0x20:
			return -1
		default:
			j++
		}
	}
}

func hex4(h []byte) bool {
	for _, ch := range h {
		if !('0' <= ch && ch <= '9' || 'a' <= ch && ch <= 'f' || 'A' <= ch && ch <= 'F') {
			return false
		}
	}
	return true
}

func literal(b []byte, i int, lit string) int {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return -1
	}
	return i + len(lit)
}

// number checks the number at b[i]: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
func number(b []byte, i int) int {
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i >= len(b):
		return -1
	case b[i] == '0':
		i++
	case '1' <= b[i] && b[i] <= '9':
		i = digits(b, i+1)
	default:
		return -1
	}
	if i < len(b) && b[i] == '.' {
		j := digits(b, i+1)
		if j == i+1 {
			return -1
		}
		i = j
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		j := digits(b, i)
		if j == i {
			return -1
		}
		i = j
	}
	return i
}

func digits(b []byte, i int) int {
	for i < len(b) && '0' <= b[i] && b[i] <= '9' {
		i++
	}
	return i
}

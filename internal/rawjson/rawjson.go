package rawjson

import (
	"bytes"
	"encoding/json"
	"errors"
)

// Member returns the raw value of the top-level member key of the JSON
// object b (the last one when it is repeated, as encoding/json reads it),
// or nil when b has no such member or is not an object. It matches key
// exactly (escapes decoded) and does not check that b is valid JSON: callers
// pass bodies already checked, and use it to read one member without
// decoding the whole body.
func Member(b []byte, key string) []byte {
	start, end, err := MemberSpan(b, key)
	if err != nil || start < 0 {
		return nil
	}
	return b[start:end]
}

// Scan walks the members of one JSON object, or the elements of one JSON
// array, without decoding them: a stream reader uses it to read the few
// members it needs from every event (docs/benchmarks.md#overhead-beside-a-plain-reverse-proxy-benchcmdoverhead). The
// value it walks must be valid JSON (json.Valid); on anything else it stops
// early. The zero value walks nothing.
type Scan struct {
	b     []byte
	i     int
	array bool
}

// ScanObject returns a Scan of the members of the object v (leading
// whitespace allowed), and false when v is not an object.
func ScanObject(v []byte) (Scan, bool) { return scanOf(v, '{') }

// ScanArray returns a Scan of the elements of the array v (leading
// whitespace allowed), and false when v is not an array.
func ScanArray(v []byte) (Scan, bool) { return scanOf(v, '[') }

func scanOf(v []byte, open byte) (Scan, bool) {
	i := skipSpace(v, 0)
	if i >= len(v) || v[i] != open {
		return Scan{}, false
	}
	return Scan{b: v, i: i + 1, array: open == '['}, true
}

// Next returns the next member: its key as written (quotes and escapes
// included; nil for an array's element) and its raw value. ok is false at
// the end.
func (s *Scan) Next() (key, value []byte, ok bool) {
	b := s.b
	i := skipSpace(b, s.i)
	if i < len(b) && b[i] == ',' {
		i = skipSpace(b, i+1)
	}
	if i >= len(b) || b[i] == '}' || b[i] == ']' {
		s.i = len(b)
		return nil, nil, false
	}
	if !s.array {
		ke := skipValue(b, i)
		if ke < 0 {
			s.i = len(b)
			return nil, nil, false
		}
		key = b[i:ke]
		i = skipSpace(b, ke)
		if i >= len(b) || b[i] != ':' {
			s.i = len(b)
			return nil, nil, false
		}
		i = skipSpace(b, i+1)
	}
	ve := skipValue(b, i)
	if ve < 0 {
		s.i = len(b)
		return nil, nil, false
	}
	s.i = ve
	return key, b[i:ve], true
}

// ErrNotObject is MemberSpan's error for a value that is not a JSON object.
var ErrNotObject = errors.New("rawjson: not a JSON object")

// MemberSpan finds the byte span of the value of the top-level member key
// in the JSON object b (the last one when it is repeated, as encoding/json
// reads it); start is -1 when there is none. The error says b is not a
// JSON object.
func MemberSpan(b []byte, key string) (start, end int, err error) {
	start = -1
	err = eachMember(b, func(ks, ke, vs, ve int) bool {
		if keyIs(b[ks:ke], key) {
			start, end = vs, ve // the last one wins, as in encoding/json
		}
		return true
	})
	if err != nil {
		return 0, 0, err
	}
	return start, end, nil
}

// eachMember calls fn with the spans of each top-level member of the JSON
// object b, its key (quotes included) and its value, in order, until fn
// returns false. The error says b is not a JSON object.
func eachMember(b []byte, fn func(ks, ke, vs, ve int) bool) error {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return ErrNotObject
	}
	i++
	for {
		i = skipSpace(b, i)
		if i >= len(b) {
			return ErrNotObject
		}
		if b[i] == '}' {
			return nil
		}
		if b[i] == ',' {
			i++
			continue
		}
		ks, ke := i, skipValue(b, i)
		if ke < 0 {
			return ErrNotObject
		}
		i = skipSpace(b, ke)
		if i >= len(b) || b[i] != ':' {
			return ErrNotObject
		}
		vs := skipSpace(b, i+1)
		ve := skipValue(b, vs)
		if ve < 0 {
			return ErrNotObject
		}
		if !fn(ks, ke, vs, ve) {
			return nil
		}
		i = ve
	}
}

// KeyIs reports whether the JSON string k (a key as Scan.Next returns it,
// quotes included) is key, escapes decoded as encoding/json would.
func KeyIs(k []byte, key string) bool { return keyIs(k, key) }

func keyIs(k []byte, key string) bool {
	if len(k) == len(key)+2 && string(k[1:len(k)-1]) == key {
		return true
	}
	return bytes.IndexByte(k, '\\') >= 0 && escapedKeyIs(k, key)
}

// escapedKeyIs is keyIs's slow path, apart so that the common case does not
// allocate the decoded string.
func escapedKeyIs(k []byte, key string) bool {
	var s string
	return json.Unmarshal(k, &s) == nil && s == key
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index just past the JSON value starting at b[i],
// or -1 when it does not end.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				k := skipValue(b, j)
				if k < 0 {
					return -1
				}
				j = k - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// skipString returns the index just past the string starting at b[i], or
// -1 when it does not end. A quote ends the string unless a backslash
// escapes it, that is unless an odd run of backslashes comes right before
// it; the quotes are found with bytes.IndexByte, so a long string (a
// conversation's text) is crossed many bytes at a time.
func skipString(b []byte, i int) int {
	for j := i + 1; ; {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		q := j + k
		run := 0
		for p := q - 1; p > i && b[p] == '\\'; p-- {
			run++
		}
		if run%2 == 0 {
			return q + 1
		}
		j = q + 1
	}
}

// WithFirst returns the JSON object obj with the member "key": value added
// first and every other byte as sent. obj must be a JSON object (white
// space before it allowed) without a member key, value a JSON value, and
// key a name JSON writes without escapes. A value that is not an object is
// returned as is.
func WithFirst(obj []byte, key string, value []byte) []byte {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return obj
	}
	i++
	out := make([]byte, 0, len(obj)+len(key)+len(value)+4)
	out = append(out, obj[:i]...)
	out = append(out, '"')
	out = append(out, key...)
	out = append(out, '"', ':')
	out = append(out, value...)
	if j := skipSpace(obj, i); j < len(obj) && obj[j] != '}' {
		out = append(out, ',')
	}
	return append(out, obj[i:]...)
}

// WithLast returns the JSON object obj, which has no member key, with
// "key": value added as its last member, in a new slice; obj as it came
// when it is not an object.
func WithLast(obj []byte, key string, value []byte) []byte {
	end := bytes.LastIndexByte(obj, '}')
	if i := skipSpace(obj, 0); i >= len(obj) || obj[i] != '{' || end < i {
		return obj
	}
	body := bytes.TrimSpace(obj[:end])
	out := make([]byte, 0, len(obj)+len(key)+len(value)+4)
	out = append(out, body...)
	if body[len(body)-1] != '{' {
		out = append(out, ',')
	}
	out = append(out, '"')
	out = append(out, key...)
	out = append(out, '"', ':')
	out = append(out, value...)
	return append(out, '}')
}

// Replace returns b with b[start:end] replaced by v, in a new slice (a
// member's value MemberSpan found, say).
func Replace(b []byte, start, end int, v []byte) []byte {
	out := make([]byte, 0, len(b)-(end-start)+len(v))
	out = append(out, b[:start]...)
	out = append(out, v...)
	return append(out, b[end:]...)
}

// Set reports whether a raw member holds a value: present (not empty nor
// white space) and not null.
func Set(v []byte) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && !bytes.Equal(v, []byte("null"))
}

// Without returns the JSON object obj without its top-level member key
// (every occurrence), in a new slice, the other bytes as they came; obj as
// it came when it has no such member or is not a JSON object.
func Without(obj []byte, key string) []byte {
	for {
		ks, ve := memberBounds(obj, key)
		if ks < 0 {
			return obj
		}
		// The member and one comma beside it: the one after, else the
		// one before.
		from, to := ks, ve
		if j := skipSpace(obj, ve); j < len(obj) && obj[j] == ',' {
			to = j + 1
		} else {
			for k := ks - 1; k >= 0; k-- {
				if obj[k] == ',' {
					from = k
					break
				}
				if obj[k] != ' ' && obj[k] != '\t' && obj[k] != '\n' && obj[k] != '\r' {
					break
				}
			}
		}
		obj = Replace(obj, from, to, nil)
	}
}

// Rename returns the JSON object obj with its first top-level member named
// from named to instead (to a name JSON writes without escapes), in a new
// slice, every other byte as it came; obj as it came when it has no such
// member or is not a JSON object.
func Rename(obj []byte, from, to string) []byte {
	ks, ke := -1, -1
	_ = eachMember(obj, func(k, e, _, _ int) bool {
		if keyIs(obj[k:e], from) {
			ks, ke = k, e
			return false
		}
		return true
	})
	if ks < 0 {
		return obj
	}
	return Replace(obj, ks, ke, []byte(`"`+to+`"`))
}

// memberBounds is the span of the first top-level member key of obj, from
// its key's opening quote to its value's end; ks is -1 when there is none.
func memberBounds(obj []byte, key string) (ks, ve int) {
	ks = -1
	_ = eachMember(obj, func(k, ke, _, e int) bool {
		if keyIs(obj[k:ke], key) {
			ks, ve = k, e
			return false
		}
		return true
	})
	return ks, ve
}

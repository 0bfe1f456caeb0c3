package provider

// Member returns the raw value of the top-level member key of the JSON
// object b (the last one when it is repeated, as encoding/json reads it),
// or nil when b has no such member or is not an object. It matches key
// exactly (escapes decoded) and does not check that b is valid JSON: callers
// pass bodies already checked, and use it to read one member without
// decoding the whole body.
func Member(b []byte, key string) []byte {
	start, end, err := memberValue(b, key)
	if err != nil || start < 0 {
		return nil
	}
	return b[start:end]
}

// Scan walks the members of one JSON object, or the elements of one JSON
// array, without decoding them: a stream reader uses it to read the few
// members it needs from every event (docs/benchmarks.md#overhead). The
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

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

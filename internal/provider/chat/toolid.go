package chat

import (
	"crypto/sha256"
	"encoding/hex"
)

// AnthropicToolID is id as Anthropic's Messages API takes a tool_use id
// and a tool_result's tool_use_id: letters, digits, '_' and '-' only
// (`^[a-zA-Z0-9_-]+$`, a 400 otherwise). An id in that form is kept; any
// other — another vendor's ("functions.get_weather:0", Kimi's), or none —
// has every other byte replaced by '_' and a short hash of the whole id
// appended, so two ids stay two and a call and its result, mapped alike,
// still match with nothing stored (review 32d: a conversation that failed
// over from Kimi to Claude was refused).
func AnthropicToolID(id string) string {
	ok := id != ""
	for i := 0; i < len(id) && ok; i++ {
		ok = anthropicIDByte(id[i])
	}
	if ok {
		return id
	}
	b := make([]byte, 0, len(id)+9)
	for i := 0; i < len(id); i++ {
		if c := id[i]; anthropicIDByte(c) {
			b = append(b, c)
		} else {
			b = append(b, '_')
		}
	}
	sum := sha256.Sum256([]byte(id))
	b = append(b, '_')
	return string(hex.AppendEncode(b, sum[:4]))
}

func anthropicIDByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

package chat

// AnthropicToolID is id as Anthropic's Messages API takes a tool_use id
// and a tool_result's tool_use_id: letters, digits, '_' and '-' only
// (`^[a-zA-Z0-9_-]+$`, a 400 otherwise). Letters, digits and '_' are kept;
// every other byte, '-' included, is written as '-' and two hex digits, so
// the mapping is one to one (no two ids become one, review 32i) and a call
// and its result, mapped alike, still match with nothing stored (review
// 32d: a conversation that failed over from Kimi, whose ids read
// "functions.get_weather:0", to Claude was refused). The ids Anthropic and
// OpenAI issue (toolu_…, call_…) are left as they are; an empty id is "-".
func AnthropicToolID(id string) string {
	keep := id != ""
	for i := 0; i < len(id) && keep; i++ {
		keep = idByte(id[i])
	}
	if keep {
		return id
	}
	const hex = "0123456789abcdef"
	b := make([]byte, 0, len(id)+8)
	for i := 0; i < len(id); i++ {
		if c := id[i]; idByte(c) {
			b = append(b, c)
		} else {
			b = append(b, '-', hex[c>>4], hex[c&15])
		}
	}
	if len(b) == 0 {
		return "-"
	}
	return string(b)
}

func idByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

package chat

import "testing"

// Review rev32i: "two ids stay two" does not hold. An id already in
// Anthropic's form is kept as it is, and the mapped form of another id is
// itself in that form, so a valid id equal to the mapping of an invalid
// one collides with it: a history holding both (tool ids are free text an
// OpenAI-compatible upstream or client chose) reaches Claude with two
// tool_use blocks of one id (Anthropic's 400 "tool_use ids must be
// unique") or a tool_result answering the wrong call.
func TestReview32iAnthropicToolIDCollision(t *testing.T) {
	a := "functions.get_weather:0"
	b := AnthropicToolID(a) // "functions_get_weather_0_<8 hex>", valid as it is
	if a == b {
		t.Fatal("no mapping")
	}
	if AnthropicToolID(a) == AnthropicToolID(b) {
		t.Errorf("distinct ids %q and %q both map to %q", a, b, AnthropicToolID(a))
	}
}

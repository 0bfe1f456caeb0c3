package chat

import (
	"regexp"
	"testing"
)

func TestAnthropicToolID(t *testing.T) {
	valid := regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)
	for _, id := range []string{"toolu_01A09q90qw90lq917835lq9", "call_abc123"} {
		if got := AnthropicToolID(id); got != id {
			t.Errorf("%q (already valid) became %q", id, got)
		}
	}
	seen := map[string]string{}
	// One to one: an id already in the mapped form of another stays apart
	// (review 32i).
	for _, id := range []string{"functions.get_weather:0", "functions.get_weather:1", "functions_get_weather_0",
		AnthropicToolID("functions.get_weather:0"), "a.b", "a:b", "a-2eb", "chatcmpl-tool-1", "", "-", "工具"} {
		got := AnthropicToolID(id)
		if !valid.MatchString(got) {
			t.Errorf("%q became %q, which Anthropic refuses", id, got)
		}
		if got != AnthropicToolID(id) {
			t.Errorf("%q: not deterministic", id)
		}
		if prev, dup := seen[got]; dup {
			t.Errorf("%q and %q both became %q", prev, id, got)
		}
		seen[got] = id
	}
}

package gemini

import (
	"strings"
	"testing"
)

// TestLowerTypesKeepsOrder (hostile 69n): lowering Gemini's upper-case
// type names rewrote the whole schema from Go maps, so its properties
// went out in alphabetical order — the order OpenAI's structured outputs
// write an answer's members in (a "reasoning" asked for before the
// "answer" came after it) — and "<", ">" and "&" in a description as
// \u003c escapes. Only the type names may change; a property named
// "type" and an enum holding "OBJECT" are data, left as sent.
func TestLowerTypesKeepsOrder(t *testing.T) {
	const req = `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":{"responseMimeType":"application/json",
		"responseJsonSchema":{"type":"OBJECT","properties":{"reasoning":{"type":"STRING","description":"x < y & z"},"answer":{"type":"INTEGER"},"type":{"type":"STRING","enum":["OBJECT","ARRAY"]}},"required":["reasoning","answer"]}},
		"tools":[{"functionDeclarations":[{"name":"f","parametersJsonSchema":{"type":"OBJECT","properties":{"zeta":{"type":"STRING"},"alpha":{"type":"ARRAY","items":[{"type":"NUMBER"},{"type":"string"}]}}}}]}]}`
	tr, err := Translate([]byte(req), "r", false)
	if err != nil {
		t.Fatal(err)
	}
	body := string(tr.Body)
	for _, w := range []string{
		`"schema":{"type":"object","properties":{"reasoning":{"type":"string","description":"x < y & z"},"answer":{"type":"integer"},"type":{"type":"string","enum":["OBJECT","ARRAY"]}},"required":["reasoning","answer"]}`,
		`"parameters":{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"array","items":[{"type":"number"},{"type":"string"}]}}}`,
	} {
		if !strings.Contains(body, w) {
			t.Errorf("body %s\nlacks %s", body, w)
		}
	}
}

package gemini

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// Review 62l: refResponse (schema.go) catches "$ref" and "\u0024ref" only;
// any other escaped spelling of the key ("$\u0072ef", "\u0024\u0072ef")
// decodes to "$ref" at Gemini just the same, and the result still goes as
// an object (review 62f's 400 on every later turn). Low: the text is the
// client's tool's own, and no encoder writes these escapes unasked.
func TestReview62lOtherEscapedRefToolResult(t *testing.T) {
	for _, key := range []string{`$\\u0072ef`, `\\u0024\\u0072ef`, `$r\\u0065f`} {
		body := `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},` +
			`{"role":"tool","tool_call_id":"c1","content":"{\"` + key + `\":\"#/x\"}"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}]}`
		out, err := Translate(&provider.Request{Body: []byte(body)})
		if err != nil {
			t.Fatal(err)
		}
		s := string(out)
		if i := strings.Index(s, `"response":{"content"`); i < 0 {
			j := strings.Index(s, `"functionResponse"`)
			t.Errorf("key %s: the result goes to Gemini as an object whose key decodes to $ref: %s", key, s[max(j, 0):min(len(s), max(j, 0)+120)])
		}
	}
}

package classify

import (
	"strings"
	"testing"
)

// Fuzz 69f: base64-looking text that is an array's element, not the value
// of an inline-data member, is text the provider counts: after an object
// whose last member was "url" (a tool schema's examples list) the cap's
// reading took it for an image, read a request over the cap as a full
// minute, and cooled the endpoint for every client (review 68f's case,
// reached another way).
func TestFuzz69fInlineMemberEndsWithItsValue(t *testing.T) {
	blob := strings.Repeat("QUJD", 30000) // 120,000 bytes: ~30,000 tokens
	for _, req := range []string{
		`{"model":"m","tools":[{"name":"t","input_schema":{"type":"object","examples":[{"url":"a"},"` + blob + `"]}}],"messages":[{"role":"user","content":"hi"}]}`,
		`{"model":"m","messages":[{"role":"user","content":"hi"}],"metadata":{"data":["` + blob + `"]}}`,
	} {
		if n := requestText([]byte(req)); n < int64(len(blob)) {
			t.Errorf("text %d, want at least %d", n, len(blob))
		}
		body := capAnswers[0] // 30,000 input tokens per minute
		if v := Classify(Response{Status: 429, Body: []byte(body), Request: []byte(req)}); v.Class != Overflow {
			t.Errorf("a request over the cap: %s (%s), want overflow", v.Class, v.Evidence)
		}
	}
	// The value of the member itself is still inline data.
	image := `{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"` + blob + `"}}]}]}`
	if n := requestText([]byte(image)); n >= int64(len(blob)) {
		t.Errorf("an image's base64: text %d", n)
	}
}

package openai

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// Hostile 54b: withoutOurSignatures swaps a tagged signature for Google's
// placeholder at Gemini's OpenAI-compatible endpoint, but eachItem decides
// whether anything changed by comparing lengths (len(w) != len(v)). When
// the tagged extra_content is exactly as long as the placeholder's, the
// swap is thrown away and the tagged signature reaches Gemini, which
// refuses it ("Corrupted thought signature.", a bad_request that ends the
// walk). "detour1." + 12 hex + "." is 21 bytes, the placeholder 32: a
// signature of 11 bytes, compact JSON; with a client's spaces (Python's
// json.dumps: ": " after each of the three keys) 8 bytes.
func TestHostile54bSameLengthTaggedSignatureReachesCompat(t *testing.T) {
	for _, c := range []struct{ name, extra string }{
		{"compact", `"extra_content":{"google":{"thought_signature":"detour1.0123456789ab.c2lnLTEyMzQ"}}`},
		{"python spaces", `"extra_content": {"google": {"thought_signature": "detour1.0123456789ab.c2lnLTEy"}}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"},` + c.extra + `}]},{"role":"tool","tool_call_id":"c1","content":"ok"}]}`
			req, err := Adapter{}.NewRequest(context.Background(), provider.Endpoint{BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai", Model: "m"}, &provider.Request{Body: []byte(body)})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(req.Body)
			if strings.Contains(string(b), provider.SignaturePrefix) || !strings.Contains(string(b), "skip_thought_signature_validator") {
				t.Errorf("Gemini's compatible endpoint was sent %s; want the placeholder in place of the tagged signature", b)
			}
		})
	}
}

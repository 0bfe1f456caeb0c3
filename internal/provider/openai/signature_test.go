package openai

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// A thought signature the gateway tagged for a gemini-dialect endpoint, as
// a client hands it back, never reaches an OpenAI-dialect server: Gemini's
// OpenAI-compatible endpoint gets the placeholder (it would refuse the
// tagged one as "Corrupted thought signature"), any other server no
// extra_content at all; a signature the gateway did not tag travels as the
// client sent it (docs/doors.md, "Gemini thought signatures").
func TestOurSignaturesStayOff(t *testing.T) {
	tagged := `{"google":{"thought_signature":"detour1.0123456789ab.c2lnLTE="}}`
	body := func(extra string) string {
		return `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"},"extra_content":` + extra + `}]},{"role":"tool","tool_call_id":"c1","content":"ok"}]}`
	}
	for _, c := range []struct {
		name, base, extra string
		want, not         string
	}{
		{"OpenAI", "https://api.openai.com/v1", tagged, `"arguments":"{}"}}]`, "extra_content"},
		{"Gemini's compatible endpoint", "https://generativelanguage.googleapis.com/v1beta/openai", tagged, "skip_thought_signature_validator", "detour1."},
		{"an untagged one, at the compatible endpoint", "https://generativelanguage.googleapis.com/v1beta/openai", `{"google":{"thought_signature":"c2lnLTE="}}`, `"thought_signature":"c2lnLTE="`, "skip_thought"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, err := Adapter{}.NewRequest(context.Background(), provider.Endpoint{BaseURL: c.base, Model: "m"}, &provider.Request{Body: []byte(body(c.extra))})
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(req.Body)
			if !strings.Contains(string(b), c.want) || strings.Contains(string(b), c.not) {
				t.Errorf("sent %s; want %s and no %s", b, c.want, c.not)
			}
		})
	}
}

// A reasoning item the Responses door wrote to carry a Gemini call's
// sealed signature, as a client hands it back, never reaches OpenAI's
// Responses API, which would refuse it as content it did not encrypt
// ("invalid_encrypted_content"); OpenAI's own encrypted items stay.
func TestSealedReasoningItemsStayOffOpenAI(t *testing.T) {
	body := []byte(`{"model":"gpt-5","input":[{"role":"user","content":"hi"},{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"detour1.0123456789abcdef.c2ln"},{"type":"function_call","call_id":"c1","name":"f","arguments":"{}"},{"type":"reasoning","id":"rs_2","summary":[],"encrypted_content":"gAAAAABopenai"},{"type":"function_call_output","call_id":"c1","output":"ok"}]}`)
	got := string(withoutForeignReasoning(withoutEncryptedReasoning(body, true)))
	if strings.Contains(got, "detour1.") || !strings.Contains(got, "gAAAAABopenai") || !strings.Contains(got, `"function_call"`) {
		t.Errorf("sent %s", got)
	}
}

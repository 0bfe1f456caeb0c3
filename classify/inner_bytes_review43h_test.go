package classify

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestBytesQuotedAnswerThatIsTheClientsText: a user relies on text the
// client wrote never cooling a provider, even when it reaches the relay's
// message in Python's bytes form. An upstream that answers with the
// client's text whole, relayed by LiteLLM after its own lead, holds an
// object the client wrote; written in the bytes form with an escape of its
// own ("You\'ve"), it decodes to an object that is no longer, as written,
// in the request: the echo check looks for it as the client wrote it too.
// (Found by review 43h: the check read only the decoded object.)
func TestBytesQuotedAnswerThatIsTheClientsText(t *testing.T) {
	for _, c := range []struct{ name, text string }{
		{"escaped apostrophe", `b'{"error":{"code":"insufficient_quota","message":"You\'ve exceeded it"}}'`},
		{"escaped newline", `b'{\n"error":{"code":"insufficient_quota","message":"You exceeded it"}}'`},
	} {
		msg, _ := json.Marshal("litellm.RateLimitError: OpenAIException - " + c.text)
		body := []byte(fmt.Sprintf(`{"error":{"message":%s,"type":null,"param":null,"code":"429"}}`, msg))
		content, _ := json.Marshal(c.text)
		req := []byte(`{"model":"m","messages":[{"role":"user","content":` + string(content) + `}]}`)
		if v := Classify(Response{Status: 429, Body: body}); v.Class != Quota {
			t.Errorf("%s: a relay's quoted answer: %s (%s), want quota", c.name, v.Class, v.Evidence)
		}
		if v := Classify(Response{Status: 429, Body: body, Request: req}); v.Class == Quota {
			t.Errorf("%s: the client's text: %s (%s)", c.name, v.Class, v.Evidence)
		}
	}
}

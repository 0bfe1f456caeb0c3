package gemini

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// A history call hands Gemini back only the signature the same endpoint
// wrote (docs/doors.md, "Gemini thought signatures"): another account's or
// model's, a bare one the gateway did not tag, and extra_content of any
// odd shape get the placeholder, and none is an error.
func TestHandedBackOnlyToItsEndpoint(t *testing.T) {
	a := provider.Endpoint{Account: "gemini-a", Model: "gemini-3-pro-preview", APIKey: "AIza-a"}
	tag := provider.SignatureTag(a)
	for _, c := range []struct {
		name  string
		extra string
		want  string
	}{
		{"its own", string(signatureExtra(tag, "c2lnLTE=")), "c2lnLTE="},
		{"another account's", string(signatureExtra(provider.SignatureTag(provider.Endpoint{Account: "gemini-b", Model: a.Model, APIKey: "AIza-b"}), "c2lnLTE=")), SkipSignature},
		{"another model's", string(signatureExtra(provider.SignatureTag(provider.Endpoint{Account: a.Account, Model: "gemini-3-flash", APIKey: a.APIKey}), "c2lnLTE=")), SkipSignature},
		{"a key changed under the same name", string(signatureExtra(provider.SignatureTag(provider.Endpoint{Account: a.Account, Model: a.Model, APIKey: "AIza-new"}), "c2lnLTE=")), SkipSignature},
		{"bare, from elsewhere", `{"google":{"thought_signature":"c2lnLTE="}}`, SkipSignature},
		{"tagged, empty", `{"google":{"thought_signature":"detour1.` + tag + `."}}`, SkipSignature},
		{"a string", `"c2lnLTE="`, SkipSignature},
		{"an array", `[1,2]`, SkipSignature},
		{"null", `null`, SkipSignature},
		{"a number signature", `{"google":{"thought_signature":7}}`, SkipSignature},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"},"extra_content":` + c.extra + `}]},{"role":"tool","tool_call_id":"c1","content":"ok"}]}`
			out, err := translate(&provider.Request{Body: []byte(body)}, a.Model, tag)
			if err != nil {
				t.Fatal(err)
			}
			var g generateRequest
			if err := json.Unmarshal(out, &g); err != nil {
				t.Fatal(err)
			}
			if got := g.Contents[1].Parts[0].ThoughtSignature; got != c.want {
				t.Errorf("thoughtSignature %q, want %q", got, c.want)
			}
		})
	}
}

// The tag says nothing of the key: twelve hex digits of a hash.
func TestSignatureTagHoldsNoKey(t *testing.T) {
	ep := provider.Endpoint{Account: "gemini", Model: "gemini-3-pro-preview", APIKey: "AIzaSyD-secret-key-0123456789"}
	tag := provider.SignatureTag(ep)
	if len(tag) != 12 || strings.Trim(tag, "0123456789abcdef") != "" {
		t.Errorf("tag %q", tag)
	}
	if s := string(signatureExtra(tag, "c2ln")); strings.Contains(s, "secret") || strings.Contains(s, ep.APIKey[:8]) {
		t.Errorf("extra_content %s shows the key", s)
	}
}

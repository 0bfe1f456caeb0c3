package gemini

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/signkey"
)

// A history call hands Gemini back only the signature the same endpoint
// wrote (docs/doors.md, "Gemini thought signatures"): another account's,
// model's or key's, a bare one the gateway did not seal, one sealed under
// another signing key (another replica without Redis, a restart), bytes a
// client put under a seal it saw (hostile 54b), and extra_content of any
// odd shape get the placeholder, and none is an error.
func TestHandedBackOnlyToItsEndpoint(t *testing.T) {
	key := []byte("signing-key")
	a := provider.Endpoint{Account: "gemini-a", Model: "gemini-3-pro-preview", APIKey: "AIza-a", Signing: signkey.New(key)}
	sealedFor := func(ep provider.Endpoint, sig string) string { return string(signatureExtra(ep, sig)) }
	own := provider.Seal(a, "c2lnLTE=")
	forged := strings.TrimSuffix(own, "c2lnLTE=") + "Zm9yZ2Vk"
	for _, c := range []struct {
		name  string
		extra string
		want  string
	}{
		{"its own", sealedFor(a, "c2lnLTE="), "c2lnLTE="},
		{"another account's", sealedFor(provider.Endpoint{Account: "gemini-b", Model: a.Model, APIKey: a.APIKey, Signing: signkey.New(key)}, "c2lnLTE="), SkipSignature},
		{"another model's", sealedFor(provider.Endpoint{Account: a.Account, Model: "gemini-3-flash", APIKey: a.APIKey, Signing: signkey.New(key)}, "c2lnLTE="), SkipSignature},
		{"a key changed under the same name", sealedFor(provider.Endpoint{Account: a.Account, Model: a.Model, APIKey: "AIza-new", Signing: signkey.New(key)}, "c2lnLTE="), SkipSignature},
		{"another signing key", sealedFor(provider.Endpoint{Account: a.Account, Model: a.Model, APIKey: a.APIKey, Signing: signkey.New([]byte("other"))}, "c2lnLTE="), SkipSignature},
		{"other bytes under its seal", string(provider.SignatureExtra(forged)), SkipSignature},
		{"bare, from elsewhere", `{"google":{"thought_signature":"c2lnLTE="}}`, SkipSignature},
		{"sealed, empty", `{"google":{"thought_signature":"detour1.0123456789abcdef."}}`, SkipSignature},
		{"a string", `"c2lnLTE="`, SkipSignature},
		{"an array", `[1,2]`, SkipSignature},
		{"null", `null`, SkipSignature},
		{"a number signature", `{"google":{"thought_signature":7}}`, SkipSignature},
	} {
		t.Run(c.name, func(t *testing.T) {
			body := `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"},"extra_content":` + c.extra + `}]},{"role":"tool","tool_call_id":"c1","content":"ok"}]}`
			out, err := translate(&provider.Request{Body: []byte(body)}, a)
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

// Without a signing key nothing is carried: the call has no extra_content.
func TestNoSigningKeyCarriesNothing(t *testing.T) {
	if e := signatureExtra(provider.Endpoint{Model: "m"}, "c2ln"); e != nil {
		t.Errorf("extra_content %s without a signing key", e)
	}
}

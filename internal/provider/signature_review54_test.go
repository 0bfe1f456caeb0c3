package provider

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/signkey"
)

// review54, hostile54b: the first tag was an unkeyed hash of the
// provider's name, the model and its key, so a client could test guesses
// at the key offline from its own answer. The seal is an HMAC under the
// gateway's signing key, which no client holds: the right key under any
// other signing key seals differently, so a guess cannot be checked.
func TestSealIsNoKeyOracle(t *testing.T) {
	ep := Endpoint{Account: "gemini", Model: "gemini-3-flash-preview", APIKey: "sk-1234", Signing: signkey.New([]byte("the gateway's own"))}
	seen := Seal(ep, "c2ln")
	for _, k := range []string{"sk-0000", "changeme", "sk-1234", "password"} {
		for _, sk := range [][]byte{nil, {}, []byte("guess"), []byte(k)} {
			g := ep
			g.APIKey, g.Signing = k, signkey.New(sk)
			if s := Seal(g, "c2ln"); s == seen {
				t.Errorf("a seal made without the signing key matched the client's (key %q)", k)
			}
		}
	}
	if !strings.HasPrefix(seen, SignaturePrefix) || strings.Contains(seen, "sk-1234") {
		t.Errorf("seal %q", seen)
	}
}

package config

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

// A client key entry may hold a list of keys: during a rotation the old
// and the new both work, on one name and one budget (operator review 53:
// a rotation was a hard cut, and a second entry under another name had
// budgets of its own).
func TestClientKeyList(t *testing.T) {
	lookup := envLookup(nil)
	newSum := sha256.Sum256([]byte("sk-new-0123456789"))
	c, err := Parse("c.yaml", []byte(`client_keys:
  - {name: team-a, key: [sk-old-0123456789, sk-new-0123456789], budget: {usd_per_day: 1}}
  - {name: team-b, key_sha256: [`+hex.EncodeToString(newSum[:0])+`aa`+`]}
providers: [{name: p, dialect: openai, base_url: "https://x.test"}]
targets: [{name: t, model: m, providers: [p]}]
`), lookup)
	if err == nil {
		t.Fatal("a key_sha256 entry that is not 64 hex digits was taken")
	}
	other := sha256.Sum256([]byte("sk-b-0123456789"))
	c, err = Parse("c.yaml", []byte(`client_keys:
  - {name: team-a, key: [sk-old-0123456789, sk-new-0123456789], budget: {usd_per_day: 1}}
  - {name: team-b, key_sha256: [`+hex.EncodeToString(other[:])+`]}
providers: [{name: p, dialect: openai, base_url: "https://x.test"}]
targets: [{name: t, model: m, providers: [p]}]
`), lookup)
	if err != nil {
		t.Fatal(err)
	}
	a := c.Clients[0]
	if a.Key != "sk-old-0123456789" || len(a.Sums) != 2 || a.Sums[1] != newSum {
		t.Fatalf("team-a %+v", a)
	}
	if len(c.ClientKeys) != 2 || c.ClientKeys[1] != "sk-new-0123456789" {
		t.Fatalf("ClientKeys %v: every key is a secret the logs scrub", c.ClientKeys)
	}
	if b := c.Clients[1]; !b.HasSHA256 || len(b.Sums) != 1 || b.Sums[0] != other {
		t.Fatalf("team-b %+v", b)
	}
	for _, bad := range []struct{ name, yaml, want string }{
		{"empty list", `{name: a, key: []}`, "key is an empty list"},
		{"same key twice", `{name: a, key: [sk-x-0123456789, sk-x-0123456789]}`, "lists the same key twice"},
		{"shared with another", `{name: a, key: [sk-x-0123456789]}, {name: b, key: [sk-y-0123456789, sk-x-0123456789]}`, `has the same key as "a"`},
	} {
		t.Run(bad.name, func(t *testing.T) {
			_, err := Parse("c.yaml", []byte("client_keys: ["+bad.yaml+"]\nproviders: [{name: p, dialect: openai, base_url: \"https://x.test\"}]\ntargets: [{name: t, model: m, providers: [p]}]\n"), lookup)
			checkErrors(t, err, []wantErr{{1, bad.want}})
		})
	}
}

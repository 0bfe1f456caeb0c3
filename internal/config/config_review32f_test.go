package config

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

// Review 32f (configuration and the CLI).

const base32f = `providers: [{name: p, dialect: openai, base_url: "https://x.test"}]
targets:
  - {name: t1, model: m, providers: [p]}
  - {name: t2, model: m, providers: [p]}
routes:
  - {name: cheap, targets: [t2]}
`

// docs/config.md, client_keys errors: "a repeated name, or two entries with
// the same key". A key written once as `key` and once as `key_sha256` (or
// twice as `key_sha256`) is two entries with the same key, but only literal
// keys are compared: the file loads, and since server.clientByKey takes the
// first entry that matches, the second entry's routes and limits never apply
// (here the unlimited legacy entry shadows the limited, route-restricted "ci").
func TestClientKeyRepeatedThroughItsHashIsAnError(t *testing.T) {
	sum := sha256.Sum256([]byte("ci-secret-key-1"))
	h := hex.EncodeToString(sum[:])
	cases := map[string]string{
		"key then key_sha256": `client_keys:
  - {name: legacy, key: ci-secret-key-1}
  - {name: ci, key_sha256: "` + h + `", routes: [cheap], max_concurrent: 1, rate: {requests_per_minute: 1}}
`,
		"key_sha256 twice (hex case differs)": `client_keys:
  - {name: ci-old, key_sha256: "` + h + `"}
  - {name: ci, key_sha256: "` + strings.ToUpper(h) + `", routes: [cheap], rate: {requests_per_minute: 1}}
`,
		"bare key then key_sha256": `client_keys:
  - ci-secret-key-1
  - {name: ci, key_sha256: "` + h + `", routes: [cheap], rate: {requests_per_minute: 1}}
`,
	}
	for name, keys := range cases {
		t.Run(name, func(t *testing.T) {
			cfg, err := Parse("c.yaml", []byte(base32f+keys), nil)
			if err == nil {
				t.Fatalf("two client keys with the same key load without an error: %d entries, the first (%q, routes %v, rate %+v) shadows the second (%q, routes %v, rate %+v)",
					len(cfg.Clients), cfg.Clients[0].Name, cfg.Clients[0].Routes, cfg.Clients[0].Rate,
					cfg.Clients[1].Name, cfg.Clients[1].Routes, cfg.Clients[1].Rate)
			}
			if strings.Contains(err.Error(), "ci-secret-key-1") {
				t.Errorf("the error shows the key: %v", err)
			}
		})
	}
}

// "${VAR:-default}" takes its default up to the first "}", so a nested
// reference — the shell's and Docker Compose's way to fall back to another
// variable — is neither expanded nor refused: the value becomes the literal
// text "${OLD_KEY}". Written for a client key, the gateway then accepts the
// publicly known string "${OLD_KEY}" as a key; for an api_key every call
// fails as auth and pages. docs/config.md: "any other $ is kept as written"
// does not cover a "${" whose reference is cut in half.
func TestNestedDefaultIsNotTakenLiterally(t *testing.T) {
	env := envLookup(map[string]string{"OLD_KEY": "old-client-key-123"})
	cfg, err := Parse("c.yaml", []byte(base32f+`client_keys: ["${NEW_KEY:-${OLD_KEY}}"]
`), env)
	if err != nil {
		t.Fatalf("a nested default was refused: %v", err)
	}
	if got := cfg.ClientKeys; len(got) != 1 || got[0] != "old-client-key-123" {
		t.Fatalf(`client_keys ["${NEW_KEY:-${OLD_KEY}}"] with NEW_KEY unset loads as the key %q: want the value of OLD_KEY`, got)
	}
	// Both unset: the inner reference is an error, named.
	_, err = Parse("c.yaml", []byte(base32f+`client_keys: ["${NEW_KEY:-${GONE_KEY}}"]
`), env)
	if err == nil || !strings.Contains(err.Error(), `"GONE_KEY" is not set`) {
		t.Fatalf("nested default naming an unset variable: %v", err)
	}
	// A default of its own after a nested one, and "$$" inside it.
	got, _, err := expand("${NEW_KEY:-${NONE:-a$$b}}-c", env)
	if err != nil || got != "a$b-c" {
		t.Fatalf("expand: %q, %v; want a$b-c", got, err)
	}
}

// docs/config.md: "Every error reads file:line: message". An alias that
// names no anchor (a typo: "*slwo" for "*slow") is reported without a line.
func TestUnknownAnchorHasALine(t *testing.T) {
	_, err := Parse("c.yaml", []byte(base32f+`  - {name: deep, targets: [t1], deadline: &slow 120s}
  - {name: deeper, targets: [t1], deadline: *slwo}
`), nil)
	if err == nil {
		t.Fatal("no error for an unknown anchor")
	}
	es := err.(Errors)
	for _, e := range es {
		if e.Line != 8 {
			t.Errorf("error without a line: %q (want c.yaml:8: …)", e.Error())
		}
	}
}

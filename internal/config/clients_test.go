package config

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

func TestClientKeyObjects(t *testing.T) {
	sum := sha256.Sum256([]byte("ci-secret"))
	yaml := `providers: [{name: p, dialect: openai, base_url: "https://x.test"}]
targets:
  - {name: t1, model: m, providers: [p], price: {input: 3.00, output: 15, cached_input: 0.30, cache_write: 3.75, cache_write_1h: 6}}
  - {name: t2, model: m, providers: [p], price: {input: 1, output: 2}}
  - {name: t3, model: m, providers: [p]}
routes:
  - {name: deep, targets: [t1], tail: [t3], tail_on: [quota]}
  - {name: cheap, targets: [t2]}
client_keys:
  - plain
  - {name: team-a, key: "${TEAM_A_KEY}", routes: [deep, cheap],
     rate: {requests_per_minute: 60, tokens_per_minute: 200000},
     budget: {usd_per_day: 5, usd_per_month: 100}}
  - {name: ci, key_sha256: "` + hex.EncodeToString(sum[:]) + `", routes: [cheap], disabled: true}
`
	cfg, err := Parse("c.yaml", []byte(yaml), envLookup(map[string]string{"TEAM_A_KEY": "team-a-secret"}))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Clients) != 3 {
		t.Fatalf("clients: %+v", cfg.Clients)
	}
	plain, a, ci := cfg.Clients[0], cfg.Clients[1], cfg.Clients[2]
	if plain.Name != "key:a116c9ed" || plain.Key != "plain" || plain.Limited() || plain.Routes != nil {
		t.Errorf("plain: %+v", plain)
	}
	if a.Name != "team-a" || a.Key != "team-a-secret" || a.Rate != (Rate{60, 200000}) || a.Budget != (Budget{5, 100}) {
		t.Errorf("team-a: %+v", a)
	}
	if ci.Key != "" || !ci.HasSHA256 || ci.SHA256 != sum || len(ci.Routes) != 1 || !ci.Disabled || a.Disabled {
		t.Errorf("ci: %+v", ci)
	}
	if got := cfg.Allowed(&a); !got["deep"] || !got["cheap"] || !got["t1"] || !got["t2"] || !got["t3"] || len(got) != 5 {
		t.Errorf("team-a allowed: %v", got)
	}
	if got := cfg.Allowed(&ci); !got["cheap"] || !got["t2"] || got["t1"] || got["deep"] {
		t.Errorf("ci allowed: %v", got)
	}
	if cfg.Allowed(&plain) != nil {
		t.Error("a key without routes may call everything")
	}
	// The scrubber's list holds the literal keys, and never a name.
	if len(cfg.ClientKeys) != 2 || cfg.ClientKeys[0] != "plain" || cfg.ClientKeys[1] != "team-a-secret" {
		t.Errorf("client keys: %q", cfg.ClientKeys)
	}
	p1, p2 := cfg.Targets[0].Price, cfg.Targets[1].Price
	if p1 == nil || p1.Input != 3 || p1.Output != 15 || p1.CachedInput == nil || *p1.CachedInput != 0.3 ||
		p1.CacheWrite == nil || *p1.CacheWrite != 3.75 || p1.CacheWrite1h == nil || *p1.CacheWrite1h != 6 {
		t.Errorf("t1 price: %+v", p1)
	}
	if p2 == nil || p2.CachedInput != nil || p2.CacheWrite != nil || p2.CacheWrite1h != nil || cfg.Targets[2].Price != nil {
		t.Errorf("t2/t3 price: %+v %+v", p2, cfg.Targets[2].Price)
	}
}

func TestClientKeyErrors(t *testing.T) {
	lookup := envLookup(map[string]string{"EMPTY": ""})
	cases := []struct {
		name string
		yaml string
		want []wantErr
	}{
		{"no key", base + "client_keys: [{name: a}]\n", []wantErr{{5, `client key "a" needs key or key_sha256`}}},
		{"both", base + "client_keys: [{name: a, key: k, key_sha256: " + `"` + "00" + `"}]` + "\n",
			[]wantErr{{5, "has both key and key_sha256"}, {5, "key_sha256 must be 64 hex digits"}}},
		{"no name", base + "client_keys: [{key: k}]\n", []wantErr{{5, `missing required key "name"`}}},
		{"unknown route", base + "client_keys: [{name: a, key: k, routes: [nope]}]\n", []wantErr{{5, `client key "a": unknown route "nope"`}}},
		{"duplicate name", base + "client_keys: [{name: a, key: k}, {name: a, key: j}]\n", []wantErr{{5, `duplicate client key name "a"`}}},
		{"same key twice", base + "client_keys: [{name: a, key: k}, {name: b, key: k}]\n", []wantErr{{5, `client key "b" has the same key as "a"`}}},
		{"empty env key", base + "client_keys: [{name: a, key: \"${EMPTY}\"}]\n", []wantErr{{5, `key is empty`}}},
		// Named by its entry, not "client key key:" (operator review 48b).
		{"unset env key", base + "client_keys: [{name: tpm, key: \"${TPM_KEY}\"}]\n", []wantErr{{5, `client key "tpm" key: environment variable "TPM_KEY" is not set`}}},
		{"zero rate", base + "client_keys: [{name: a, key: k, rate: {requests_per_minute: 0}}]\n", []wantErr{{5, "requests_per_minute must be at least 1"}}},
		{"bad budget", base + "client_keys: [{name: a, key: k, budget: {usd_per_day: lots}}]\n", []wantErr{{5, "usd_per_day must be a number of US dollars"}}},
		{"negative budget", base + "client_keys: [{name: a, key: k, budget: {usd_per_month: -1}}]\n", []wantErr{{5, "usd_per_month must be greater than zero"}}},
		// Operator review 60: budget and rate errors named no key, and a
		// budget of 0 (to stop a key) said nothing of what stops one.
		{"zero budget", base + "client_keys: [{name: team-a, key: k, budget: {usd_per_day: 0}}]\n",
			[]wantErr{{5, `client key "team-a" budget usd_per_day must be greater than zero, not "0" (to stop a key, give it disabled: true, or remove it from client_keys)`}}},
		{"zero rate named", base + "client_keys: [{name: team-a, key: k, rate: {tokens_per_minute: 0}}]\n",
			[]wantErr{{5, `client key "team-a" rate tokens_per_minute must be at least 1`}}},
		{"a budget under rate", base + "client_keys: [{name: team-a, key: k, rate: {usd_per_day: 5}}]\n",
			[]wantErr{{5, `unknown key "usd_per_day" in client key "team-a" rate: it goes under a client key's budget`}}},
		{"unknown limit", base + "client_keys: [{name: a, key: k, rate: {rpm: 1}}]\n", []wantErr{{5, `unknown key "rpm" in client key "a" rate`}}},
		{"disabled not a boolean", base + "client_keys: [{name: a, key: k, disabled: yes}]\n", []wantErr{{5, `client key "a" disabled must be true or false, not "yes"`}}},
		{"price without output", "providers: [{name: p, dialect: openai, base_url: \"https://x.test\"}]\ntargets: [{name: t, model: m, providers: [p], price: {input: 1}}]\n",
			[]wantErr{{2, `target price is missing required key "output"`}}},
		{"negative price", "providers: [{name: p, dialect: openai, base_url: \"https://x.test\"}]\ntargets: [{name: t, model: m, providers: [p], price: {input: -1, output: 1}}]\n",
			[]wantErr{{2, `target price input must not be negative, not "-1"`}}},
		{"negative cache_write", "providers: [{name: p, dialect: anthropic, base_url: \"https://x.test\"}]\ntargets:\n  - {name: t, model: m, providers: [p],\n     price: {input: 3, output: 15, cache_write: -3.75}}\n",
			[]wantErr{{4, `target price cache_write must not be negative, not "-3.75"`}}},
		{"cache_write not a number", "providers: [{name: p, dialect: anthropic, base_url: \"https://x.test\"}]\ntargets: [{name: t, model: m, providers: [p], price: {input: 3, output: 15, cache_write: 1.25x}}]\n",
			[]wantErr{{2, `target price cache_write must be a number of US dollars, not "1.25x"`}}},
		{"negative cache_write_1h", "providers: [{name: p, dialect: anthropic, base_url: \"https://x.test\"}]\ntargets: [{name: t, model: m, providers: [p], price: {input: 3, output: 15, cache_write_1h: -6}}]\n",
			[]wantErr{{2, `target price cache_write_1h must not be negative, not "-6"`}}},
		{"cache_write_1h not a number", "providers: [{name: p, dialect: anthropic, base_url: \"https://x.test\"}]\ntargets: [{name: t, model: m, providers: [p], price: {input: 3, output: 15, cache_write_1h: 2x}}]\n",
			[]wantErr{{2, `target price cache_write_1h must be a number of US dollars, not "2x"`}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Parse("c.yaml", []byte(c.yaml), lookup)
			checkErrors(t, err, c.want)
		})
	}
}

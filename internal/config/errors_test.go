package config

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// base is a valid four-line configuration that error cases extend from line 5.
const base = `providers:
  - {name: p, dialect: openai, base_url: "https://x.test/v1"}
targets:
  - {name: t, model: m, providers: [p]}
`

// wantErr is one expected error: its line and a substring of its message.
type wantErr struct {
	line int
	msg  string
}

// checkErrors asserts that err lists exactly want, in order, each as
// "c.yaml:LINE: …msg…".
func checkErrors(t *testing.T, err error, want []wantErr) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want %v", want)
	}
	var es Errors
	if !errors.As(err, &es) {
		t.Fatalf("error %T is not Errors: %v", err, err)
	}
	got := strings.Split(err.Error(), "\n")
	if len(got) != len(want) {
		t.Fatalf("got %d errors, want %d:\n%s", len(got), len(want), err)
	}
	for i, w := range want {
		prefix := "c.yaml:" + strconv.Itoa(w.line) + ": "
		if !strings.HasPrefix(got[i], prefix) || !strings.Contains(got[i], w.msg) {
			t.Errorf("error %d = %q, want prefix %q containing %q", i, got[i], prefix, w.msg)
		}
	}
}

func TestErrors(t *testing.T) {
	env := map[string]string{"EMPTY": "", "NUM": "10", "RE": "(secret"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	cases := []struct {
		name string
		yaml string
		want []wantErr
	}{
		{"unknown top-level key", base + "foo: 1\n",
			[]wantErr{{5, `unknown key "foo" in the top level`}}},
		{"unknown key in flow provider", `providers:
  - {name: p, dialect: openai,
     base_url: "https://x.test", bogus: 1}
targets: [{name: t, model: m, providers: [p]}]
`, []wantErr{{3, `unknown key "bogus" in provider`}}},
		{"unknown key in block route", base + "routes:\n  - name: r\n    targets: [t]\n    fallback: [quota]\n",
			[]wantErr{{8, `unknown key "fallback" in route`}}},
		{"unknown key in health", base + "health: {cooldown: 1s, cool: 2s}\n",
			[]wantErr{{5, `unknown key "cool" in health`}}},
		{"repeated key", base + "listen: :1\nlisten: :2\n",
			[]wantErr{{6, `key "listen" in the top level is repeated (first at line 5)`}}},
		{"target names missing provider", base + "  - {name: u, model: m, providers: [p, nope]}\n",
			[]wantErr{{5, `target "u": unknown provider "nope"`}}},
		{"target lists provider twice", base + "  - {name: u, model: m, providers: [p, p]}\n",
			[]wantErr{{5, `target "u" lists provider "p" twice`}}},
		{"route names missing target", base + "routes:\n  - name: r\n    targets:\n      - t\n      - gone\n",
			[]wantErr{{9, `unknown target or route "gone"`}}},
		{"rule dialect cannot match provider", base + "classify:\n  rules:\n    - {provider: p, dialect: gemini, class: quota}\n",
			[]wantErr{{7, `classify rule dialect gemini can never match provider "p" (dialect openai)`}}},
		{"duplicate provider", `providers:
  - {name: p, dialect: openai, base_url: "https://x.test"}
  - {name: p, dialect: gemini, base_url: "https://y.test"}
targets: [{name: t, model: m, providers: [p]}]
`, []wantErr{{3, `duplicate provider name "p" (first at line 2)`}}},
		{"duplicate target", base + "  - {name: t, model: m2, providers: [p]}\n",
			[]wantErr{{5, `duplicate target name "t" (first at line 4)`}}},
		{"duplicate route", base + "routes:\n  - {name: r, targets: [t]}\n  - {name: r, targets: [t]}\n",
			[]wantErr{{7, `duplicate route name "r" (first at line 6)`}}},
		{"route named like a target", base + "routes:\n  - {name: t, targets: [t]}\n",
			[]wantErr{{6, `route "t" has the name of a target (line 4)`}}},
		{"duration with a space", base + "health: {cooldown: 10 s}\n",
			[]wantErr{{5, `health cooldown: bad duration "10 s"`}}},
		{"negative duration", base + "retry: {max_wait: -1s}\n",
			[]wantErr{{5, `retry max_wait must not be negative`}}},
		{"duration not a duration", base + "alerts: {min_interval: abc}\n",
			[]wantErr{{5, `alerts min_interval: bad duration "abc"`}}},
		{"duration without unit", base + "routes: [{name: r, targets: [t], deadline: 30}]\n",
			[]wantErr{{5, `route deadline: bad duration "30": a unit is required, e.g. 30s`}}},
		{"zero max_stream_duration", base + "routes: [{name: r, targets: [t], max_stream_duration: 0s}]\n",
			[]wantErr{{5, `route max_stream_duration must be greater than zero`}}},
		{"zero timeout", `providers:
  - {name: p, dialect: openai, base_url: "https://x.test", idle_timeout: 0s}
targets: [{name: t, model: m, providers: [p]}]
`, []wantErr{{2, `provider idle_timeout must be greater than zero`}}},
		{"max_cooldown below cooldown", base + "health:\n  cooldown: 1m\n  max_cooldown: 30s\n",
			[]wantErr{{7, `health max_cooldown (30s) is shorter than cooldown (1m0s)`}}},
		{"bad class in fallback_on", base + "routes: [{name: r, targets: [t], fallback_on: [quota, overquota]}]\n",
			[]wantErr{{5, `route fallback_on: unknown class "overquota"`}}},
		{"repeated class in tail_on", base + "routes: [{name: r, targets: [t], tail: [t], tail_on: [quota, quota]}]\n",
			[]wantErr{{5, `route tail_on lists quota twice`}}},
		{"bad class in rule", base + "classify: {rules: [{status: 400, class: spend_cap}]}\n",
			[]wantErr{{5, `classify rule class: unknown class "spend_cap"`}}},
		{"bad dialect", `providers:
  - name: p
    dialect: azure
    base_url: https://x.test
targets: [{name: t, model: m, providers: [p]}]
`, []wantErr{{3, `provider dialect must be one of openai, anthropic, gemini, not "azure"`}}},
		{"bad strategy", base + "routes: [{name: r, strategy: random, targets: [t]}]\n",
			[]wantErr{{5, `route strategy must be one of ordered, fastest, pool, not "random"`}}},
		{"bad regexp", base + "classify:\n  rules:\n    - class: quota\n      match: \"(unclosed\"\n",
			[]wantErr{{8, `classify rule match is not a valid Go regular expression`}}},
		{"bad status", base + "classify: {rules: [{status: [400, 99], class: quota}]}\n",
			[]wantErr{{5, `classify rule status must be an HTTP status from 100 to 599, not "99"`}}},
		{"base_url not a URL", `providers:
  - {name: p, dialect: openai, base_url: api.openai.com}
targets: [{name: t, model: m, providers: [p]}]
`, []wantErr{{2, `provider base_url must be an http:// or https:// URL with a host: it has no scheme (value not shown)`}}},
		{"base_url with query", `providers:
  - {name: p, dialect: openai, base_url: "https://x.test/v1?key=1"}
targets: [{name: t, model: m, providers: [p]}]
`, []wantErr{{2, `provider base_url must not carry a query or fragment`}}},
		{"empty route", base + "routes:\n  - name: r\n    targets: []\n",
			[]wantErr{{7, `route targets is empty`}}},
		{"missing provider fields", "providers:\n  - {name: p}\ntargets: [{name: t, model: m, providers: [p]}]\n",
			[]wantErr{{2, `provider is missing required key "dialect"`}, {2, `provider is missing required key "base_url"`}}},
		{"null route targets", base + "routes:\n  - name: r\n    targets:\n",
			[]wantErr{{7, `route targets is empty`}}},
		{"null target providers", base + "  - {name: u, model: m, providers: ~}\n",
			[]wantErr{{5, `target providers is empty`}}},
		{"null name", base + "  - {name: , model: m, providers: [p]}\n",
			[]wantErr{{5, `target name has no value`}}},
		{"missing target fields", base + "  - name: u\n",
			[]wantErr{{5, `target is missing required key "model"`}, {5, `target is missing required key "providers"`}}},
		{"missing route fields", base + "routes:\n  - strategy: pool\n",
			[]wantErr{{6, `route is missing required key "name"`}, {6, `route is missing required key "targets"`}}},
		{"missing rule class", base + "classify: {rules: [{status: 400}]}\n",
			[]wantErr{{5, `classify rule is missing required key "class"`}}},
		{"no providers or targets", "listen: :8080\n",
			[]wantErr{{1, `no providers`}, {1, `no targets`}}},
		{"empty file", "",
			[]wantErr{{1, `no providers`}, {1, `no targets`}}},
		{"route cycle", base + "routes:\n  - {name: a, targets: [t, b]}\n  - {name: b, targets: [c]}\n  - {name: c, targets: [a]}\n",
			[]wantErr{{8, `route cycle: a -> b -> c -> a`}}},
		{"route refers to itself", base + "routes:\n  - {name: a, targets: [a]}\n",
			[]wantErr{{6, `route cycle: a -> a`}}},
		{"tail without tail_on", base + "routes:\n  - name: r\n    targets: [t]\n    tail: [t]\n",
			[]wantErr{{8, `route "r" has a tail but no tail_on`}}},
		{"null fallback_on", base + "routes:\n  - name: r\n    targets: [t]\n    fallback_on:\n",
			[]wantErr{{8, `route fallback_on has no value: write []`}}},
		{"max_attempts zero", base + "routes: [{name: r, targets: [t], max_attempts: 0}]\n",
			[]wantErr{{5, `route max_attempts must be at least 1, not 0`}}},
		{"max_billable_attempts negative", base + "routes: [{name: r, targets: [t], max_billable_attempts: -1}]\n",
			[]wantErr{{5, `route max_billable_attempts must be at least 0, not -1`}}},
		{"context_window not a number", base + "  - {name: u, model: m, providers: [p], context_window: 128k}\n",
			[]wantErr{{5, `target context_window must be a whole number, not "128k"`}}},
		{"redis without url", base + "state:\n  store: redis\n",
			[]wantErr{{6, `state store redis needs a url`}}},
		{"redis url scheme", base + "state: {store: redis, url: \"http://127.0.0.1:6379\"}\n",
			[]wantErr{{5, `state url must be a redis:// or rediss:// URL`}}},
		{"url with memory", base + "state: {url: \"redis://x:6379\"}\n",
			[]wantErr{{5, `state url is only for store: redis`}}},
		{"bad store", base + "state: {store: etcd}\n",
			[]wantErr{{5, `state store must be one of memory, redis, not "etcd"`}}},
		{"empty decisions path", base + "decisions: {path: \"\"}\n",
			[]wantErr{{5, `decisions path must not be empty`}}},
		{"bad webhook", base + "alerts: {webhook: \"ftp://x\"}\n",
			[]wantErr{{5, `alerts webhook must be an http:// or https:// URL with a host: its scheme is "ftp" (value not shown)`}}},
		{"bad log format and level", base + "log: {format: xml, level: trace}\n",
			[]wantErr{{5, `log format must be one of text, json`}, {5, `log level must be one of debug, info, warn, error`}}},
		{"bad listen", base + "listen: localhost\n",
			[]wantErr{{5, `listen must be host:port`}}},
		{"bad max_body_bytes", base + "max_body_bytes: 8MiB\n",
			[]wantErr{{5, `max_body_bytes must be a whole number of bytes greater than zero`}}},
		{"section of the wrong kind", base + "health: [1, 2]\n",
			[]wantErr{{5, `health must be a mapping of keys to values, not a list`}}},
		{"list of the wrong kind", base + "routes: [{name: r, targets: t}]\n",
			[]wantErr{{5, `route targets must be a list, not a single value`}}},
		{"top-level list of the wrong kind", base + "client_keys: {a: b}\n",
			[]wantErr{{5, `: client_keys must be a list, not a mapping`}}},
		{"name with a space", base + "  - {name: \"my target\", model: m, providers: [p]}\n",
			[]wantErr{{5, `target name must be non-empty without spaces`}}},
		{"reserved header", `providers:
  - name: p
    dialect: openai
    base_url: https://x.test
    headers:
      Host: evil.test
      Bad Name: x
targets: [{name: t, model: m, providers: [p]}]
`, []wantErr{{6, `provider headers: "Host" is set by Detour`}, {7, `provider headers: "Bad …" is not a valid header name: a name and a value run together? (write "Bad: …")`}}},
		{"unset variable", base + "listen: ${NOPE}\n",
			[]wantErr{{5, `: listen: environment variable "NOPE" is not set`}}},
		{"unterminated variable", base + "listen: ${NOPE\n",
			[]wantErr{{5, `: listen: unterminated "${"`}}},
		{"duration from the environment", base + "retry: {max_wait: \"${NUM}\"}\n",
			[]wantErr{{5, `retry max_wait: bad duration (value not shown): a unit is required, e.g. 10s`}}},
		{"yaml syntax error", base + "listen: [a, b\nlog: {}\n",
			[]wantErr{{5, `YAML syntax: did not find expected ',' or ']'`}}},
		{"yaml syntax error on line 1", "- a\nb: c\n",
			[]wantErr{{2, `YAML syntax:`}}},
		{"tab indentation", base + "log:\n\tlevel: info\n",
			[]wantErr{{6, `YAML syntax: found character that cannot start any token`}}},
		{"second document", base + "---\nlisten: :1\n",
			[]wantErr{{5, `a second YAML document`}}},
		{"top level is a list", "- a\n- b\n",
			[]wantErr{{1, `the top level must be a mapping of keys to values, not a list`}}},
		{"merge keys", base + "routes:\n  - &r {name: r, targets: [t]}\n  - {<<: *r, name: r2}\n",
			[]wantErr{{7, `route is missing required key "targets"`}, {7, `route: merge keys (<<) are not supported`}}},
		{"bad store and url", base + "state: {store: etcd, url: \"redis://x:1\"}\n",
			[]wantErr{{5, `state store must be one of memory, redis, not "etcd"`}}},
		{"bad regexp from the environment", base + "classify: {rules: [{match: \"${RE}\", class: quota}]}\n",
			[]wantErr{{5, `classify rule match is not a valid Go regular expression (value not shown)`}}},
		{"many errors, sorted by line", `routes: [{name: r, targets: [nope]}]
providers:
  - {name: p, dialect: openapi, base_url: "https://x.test", timeout: 5}
targets:
  - {name: t, model: m, providers: [q]}
bogus: true
`, []wantErr{
			{1, `unknown target or route "nope"`},
			{3, `provider dialect must be one of openai, anthropic, gemini, not "openapi"`},
			{3, `provider timeout: bad duration "5"`},
			{5, `target "t": unknown provider "q"`},
			{6, `unknown key "bogus" in the top level`},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := Parse("c.yaml", []byte(tc.yaml), lookup)
			if cfg != nil {
				t.Errorf("got a config along with the error")
			}
			checkErrors(t, err, tc.want)
		})
	}
}

func TestBaseIsValid(t *testing.T) {
	if _, err := Parse("c.yaml", []byte(base), nil); err != nil {
		t.Fatal(err)
	}
}

// TestSecretsNeverInErrors puts recognisable secrets in every place an error
// could echo them and checks that none appears.
func TestSecretsNeverInErrors(t *testing.T) {
	env := map[string]string{
		"K1":  "sk-secret-one",
		"DUR": "sk-secret-two",
		"URL": "sk-secret-three",
		"NAM": "sk secret four",
	}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	yaml := `client_keys: [sk-secret-five, {a: sk-secret-six}]
state: {store: redis, url: "sk-secret-seven://host"}
alerts: {webhook: "ftp://sk-secret-eight@x", min_interval: "${DUR}"}
providers:
  - {name: p, dialect: openai, base_url: "${URL}", api_key: [sk-secret-nine], headers: {X-Key: "sk-secret-ten\n"}}
  - {name: "${NAM}", dialect: "${K1}", base_url: "https://x.test", api_key: "${UNSET_KEY}"}
  - {name: q, dialect: openai, base_url: "https://y.test", api_key:sk-secret-eleven}
targets: [{name: t, model: m, providers: ["${NAM}"]}]
`
	_, err := Parse("c.yaml", []byte(yaml), lookup)
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	if n := strings.Count(msg, "\n") + 1; n < 9 {
		t.Errorf("only %d errors; the test means to provoke one per secret:\n%s", n, msg)
	}
	t.Log(msg)
	if strings.Contains(msg, "secret") {
		t.Errorf("a secret is echoed:\n%s", msg)
	}
	if !strings.Contains(msg, `environment variable "UNSET_KEY" is not set`) {
		t.Errorf("the unset variable is not named:\n%s", msg)
	}
}

package config

import (
	"crypto/sha256"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/route"
)

func envLookup(env map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := env[k]; return v, ok }
}

func parseFile(t *testing.T, path string, env map[string]string) (*Config, error) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return Parse(path, data, envLookup(env))
}

var specEnv = map[string]string{
	"DETOUR_CLIENT_KEY":  "client-key",
	"ANTHROPIC_API_KEY":  "anthropic-key",
	"OPENAI_API_KEY":     "openai-key",
	"GEMINI_API_KEY":     "gemini-key",
	"OPENROUTER_API_KEY": "openrouter-key",
}

// TestReferenceExample parses the reference example of docs/config.md (plus the openrouter provider
// its second rule names) and compares every value.
func TestReferenceExample(t *testing.T) {
	cfg, err := parseFile(t, "testdata/spec.yaml", specEnv)
	if err != nil {
		t.Fatal(err)
	}
	want := &Config{
		File:         "testdata/spec.yaml",
		Listen:       "127.0.0.1:8080",
		Clients:      []ClientKey{{Name: "key:8eb943e7", Key: "client-key", Sums: [][32]byte{sha256.Sum256([]byte("client-key"))}}},
		ClientKeys:   []string{"client-key"},
		MaxBodyBytes: 8 << 20,
		State:        State{Store: StoreMemory},
		Decisions:    Decisions{Path: "decisions.jsonl", Sync: SyncNever, Line: 4},
		Alerts:       Alerts{Webhook: "http://127.0.0.1:9000/hook", MinInterval: time.Hour},
		Health: Health{FailureThreshold: 3, Cooldown: 10 * time.Second, MaxCooldown: 5 * time.Minute,
			UnavailableCooldown: 24 * time.Hour, AccountCooldown: time.Hour, RemeasureAfter: 5 * time.Minute},
		Retry: Retry{MaxWait: 3 * time.Second},
		Log:   Log{Format: "text", Level: "info"},
		Rules: []classify.Rule{
			{Dialect: classify.OpenAI, Status: []int{400}, Match: regexp.MustCompile("with this model"), Class: classify.Unknown},
			{Provider: "gemini", Status: []int{400, 403}, Match: regexp.MustCompile("(?i)location is not supported"), Class: classify.Unavailable},
		},
		Providers: []Provider{
			{Name: "anthropic", Dialect: classify.Anthropic, BaseURL: "https://api.anthropic.com", APIKey: "anthropic-key",
				ConnectTimeout: 5 * time.Second, Timeout: 60 * time.Second, FirstTokenTimeout: 15 * time.Second, IdleTimeout: 30 * time.Second},
			{Name: "openai", Dialect: classify.OpenAI, BaseURL: "https://api.openai.com/v1", APIKey: "openai-key",
				ConnectTimeout: 5 * time.Second, Timeout: 60 * time.Second, FirstTokenTimeout: 30 * time.Second, IdleTimeout: 30 * time.Second},
			{Name: "gemini", Dialect: classify.Gemini, BaseURL: "https://generativelanguage.googleapis.com", APIKey: "gemini-key",
				ConnectTimeout: 5 * time.Second, Timeout: 60 * time.Second, FirstTokenTimeout: 30 * time.Second, IdleTimeout: 30 * time.Second},
			{Name: "openrouter", Dialect: classify.OpenAI, BaseURL: "https://openrouter.ai/api/v1", APIKey: "openrouter-key",
				ConnectTimeout: 5 * time.Second, Timeout: 60 * time.Second, FirstTokenTimeout: 30 * time.Second, IdleTimeout: 30 * time.Second,
				Headers: map[string]string{"HTTP-Referer": "https://github.com/detour-llm/detour"}},
		},
		Targets: []Target{
			{Name: "claude", Model: "claude-sonnet-4-5", Providers: []string{"anthropic"}},
			{Name: "gpt", Model: "gpt-4o", Providers: []string{"openai"}, ContextWindow: 128000},
		},
		Routes: []Route{{
			Name: "deep", Strategy: route.Ordered, Targets: []string{"claude", "gpt"},
			FallbackOn: []classify.Class{classify.Timeout, classify.RateLimited, classify.Quota,
				classify.ServerError, classify.Overflow, classify.Unknown},
			FallbackSet: true, MaxAttempts: 6, MaxBillableAttempts: 0, Deadline: 120 * time.Second,
			OnStreamCut: OnCutError, MaxContinuations: DefaultMaxContinuations,
		}},
	}
	want.MaxInflightBodyBytes = 64 << 20 // the default (front.go)
	resolveTables(want)                  // each route's Table, as Parse resolves it
	// Where each entry begins in the file, for `detour check`'s warnings.
	want.Clients[0].Line, want.RuleLines, want.Routes[0].Line = 2, []int{10, 11}, 24
	for i, line := range []int{13, 15, 16, 18} {
		want.Providers[i].Line = line
	}
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("got\n%+v\nwant\n%+v", cfg, want)
	}
	if r, ok := cfg.Route("deep"); !ok || r.Name != "deep" {
		t.Errorf("Route(deep) = %v, %v", r, ok)
	}
	if tg, ok := cfg.Target("gpt"); !ok || tg.ContextWindow != 128000 {
		t.Errorf("Target(gpt) = %v, %v", tg, ok)
	}
	if p, ok := cfg.Provider("gemini"); !ok || p.Dialect != classify.Gemini {
		t.Errorf("Provider(gemini) = %v, %v", p, ok)
	}
	if _, ok := cfg.Route("claude"); ok {
		t.Error("Route(claude) found a target")
	}
}

// TestReferenceExampleVerbatim parses the reference example exactly as printed: its
// second rule names provider "openrouter", which it does not configure; such
// a rule is kept and matches nothing.
func TestReferenceExampleVerbatim(t *testing.T) {
	cfg, err := parseFile(t, "testdata/spec_verbatim.yaml", specEnv)
	if err != nil {
		t.Fatalf("the reference example must parse: %v", err)
	}
	if len(cfg.Rules) != 2 || cfg.Rules[1].Provider != "openrouter" {
		t.Errorf("rules = %+v", cfg.Rules)
	}
}

func TestDefaults(t *testing.T) {
	cfg, err := parseFile(t, "testdata/minimal.yaml", map[string]string{"OPENAI_API_KEY": "k"})
	if err != nil {
		t.Fatal(err)
	}
	want := defaults("testdata/minimal.yaml")
	want.Providers = []Provider{defaultProvider()}
	want.Providers[0].Name, want.Providers[0].Dialect = "openai", classify.OpenAI
	want.Providers[0].BaseURL, want.Providers[0].APIKey = "https://api.openai.com/v1", "k"
	want.Targets = []Target{{Name: "gpt", Model: "gpt-4o", Providers: []string{"openai"}}}
	want.Providers[0].Line = 2
	if !reflect.DeepEqual(cfg, want) {
		t.Errorf("got\n%+v\nwant\n%+v", cfg, want)
	}
	if cfg.Listen != "127.0.0.1:8080" || cfg.MaxBodyBytes != 8<<20 || cfg.Decisions.Path != "-" ||
		cfg.State.Store != StoreMemory || cfg.ClientKeys != nil || cfg.Rules != nil || cfg.Routes != nil {
		t.Errorf("defaults differ from the documented ones: %+v", cfg)
	}

	cfg, err = Parse("r.yaml", []byte(base+"routes: [{name: r, targets: [t]}]\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	r := cfg.Routes[0]
	if r.Strategy != route.Ordered || r.MaxAttempts != 6 || r.MaxBillableAttempts != 0 || r.Deadline != 120*time.Second ||
		r.FallbackSet || r.FallbackOn != nil || r.Tail != nil || r.TailOn != nil {
		t.Errorf("route defaults: %+v", r)
	}
}

// TestFlowAndBlock parses one configuration written in both styles.
func TestFlowAndBlock(t *testing.T) {
	env := map[string]string{"KEY_A": "a", "OPENROUTER_API_KEY": "or"}
	block, err := parseFile(t, "testdata/block.yaml", env)
	if err != nil {
		t.Fatal(err)
	}
	flow, err := parseFile(t, "testdata/flow.yaml", env)
	if err != nil {
		t.Fatal(err)
	}
	flow.File = block.File
	unlined(flow)
	unlined(block)
	if !reflect.DeepEqual(flow, block) {
		t.Errorf("flow\n%+v\nblock\n%+v", flow, block)
	}
	r := block.Routes[0]
	if !r.FallbackSet || len(r.FallbackOn) != 0 || r.Strategy != route.Fastest || r.MaxBillableAttempts != 1 || r.Deadline != 30*time.Second ||
		r.MaxStreamDuration != 10*time.Minute {
		t.Errorf("route: %+v", r)
	}
	p := block.Providers[0]
	if p.BaseURL != "https://openrouter.ai/api/v1" || p.Timeout != 90*time.Second || p.Headers["X-Title"] != "Detour" {
		t.Errorf("provider: %+v", p)
	}
	if !block.State.Equal(State{Store: StoreRedis, URL: "redis://127.0.0.1:6379/0"}) || block.Listen != ":9090" {
		t.Errorf("state, listen: %+v %q", block.State, block.Listen)
	}
	if !reflect.DeepEqual(block.ClientKeys, []string{"a"}) {
		t.Errorf("client keys: %q (the empty ${KEY_B:-} must be dropped)", block.ClientKeys)
	}
}

func TestRouteExpansion(t *testing.T) {
	yaml := `providers: [{name: p, dialect: openai, base_url: "https://x.test"}]
targets:
  - {name: a, model: a, providers: [p]}
  - {name: b, model: b, providers: [p]}
  - {name: c, model: c, providers: [p]}
  - {name: d, model: d, providers: [p]}
routes:
  - {name: all, targets: [cheap, a, fast, d]}
  - {name: cheap, targets: [c, b, c]}
  - {name: fast, strategy: fastest, targets: [b, a]}
  - {name: guarded, targets: [a], tail: [all, a], tail_on: [quota]}
  - {name: none, targets: [d], fallback_on: []}
`
	cfg, err := Parse("c.yaml", []byte(yaml), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][2][]string{
		"all":     {{"c", "b", "a", "d"}, nil},
		"cheap":   {{"c", "b"}, nil},
		"fast":    {{"b", "a"}, nil},
		"guarded": {{"a"}, {"c", "b", "d"}},
		"none":    {{"d"}, nil},
	}
	for name, w := range want {
		r, ok := cfg.Route(name)
		if !ok {
			t.Fatalf("route %s missing", name)
		}
		if !reflect.DeepEqual(r.Targets, w[0]) || !reflect.DeepEqual(r.Tail, w[1]) {
			t.Errorf("route %s: targets %q tail %q, want %q %q", name, r.Targets, r.Tail, w[0], w[1])
		}
	}
	if r, _ := cfg.Route("guarded"); !reflect.DeepEqual(r.TailOn, []classify.Class{classify.Quota}) || r.FallbackSet {
		t.Errorf("guarded: %+v", r)
	}
	if r, _ := cfg.Route("none"); !r.FallbackSet || len(r.FallbackOn) != 0 {
		t.Errorf("fallback_on: [] must be kept as written: %+v", r)
	}
}

// TestRouteCycles checks that every cycle is reported once, at the
// reference that closes it, and that routes outside it are unaffected.
func TestRouteCycles(t *testing.T) {
	yaml := base + `routes:
  - {name: ok, targets: [t, x]}
  - {name: x, targets: [y]}
  - {name: y, targets: [t, x]}
  - {name: self, targets: [self]}
  - {name: user, targets: [t], tail: [x], tail_on: [quota]}
`
	_, err := Parse("c.yaml", []byte(yaml), nil)
	checkErrors(t, err, []wantErr{
		{8, `route cycle: x -> y -> x`},
		{9, `route cycle: self -> self`},
	})
}

func TestExpand(t *testing.T) {
	env := map[string]string{"A": "alpha", "E": "", "D": "x:-y"}
	cases := []struct {
		in, out string
		fromEnv bool
		err     string
	}{
		{in: "plain", out: "plain"},
		{in: "${A}", out: "alpha", fromEnv: true},
		{in: "pre-${A}-post", out: "pre-alpha-post", fromEnv: true},
		{in: "${A}${A}", out: "alphaalpha", fromEnv: true},
		{in: "${UNSET:-fallback}", out: "fallback", fromEnv: true},
		{in: "${UNSET:-}", out: "", fromEnv: true},
		{in: "${E:-empty}", out: "empty", fromEnv: true},
		{in: "${E}", out: "", fromEnv: true},
		{in: "${A:-other}", out: "alpha", fromEnv: true},
		{in: "${D}", out: "x:-y", fromEnv: true},
		{in: "$$", out: "$"},
		{in: "$${A}", out: "${A}"},
		{in: "cost$", out: "cost$"},
		{in: "^a$|b$", out: "^a$|b$"},
		{in: "$A", out: "$A"},
		{in: "${UNSET}", err: `environment variable "UNSET" is not set`},
		{in: "${A", err: `unterminated "${"`},
		{in: "${}", err: "bad environment variable reference"},
		{in: "${1A}", err: "bad environment variable reference"},
		{in: "${A-B}", err: "bad environment variable reference"},
	}
	for _, tc := range cases {
		out, fromEnv, err := expand(tc.in, envLookup(env))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("expand(%q): error %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || out != tc.out || fromEnv != tc.fromEnv {
			t.Errorf("expand(%q) = %q, %v, %v; want %q, %v", tc.in, out, fromEnv, err, tc.out, tc.fromEnv)
		}
	}
}

// TestEnvInConfig checks expansion in values of several kinds and that an
// unset variable is reported at its line, once per use.
func TestEnvInConfig(t *testing.T) {
	yaml := `client_keys: ["${K1}", "${K2:-}", "lit$$eral"]
providers:
  - {name: p, dialect: "${DIALECT:-anthropic}", base_url: "https://${HOST}/v1", api_key: "${KEY}",
     timeout: "${TIMEOUT:-45s}"}
targets: [{name: t, model: "${MODEL:-m}", providers: [p]}]
classify: {rules: [{match: "cap reached$", class: quota}]}
`
	env := map[string]string{"K1": "one", "HOST": "api.test", "KEY": "secret"}
	cfg, err := Parse("c.yaml", []byte(yaml), envLookup(env))
	if err != nil {
		t.Fatal(err)
	}
	p := cfg.Providers[0]
	if p.Dialect != classify.Anthropic || p.BaseURL != "https://api.test/v1" || p.APIKey != "secret" || p.Timeout != 45*time.Second {
		t.Errorf("provider: %+v", p)
	}
	if !reflect.DeepEqual(cfg.ClientKeys, []string{"one", "lit$eral"}) {
		t.Errorf("client keys: %q", cfg.ClientKeys)
	}
	if cfg.Targets[0].Model != "m" || cfg.Rules[0].Match.String() != "cap reached$" {
		t.Errorf("model %q, match %q", cfg.Targets[0].Model, cfg.Rules[0].Match)
	}

	_, err = Parse("c.yaml", []byte(yaml), envLookup(map[string]string{"K1": "one"}))
	checkErrors(t, err, []wantErr{
		{3, `provider base_url: environment variable "HOST" is not set`},
		{3, `provider api_key: environment variable "KEY" is not set`},
	})
}

func TestLoad(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "from-env")
	cfg, err := Load("testdata/minimal.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.File != "testdata/minimal.yaml" || cfg.Providers[0].APIKey != "from-env" {
		t.Errorf("cfg: %+v", cfg)
	}

	missing := filepath.Join(t.TempDir(), "nope.yaml")
	if _, err := Load(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("missing file: %v", err)
	}

	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte(base+"routes: [{name: r, targets: [zz]}]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(bad); err == nil || err.Error() != bad+`:5: unknown target or route "zz"` {
		t.Errorf("bad file: %v", err)
	}
}

// TestAnchors checks that YAML anchors and aliases may be used to share values.
func TestAnchors(t *testing.T) {
	yaml := `providers:
  - {name: p, dialect: openai, base_url: "https://x.test", timeout: &slow 120s, idle_timeout: *slow}
targets: [{name: t, model: m, providers: &ps [p]}, {name: u, model: n, providers: *ps}]
`
	cfg, err := Parse("c.yaml", []byte(yaml), nil)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Providers[0].IdleTimeout != 120*time.Second || !reflect.DeepEqual(cfg.Targets[1].Providers, []string{"p"}) {
		t.Errorf("%+v %+v", cfg.Providers[0], cfg.Targets[1])
	}
}

// TestDocumentMarkers checks that a leading "---" and comments are fine.
func TestDocumentMarkers(t *testing.T) {
	for _, doc := range []string{"---\n" + base, "# comment\n---\n" + base + "...\n", "%YAML 1.1\n---\n" + base} {
		if _, err := Parse("c.yaml", []byte(doc), nil); err != nil {
			t.Errorf("%q: %v", doc, err)
		}
	}
}

// unlined forgets where cfg's entries stand in their file (the Line
// fields), for comparing one configuration written in two styles.
func unlined(cfg *Config) {
	cfg.RuleLines, cfg.Decisions.Line = nil, 0
	for i := range cfg.Providers {
		cfg.Providers[i].Line = 0
	}
	for i := range cfg.Routes {
		cfg.Routes[i].Line = 0
	}
	for i := range cfg.Clients {
		cfg.Clients[i].Line = 0
	}
}

package config

import (
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/policy"
	"github.com/detour-llm/detour/internal/route"
)

// Defaults, as documented in docs/config.md.
const (
	DefaultListen              = "127.0.0.1:8080"
	DefaultMaxBodyBytes        = 8 << 20
	DefaultDecisionsPath       = "-"
	DefaultAlertMinInterval    = time.Hour
	DefaultFailureThreshold    = 3
	DefaultCooldown            = 10 * time.Second
	DefaultMaxCooldown         = 5 * time.Minute
	DefaultUnavailableCooldown = 24 * time.Hour
	DefaultRemeasureAfter      = 5 * time.Minute
	DefaultAccountCooldown     = time.Hour
	DefaultRetryMaxWait        = 3 * time.Second
	DefaultConnectTimeout      = 5 * time.Second
	DefaultTimeout             = 60 * time.Second
	DefaultFirstTokenTimeout   = 30 * time.Second
	DefaultIdleTimeout         = 30 * time.Second
	DefaultMaxAttempts         = 6
	DefaultDeadline            = 120 * time.Second
)

// Config is a whole, validated configuration file.
type Config struct {
	// File is the name the configuration was parsed under (its path for Load).
	File string
	// Listen is the address to serve on.
	Listen string
	// Clients are the accepted client keys (clients.go); empty means no
	// client auth. ClientKeys are their literal keys (not the key_sha256
	// ones), for the scrubber.
	Clients    []ClientKey
	ClientKeys []string
	// MaxBodyBytes caps the size of a client request body.
	MaxBodyBytes int64
	State        State
	Decisions    Decisions
	Alerts       Alerts
	Health       Health
	Retry        Retry
	Log          Log
	// Rules are the operator's classify.rules, checked before the built-in rules.
	// RuleLines[i] is the line Rules[i] begins at in File (for `detour
	// check`'s warnings, file:line); nil for a Config not read from a file.
	RuleLines []int
	Rules     []classify.Rule
	Providers []Provider
	Targets   []Target
	Routes    []Route

	// The front's defences (front.go): browser origins allowed to call,
	// Host names answered beside localhost and IP addresses, the cap on
	// request-body bytes held at once (set from max_body_bytes when not
	// written), and the operator endpoints' own listener ("" = the main
	// one) and keys (none = open).
	CORS                 CORS
	AllowedHosts         []string
	MaxInflightBodyBytes int64
	AdminListen          string
	AdminKeys            []string
	// Console and Tracing are the operator console and OpenTelemetry
	// traces; their zero values are the defaults.
	Console Console
	Tracing Tracing
}

// Store names where shared state (health, alert throttling) lives.
type Store string

// The state stores.
const (
	StoreMemory Store = "memory"
	StoreRedis  Store = "redis"
)

// Decisions is where decision records go.
type Decisions struct {
	// Path is a file to append JSON lines to; "-" is stdout.
	Path string
	// Sync is SyncNever (records buffered, written at least every 200ms)
	// or SyncAlways (each record written and fsynced before its response).
	Sync string
	// Line is the line of path in the file (0: not written), for the
	// errors of opening it.
	Line int
}

// Equal reports whether d and o write the same log the same way: where
// the lines stand in their files is no part of it.
func (d Decisions) Equal(o Decisions) bool {
	return d.Path == o.Path && d.Sync == o.Sync
}

// The values of decisions.sync.
const (
	SyncNever  = "never"
	SyncAlways = "always"
)

// Alerts configures operator alerts for quota and auth verdicts.
type Alerts struct {
	// Webhook is an http(s) URL to POST alerts to; "" disables alerts.
	Webhook string
	// MinInterval is the least time between two alerts for one provider and class.
	MinInterval time.Duration
}

// Health configures endpoint and account health.
type Health struct {
	// FailureThreshold is how many consecutive counted failures cool an endpoint.
	FailureThreshold int
	// Cooldown is the first cooldown of an endpoint; it doubles up to MaxCooldown.
	Cooldown    time.Duration
	MaxCooldown time.Duration
	// UnavailableCooldown is the cooldown after an unavailable verdict.
	UnavailableCooldown time.Duration
	// AccountCooldown is the cooldown of a provider account after quota or auth.
	AccountCooldown time.Duration
	// RemeasureAfter is the age past which a latency sample is taken again
	// (a fastest route sends one request to that target).
	RemeasureAfter time.Duration
}

// Retry configures retries on the same endpoint.
type Retry struct {
	// MaxWait is the longest Retry-After worth waiting for on the same endpoint.
	MaxWait time.Duration
}

// Log configures the gateway's own log.
type Log struct {
	Format string // "text" or "json"
	Level  string // "debug", "info", "warn" or "error"
}

// Provider is one account at one API.
type Provider struct {
	// Line is the line the entry begins at in its file (0: not from a
	// file), for `detour check`'s warnings; it is no part of what the
	// provider is.
	Line    int
	Name    string
	Dialect classify.Dialect
	// BaseURL is an http(s) URL without a trailing slash.
	BaseURL string
	// APIKey may be empty (e.g. a local server that needs none).
	APIKey            string
	ConnectTimeout    time.Duration
	Timeout           time.Duration // until response headers
	FirstTokenTimeout time.Duration // streams: headers to first content
	IdleTimeout       time.Duration // streams: gap between chunks
	// Headers are extra request headers (e.g. OpenRouter's HTTP-Referer); nil when none.
	Headers map[string]string
	// Responses says the provider serves OpenAI's Responses API at
	// {base_url}/responses, so a /v1/responses request reaches it as the
	// client sent it (docs/config.md). Only an openai-dialect provider may
	// set it; false by default.
	Responses bool
	// Completions says the provider serves OpenAI's legacy Completions API
	// at {base_url}/completions, so a /v1/completions request reaches it as
	// the client sent it (docs/config.md); a provider without it is never
	// sent one. Only an openai-dialect provider may set it; false by
	// default.
	Completions bool
}

// Target is one model, reachable through one or more providers, in order.
type Target struct {
	Name      string
	Model     string
	Providers []string
	// ContextWindow is the model's declared context window in tokens; 0 = not declared.
	ContextWindow int
	// Price is the model's price (clients.go); nil = not declared.
	Price *Price
	// Prefill is the target's prefill option; nil = the dialect's default
	// (AcceptsPrefill, continuation.go).
	Prefill *bool
	// Dimensions is the size of the embedding vectors the target answers;
	// 0 = not declared (embeddings.go).
	Dimensions int
}

// Route is what a client names in `model`.
type Route struct {
	// Line is the line the entry begins at in its file (0: not from a
	// file), for `detour check`'s warnings.
	Line     int
	Name     string
	Strategy route.Strategy
	// Targets are target names: routes listed by name are expanded inline,
	// duplicates dropped (first occurrence kept).
	Targets []string
	// FallbackOn replaces the strategy's default next-target classes; it is
	// meaningful only when FallbackSet.
	FallbackOn  []classify.Class
	FallbackSet bool
	// Tail are target names tried after Targets, only for a class in TailOn.
	// Routes are expanded; names already in Targets are dropped.
	Tail                []string
	TailOn              []classify.Class
	MaxAttempts         int
	MaxBillableAttempts int // 0 = no cap
	// Deadline bounds the request until its answer begins: a non-stream
	// answer in whole, a stream until its first content reaches the client.
	Deadline time.Duration
	// MaxStreamDuration bounds a committed stream from its first content;
	// 0 = none (idle_timeout still ends a stalled one).
	MaxStreamDuration time.Duration
	// OnStreamCut is OnCutError or OnCutContinue; MaxContinuations caps
	// continuations of one stream (continuation.go).
	OnStreamCut      string
	MaxContinuations int
	// Table is what every class does in this route, resolved once at load
	// from Strategy, FallbackOn, TailOn and the health settings. Dispatch and
	// `detour check` read only it (docs/design.md, "One table per route").
	Table *policy.Table
}

// Route returns the route named name.
func (c *Config) Route(name string) (*Route, bool) {
	for i := range c.Routes {
		if c.Routes[i].Name == name {
			return &c.Routes[i], true
		}
	}
	return nil, false
}

// Target returns the target named name.
func (c *Config) Target(name string) (*Target, bool) {
	for i := range c.Targets {
		if c.Targets[i].Name == name {
			return &c.Targets[i], true
		}
	}
	return nil, false
}

// Provider returns the provider named name.
func (c *Config) Provider(name string) (*Provider, bool) {
	for i := range c.Providers {
		if c.Providers[i].Name == name {
			return &c.Providers[i], true
		}
	}
	return nil, false
}

// defaults returns a Config with every default filled in and no providers,
// targets, routes or rules.
func defaults(file string) *Config {
	return &Config{
		File:         file,
		Listen:       DefaultListen,
		MaxBodyBytes: DefaultMaxBodyBytes,
		State:        State{Store: StoreMemory},
		Decisions:    Decisions{Path: DefaultDecisionsPath, Sync: SyncNever},
		Alerts:       Alerts{MinInterval: DefaultAlertMinInterval},
		Health: Health{
			FailureThreshold:    DefaultFailureThreshold,
			Cooldown:            DefaultCooldown,
			MaxCooldown:         DefaultMaxCooldown,
			UnavailableCooldown: DefaultUnavailableCooldown,
			AccountCooldown:     DefaultAccountCooldown,
			RemeasureAfter:      DefaultRemeasureAfter,
		},
		Retry: Retry{MaxWait: DefaultRetryMaxWait},
		Log:   Log{Format: "text", Level: "info"},

		MaxInflightBodyBytes: DefaultMaxInflightBodyBytes, // raised to max_body_bytes (front.go)
	}
}

func defaultProvider() Provider {
	return Provider{
		ConnectTimeout:    DefaultConnectTimeout,
		Timeout:           DefaultTimeout,
		FirstTokenTimeout: DefaultFirstTokenTimeout,
		IdleTimeout:       DefaultIdleTimeout,
	}
}

func defaultRoute() Route {
	return Route{Strategy: route.Ordered, MaxAttempts: DefaultMaxAttempts, Deadline: DefaultDeadline,
		OnStreamCut: OnCutError, MaxContinuations: DefaultMaxContinuations}
}

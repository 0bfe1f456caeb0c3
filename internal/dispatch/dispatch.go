package dispatch

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"net/http"
	"sort"
	"sync/atomic"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/metrics"
	"github.com/detour-llm/detour/internal/policy"
	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/anthropic"
	"github.com/detour-llm/detour/internal/provider/gemini"
	"github.com/detour-llm/detour/internal/provider/openai"
	"github.com/detour-llm/detour/internal/route"
	"github.com/detour-llm/detour/internal/signkey"
)

// Notifier pages the operator (package alert implements it).
type Notifier interface {
	// NotifyUntil pages for provider's class, with the evidence, the
	// upstream's words (the client's masked; "" for none) and when the
	// cooldown it began ends (zero: not said).
	NotifyUntil(provider, class, evidence, said string, until time.Time)
	// Recovered says provider's account, paged for class, answered a
	// request for target again at at, out since since (zero: not known).
	Recovered(provider, class, target string, since, at time.Time)
}

// Options wire a Dispatcher. Config and Health are required; every other nil
// field means "none" (no decision log, no metrics, no alerts, slog.Default).
type Options struct {
	Config     *config.Config
	Health     *health.Tracker
	Classifier *classify.Classifier
	Decisions  decision.Sink
	Metrics    *metrics.Metrics
	Alerts     Notifier
	Logger     *slog.Logger
	// Backoff is the wait before retrying a server error on the same
	// endpoint; nil means 100–300ms, jittered.
	Backoff func() time.Duration
	// ScrubForClient removes secrets from a message before the client reads
	// it; sent is the client's request body (see redact.Scrubber.ForClient).
	// Nil leaves messages as they are.
	ScrubForClient func(msg string, sent []byte) string
	// CutForClient cuts an upstream's text at at, never through a secret
	// it holds whole (redact.Scrubber.Cut): the cut before a message is
	// read (messageOf). nil cuts as asked.
	CutForClient func(text []byte, at int) []byte
	// ScrubForHealth removes secrets from the upstream's words health
	// keeps for a cooldown (GET /v1/health, which anyone who reaches the
	// gateway may read): every fragment of a key, every address, the
	// operator's account ids. Nil: health keeps no words.
	ScrubForHealth func(msg string) string
	// Signing holds the keys the Gemini thought signatures handed to
	// clients are sealed with (provider.Seal); nil carries none.
	Signing *signkey.Ring
	// Stop, when done, ends every request in flight: the shutdown grace
	// period is over. A committed stream ends with its Output's Fail, any other
	// request a 503 Failure; the record's outcome is "shutdown". nil: never.
	Stop context.Context
	// RecordFirst asks the front to file each record before it writes the
	// answer (Dispatcher.RecordFirst): the decision log promises a record
	// for every answer (decisions: {sync: always}). false: after.
	RecordFirst bool
}

// Dispatcher serves requests for one configuration. It is safe for
// concurrent use; build a new one to apply a new configuration.
type Dispatcher struct {
	opt     Options
	log     *slog.Logger
	cls     *classify.Classifier
	dec     decision.Sink
	routes  map[string]*routeRT
	names   []string // every name a client may send, sorted
	rr      atomic.Uint64
	maxWait time.Duration
	// inflight ends the requests in flight when opt.Stop is done (shutdown.go).
	inflight inflight
	// call makes one upstream call (upstreamCall; a fake in unit tests).
	call caller
}

type providerRT struct {
	cfg     *config.Provider
	adapter provider.Adapter
	client  *http.Client
	gate    *dialGate // one dial at a time while the pool has no room (dialgate.go)
	// cappedAt is when a count of this provider's was last logged as
	// past what its answer could have used (unix seconds): one line a
	// minute, however many answers (ceiling.go).
	cappedAt atomic.Int64
}

type endpointRT struct {
	key    health.Key
	prov   *providerRT
	target *targetRT
	ep     provider.Endpoint
	// answers counts the successes this replica heard from the endpoint,
	// excused the whole answers' timeouts they excused; firsts counts its
	// streams that reached their first content, firstExcused the streams'
	// first-token timeouts they excused (lengthy): one excuses one timeout
	// of an attempt that spans it.
	answers, excused      atomic.Int64
	firsts, firstsExcused atomic.Int64
}

type targetRT struct {
	cfg       *config.Target
	endpoints []*endpointRT
	inflight  atomic.Int64
}

type routeRT struct {
	name     string
	strategy route.Strategy
	cfg      *config.Route
	// table is what each class does here (cfg.Table): the walk's only
	// source of routing decisions.
	table   *policy.Table
	targets []*targetRT
	tail    []*targetRT
	keys    []health.Key // every endpoint of targets then tail, for one health View
}

// New builds a Dispatcher for o.Config.
func New(o Options) (*Dispatcher, error) {
	cfg := o.Config
	d := &Dispatcher{opt: o, log: o.Logger, cls: o.Classifier, dec: o.Decisions, routes: map[string]*routeRT{}, call: upstreamCall}
	if d.log == nil {
		d.log = slog.Default()
	}
	if d.dec == nil {
		d.dec = decision.Discard
	}
	if d.opt.Backoff == nil {
		d.opt.Backoff = func() time.Duration { return 100*time.Millisecond + rand.N(200*time.Millisecond) }
	}
	if d.opt.CutForClient == nil {
		d.opt.CutForClient = func(text []byte, at int) []byte { return text[:min(at, len(text))] }
	}
	if d.opt.ScrubForClient == nil {
		d.opt.ScrubForClient = func(msg string, _ []byte) string { return msg }
	}
	d.maxWait = cfg.Retry.MaxWait

	provs := map[string]*providerRT{}
	for i := range cfg.Providers {
		p := &cfg.Providers[i]
		a := adapterFor(p)
		if a == nil {
			return nil, fmt.Errorf("provider %s: no adapter for dialect %q", p.Name, p.Dialect)
		}
		provs[p.Name] = &providerRT{cfg: p, adapter: a, client: newClient(p), gate: newDialGate(p.BaseURL, holderDial(p.ConnectTimeout))}
	}
	targets := map[string]*targetRT{}
	for i := range cfg.Targets {
		t := &cfg.Targets[i]
		rt := &targetRT{cfg: t}
		for _, pn := range t.Providers {
			p := provs[pn]
			if p == nil {
				return nil, fmt.Errorf("target %s: unknown provider %q", t.Name, pn)
			}
			rt.endpoints = append(rt.endpoints, &endpointRT{
				key: health.Key{Target: t.Name, Provider: pn}, prov: p, target: rt,
				ep: provider.Endpoint{BaseURL: p.cfg.BaseURL, APIKey: p.cfg.APIKey, Model: t.Model, Account: p.cfg.Name, Signing: o.Signing},
			})
		}
		targets[t.Name] = rt
	}
	build := func(r *config.Route) (*routeRT, error) {
		rt := &routeRT{name: r.Name, strategy: r.Strategy, cfg: r, table: r.Table}
		if rt.table == nil {
			return nil, fmt.Errorf("route %s: no table (build the configuration with config.Parse)", r.Name)
		}
		for _, list := range []struct {
			names []string
			dst   *[]*targetRT
		}{{r.Targets, &rt.targets}, {r.Tail, &rt.tail}} {
			for _, n := range list.names {
				t := targets[n]
				if t == nil {
					return nil, fmt.Errorf("route %s: unknown target %q", r.Name, n)
				}
				*list.dst = append(*list.dst, t)
				for _, e := range t.endpoints {
					rt.keys = append(rt.keys, e.key)
				}
			}
		}
		return rt, nil
	}
	for i := range cfg.Routes {
		rt, err := build(&cfg.Routes[i])
		if err != nil {
			return nil, err
		}
		d.routes[rt.name] = rt
	}
	// A client may name a target directly: an ordered route of that target alone.
	for i := range cfg.Targets {
		t := &cfg.Targets[i]
		if _, taken := d.routes[t.Name]; taken {
			continue
		}
		rt, err := build(cfg.DirectRoute(t))
		if err != nil {
			return nil, err
		}
		d.routes[t.Name] = rt
	}
	for n := range d.routes {
		d.names = append(d.names, n)
	}
	sort.Strings(d.names)
	return d, nil
}

func adapterFor(p *config.Provider) provider.Adapter {
	switch p.Dialect {
	case classify.OpenAI:
		return openai.Adapter{Responses: p.Responses, Completions: p.Completions}
	case classify.Anthropic:
		return anthropic.Adapter{}
	case classify.Gemini:
		return gemini.Adapter{}
	}
	return nil
}

// maxResponseHeader bounds an upstream's response headers (net/http's
// default is 10 MiB; no provider sends more than a few KiB).
const maxResponseHeader = 1 << 20

// upstreamBuffer sizes each upstream connection's read and write buffers
// (net/http's default is 4 KiB each). A connection keeps both for its whole
// life, so every open stream holds them (docs/benchmarks.md#overhead-beside-a-plain-reverse-proxy-benchcmdoverhead). 2 KiB
// holds a request's headers and a small body in one write, and a
// provider's response headers in one read; a larger body or answer is
// copied past the buffer, not through it.
const upstreamBuffer = 2 << 10

// newClient is one connection pool per provider account. Its only timeout is
// connect_timeout; the others are watched per attempt (see watchdog).
func newClient(p *config.Provider) *http.Client {
	dialer := &net.Dialer{Timeout: p.ConnectTimeout, KeepAlive: 30 * time.Second}
	return &http.Client{
		Transport: &http.Transport{
			Proxy:                  proxy, // the environment's, after the dial gate (dialgate.go)
			DialContext:            dialer.DialContext,
			TLSHandshakeTimeout:    p.ConnectTimeout,
			ForceAttemptHTTP2:      true,
			MaxIdleConns:           1024,
			MaxIdleConnsPerHost:    256,
			IdleConnTimeout:        90 * time.Second,
			ExpectContinueTimeout:  time.Second,
			MaxResponseHeaderBytes: maxResponseHeader,
			WriteBufferSize:        upstreamBuffer,
			ReadBufferSize:         upstreamBuffer,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// RecordFirst reports whether a request's record must be filed before its
// answer is written (Options.RecordFirst).
func (d *Dispatcher) RecordFirst() bool { return d.opt.RecordFirst }

// holderDial is the longest a dial gate's holder can be dialing: the TCP
// connect and the TLS handshake, connect_timeout each, and a margin. A
// waiter waits that long for a holder at most, so that it never gives up
// on one that will still answer for it (dialgate.go).
func holderDial(connect time.Duration) time.Duration {
	return 2*connect + 250*time.Millisecond
}

// Known reports whether a client may name model.
func (d *Dispatcher) Known(model string) bool {
	_, ok := d.routes[model]
	return ok
}

// Names returns every route and target name a client may send, sorted.
func (d *Dispatcher) Names() []string { return d.names }

// Close releases idle upstream connections. Requests in flight finish (and
// still end when Options.Stop is done); the connections they used are
// released when the last of them ends. Before, each went back to the pool
// of a Dispatcher nobody would use again and stayed open there, with its
// two goroutines, for IdleConnTimeout: a reload storm under traffic piled
// them up (review 38c).
func (d *Dispatcher) Close() {
	d.inflight.close(d.closeIdle)
	d.closeIdle()
}

// closeIdle closes the idle connections of every provider's pool.
func (d *Dispatcher) closeIdle() {
	seen := map[*http.Client]bool{}
	for _, r := range d.routes {
		for _, t := range append(append([]*targetRT{}, r.targets...), r.tail...) {
			for _, e := range t.endpoints {
				if !seen[e.prov.client] {
					seen[e.prov.client] = true
					e.prov.client.CloseIdleConnections()
				}
			}
		}
	}
}

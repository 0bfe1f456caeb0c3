package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/alert"
	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/console"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/dispatch"
	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/inprogress"
	"github.com/detour-llm/detour/internal/limit"
	"github.com/detour-llm/detour/internal/metrics"
	"github.com/detour-llm/detour/internal/redact"
	"github.com/detour-llm/detour/internal/server"
	"github.com/detour-llm/detour/internal/signkey"
	"github.com/detour-llm/detour/internal/tracing"
)

// Options adjust an App; the zero value is the production setup.
type Options struct {
	// Logger; nil means slog.Default().
	Logger *slog.Logger
	// Decisions, when set, receives decision records instead of the
	// configured decisions.path.
	Decisions decision.Sink
	// Backoff overrides the dispatcher's server-error retry backoff (tests).
	Backoff func() time.Duration
	// Clock is the clock of client limits' windows (docs/config.md,
	// client_keys); nil means time.Now (tests turn the day with it).
	Clock func() time.Time
	// ReadHeaderTimeout and ReadTimeout override how long a client may take
	// to send its request headers (10s), and its whole request, body
	// included (60s); zero keeps the default (tests shorten them).
	ReadHeaderTimeout, ReadTimeout time.Duration
}

// The client-side read limits of every listener: a client that trickles its
// headers or its body (slowloris) is cut off, and the body allowance it
// held is given back (docs/security.md).
const (
	DefaultReadHeaderTimeout = 10 * time.Second
	DefaultReadTimeout       = 60 * time.Second
)

// MaxHeaderBytes bounds a request's headers (net/http's default is 1 MiB):
// they are read before any key is checked and held while a client trickles
// them, so one anonymous connection could hold a MiB for the header
// timeout (review 30f). The SDKs and CLIs send under 4 KiB; nginx takes
// 32 KiB by default.
const MaxHeaderBytes = 64 << 10

// App is one running Detour process.
type App struct {
	spent spentCache // what the decision log said each client spent (budgets.go)
	// refusal is the last reload refused and why, which the console shows
	// while the server says a reload was refused since (reload.go).
	refusal atomic.Pointer[console.Refusal]
	Server  *server.Server
	Metrics *metrics.Metrics
	opt     Options
	log     *slog.Logger
	store   health.Store
	claimer alert.Claimer
	rdb     redis.UniversalClient
	signing *signkey.Ring  // seals the Gemini thought signatures clients hold (signing.go)
	limits  *limit.Limiter // client keys' rates and budgets, shared across reloads
	dec     decision.Sink
	writer  *decision.Writer
	alerts  *alert.Notifier
	mu      sync.Mutex // serializes Reload
	cfg     *config.Config
	// gen counts the configurations built (state); retired is what each
	// reload changed, for the trackers of earlier ones (reforget.go).
	gen     uint64
	retired health.Retirements
	// scrub is the scrubber of the configuration being served; rules are
	// what it removes (see scrubFor).
	scrub redact.Current
	rules redact.Rules
	// stop ends every request still in flight when the shutdown grace
	// period is over (every dispatcher, reloaded or not, watches it).
	stop    context.Context
	stopNow context.CancelFunc
	// hurry ends the grace period early (Hurry: an operator's second
	// signal); its drains then end what is in flight as at the grace's end.
	hurry    context.Context
	hurryNow context.CancelFunc
	// Console is the operator console at /ui; nil when disabled.
	Console *console.Console
	tracer  *tracing.Tracer
	// started is when New began: the decision log's records of requests
	// that ended before it are an earlier process's. priorGiven are the
	// budget windows given their spend from before then, and prior that
	// spend, read once (budgetreload.go); under mu.
	started    time.Time
	priorGiven map[windowKey]bool
	prior      map[string][2]float64
	// epoch watches Redis for a loss of the budgets' state (epoch.go);
	// nil without Redis.
	epoch *epochWatch
}

// finalWrite is how long requests ended at the end of the grace period
// have to write their last words (an SSE error event, a 503) before their
// connections are closed.
const finalWrite = 2 * time.Second

// New builds an App for cfg.
func New(cfg *config.Config, opt Options) (*App, error) {
	a := &App{opt: opt, log: opt.Logger, Metrics: metrics.New(), cfg: cfg, started: time.Now()}
	a.stop, a.stopNow = context.WithCancel(context.Background())
	a.hurry, a.hurryNow = context.WithCancel(context.Background())
	if a.log == nil {
		a.log = slog.Default()
	}
	// Every log line of the process is scrubbed (docs/design.md, "Operator secrets").
	sc, rules := a.scrubFor(cfg)
	a.use(sc, rules)
	a.log = slog.New(redact.Handler(a.log.Handler(), &a.scrub))
	switch cfg.State.Store {
	case config.StoreRedis:
		// One server, a cluster or a Sentinel-managed primary, with short
		// timeouts and no retries of its own (see health.NewRedisClient).
		rdb, err := health.NewRedisClient(health.RedisConfig{URL: cfg.State.URL, Cluster: cfg.State.Cluster,
			SentinelMaster: cfg.State.Sentinel.Master, Sentinels: cfg.State.Sentinel.Addrs,
			Username: cfg.State.Username, Password: cfg.State.Password, Timeout: cfg.State.Timeout})
		if err != nil {
			return nil, fmt.Errorf("state: %v", err)
		}
		if cfg.State.URL != "" && clusterNode(rdb, cfg.State.Timeout) {
			_ = rdb.Close()
			return nil, errors.New("state.url: the Redis there is a node of a Redis Cluster, which refuses every key another node holds (MOVED): nothing would be shared; list the cluster's nodes under state.cluster instead (docs/scale.md)")
		}
		// go-redis logs through its own global logger, in its own format, on
		// every failed dial; the store logs an outage once. Keep go-redis's
		// lines, in the configured format, at debug level.
		redis.SetLogger(redisLogger{a.log.With("component", "redis")})
		a.rdb = rdb
		rs := health.NewRedis(a.rdb, "detour:", a.log)
		rs.SetTimeout(cfg.State.Timeout)
		a.store, a.claimer = rs, rs
		// Client keys' windows and budgets count by Redis's clock too, so
		// replicas whose clocks differ fill the same minute (docs/scale.md,
		// "One clock").
		clock := opt.Clock
		if clock == nil {
			clock = rs.Now
		}
		lr := limit.NewRedis(a.rdb, "detour:", a.log, clock)
		lr.SetTimeout(cfg.State.Timeout)
		a.limits = limit.New(lr, clock)
	default:
		m := health.NewMemory()
		a.store, a.claimer = m, m
		a.limits = limit.New(limit.NewMemory(opt.Clock), opt.Clock)
		a.restoreBudgets(cfg, a.limits, a.limits.Now())
	}
	a.givenAtStart(cfg)
	var signingShared bool
	a.signing, signingShared = signingKeys(a.rdb, cfg.State.Timeout, a.log)
	a.dec = opt.Decisions
	if a.dec == nil {
		w, err := decision.Open(cfg.Decisions.Path, decision.Options{Sync: cfg.Decisions.Sync == config.SyncAlways, Logger: a.log})
		if err != nil {
			// The path is not shown: it may have come from the
			// environment, whose values an error never echoes.
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return nil, &config.Error{File: cfg.File, Line: cfg.Decisions.Line,
				Msg: fmt.Sprintf("decisions.path: cannot open it: %v (create its directory, or change decisions.path)", err)}
		}
		a.writer, a.dec = w, w
		a.Metrics.CountDecisionsDropped(w.Dropped)
	}
	if err := a.observe(cfg); err != nil {
		a.Close(context.Background())
		return nil, err
	}
	every := cfg.Alerts.MinInterval
	if every == 0 { // docs/config.md: 0 sends every one (the notifier's zero is its default hour)
		every = -1
	}
	a.alerts = alert.New(alert.Config{Webhook: cfg.Alerts.Webhook, MinInterval: every,
		Claimer: a.claimer, Logger: a.log, Metrics: a.Metrics, Scrub: a.scrub.String,
		Replica: replicaName(cfg.Listen), Loaded: a.loadedAt})
	st, err := a.state(cfg, sc)
	if err != nil {
		a.Close(context.Background())
		return nil, err
	}
	a.Metrics.Retain(served(st))
	var progress *inprogress.Set
	if a.Console != nil {
		progress = a.Console.InProgress()
	}
	a.Server = server.New(st, a.Metrics, a.log, progress)
	a.Metrics.ReadLimits(a.limitUse)
	a.Metrics.ConfigLoaded(true, time.Now())
	a.mount()
	if a.rdb != nil {
		a.watchEpoch(cfg, cfg.State.Timeout)
		a.watchSigning(cfg.State.Timeout, signingShared)
		if rs, ok := a.store.(*health.RedisStore); ok {
			// What another replica changed in a record this one holds
			// open is read within seconds (health.RedisStore.Refresh).
			go a.every(refreshEvery, func() { rs.Refresh(a.stop) })
		}
	}
	return a, nil
}

// state builds the served state of cfg over the process's shared parts;
// sc is the scrubber of cfg.
func (a *App) state(cfg *config.Config, sc *redact.Scrubber) (*server.State, error) {
	var keys []health.Key
	for _, t := range cfg.Targets {
		for _, p := range t.Providers {
			keys = append(keys, health.Key{Target: t.Name, Provider: p})
		}
	}
	h := cfg.Health
	// No cooldown this configuration starts is longer: a record read with
	// a longer one (an earlier configuration's) is bounded by it
	// (docs/behaviour.md, "Health").
	longest := max(h.Cooldown, h.MaxCooldown, h.UnavailableCooldown, h.AccountCooldown)
	tr := health.New(a.store, health.Settings{FailureThreshold: h.FailureThreshold,
		Cooldown: h.Cooldown, MaxCooldown: h.MaxCooldown, Longest: longest, RemeasureAfter: h.RemeasureAfter}, keys, nil)
	tr.Define(definitions(cfg))
	tr.AccountForgotten = func(ctx context.Context, provider string) { // a reset or a new key: the next failure pages
		a.alerts.Rearm(ctx, provider, classNames)
	}
	a.gen++
	tr.Generation(&a.retired, a.gen)
	d, err := dispatch.New(dispatch.Options{Config: cfg, Health: tr, Classifier: &classify.Classifier{Rules: cfg.Rules},
		Decisions: a.dec, Metrics: a.Metrics, Alerts: a.alerts, Logger: a.log, Backoff: a.opt.Backoff,
		ScrubForClient: sc.ForClient, CutForClient: sc.Cut, ScrubForHealth: healthScrubber(sc), Stop: a.stop, RecordFirst: a.writer != nil && a.writer.Synced(),
		Signing: a.signing})
	if err != nil {
		return nil, err
	}
	a.retired.Serve(longest) // this configuration is served from here on
	return &server.State{Config: cfg, Dispatcher: d, Health: tr, Limits: a.limits}, nil
}

// limitUse is every configured client key's use of its limits, for
// metrics, read from the limits' counters at a scrape.
func (a *App) limitUse(ctx context.Context) []metrics.LimitUse {
	cfg := a.Server.Current().Config
	var out []metrics.LimitUse
	for i := range cfg.Clients {
		k := &cfg.Clients[i]
		for _, s := range a.limits.Standings(ctx, k) {
			out = append(out, metrics.LimitUse{Client: k.Name, Limit: s.Limit, Used: s.Used, Cap: s.Cap})
		}
	}
	return out
}

// served names what st serves, for metrics.
func served(st *server.State) metrics.Served {
	s := metrics.Served{Routes: st.Dispatcher.Names()}
	s.Limits = map[string][]string{}
	for _, k := range st.Config.Clients {
		s.Clients = append(s.Clients, k.Name)
		s.Limits[k.Name] = limit.LimitNames(&k)
	}
	for _, p := range st.Config.Providers {
		s.Providers = append(s.Providers, p.Name)
	}
	for _, t := range st.Config.Targets {
		s.Targets = append(s.Targets, t.Name)
		for _, p := range t.Providers {
			s.Endpoints = append(s.Endpoints, metrics.Endpoint{Target: t.Name, Provider: p})
		}
	}
	return s
}

// Logger is the process's logger: every line it writes is scrubbed with
// the scrubber of the configuration being served.
func (a *App) Logger() *slog.Logger { return a.log }

// Serve serves on ln until ctx ends, then stops accepting, lets requests and
// streams in flight finish for up to grace, and returns. Requests still in
// flight then are ended by the gateway, not dropped: a committed stream gets
// an SSE error event, any other request a 503 (code "shutdown"), and each
// decision record says outcome "shutdown"; their connections are closed
// finalWrite later at the latest.
func (a *App) Serve(ctx context.Context, ln net.Listener, grace time.Duration) error {
	return a.serve(ctx, ln, grace, a.Server)
}

// ServeAdmin serves the operator endpoints (/metrics, /v1/health) on ln, the
// admin_listen listener, as Serve does the API. Without admin_listen in the
// configuration the API listener serves them and this serves only 404s.
func (a *App) ServeAdmin(ctx context.Context, ln net.Listener, grace time.Duration) error {
	return a.serve(ctx, ln, grace, a.Server.Admin())
}

func (a *App) serve(ctx context.Context, ln net.Listener, grace time.Duration, h http.Handler) error {
	srv := &http.Server{
		Handler:           a.wrap(h),
		ReadHeaderTimeout: cmp.Or(a.opt.ReadHeaderTimeout, DefaultReadHeaderTimeout),
		ReadTimeout:       cmp.Or(a.opt.ReadTimeout, DefaultReadTimeout), // a slow client upload cannot hold a connection forever
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    MaxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(a.log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	a.Server.Drain() // the health check says so where it is still served (admin_listen)
	a.log.Info("shutting down: draining requests in flight", "addr", ln.Addr().String(), "grace", grace.String())
	sctx, cancel := context.WithTimeout(a.hurry, grace)
	defer cancel()
	err := srv.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		why := "grace period over"
		if a.hurry.Err() != nil {
			why = "told to hurry"
		}
		a.log.Warn(why+": ending the requests still in flight", "addr", ln.Addr().String())
		a.stopNow()
		fctx, cancel := context.WithTimeout(context.Background(), finalWrite)
		defer cancel()
		if err = srv.Shutdown(fctx); errors.Is(err, context.DeadlineExceeded) {
			a.log.Warn("closing the connections still open")
			err = srv.Close()
		}
	}
	return err
}

// Hurry ends the grace period of every drain, running or to come: what is
// still in flight is ended at once as at the grace's end (an SSE error
// event, a 503, outcome "shutdown" in its record). Close still flushes
// after it. The CLI calls it on a second SIGINT or SIGTERM.
func (a *App) Hurry() { a.hurryNow() }

// Close flushes the decision log and queued alerts and releases
// connections. Call it after Serve returns.
func (a *App) Close(ctx context.Context) {
	a.stopNow()
	// The three outputs close side by side, each within ctx: one stalled
	// receiver must not cost another's data (hostile 54: a webhook that
	// never answered spent the whole deadline, and every queued trace was
	// lost; a stalled decision log kept the process from exiting).
	var wg sync.WaitGroup
	if a.alerts != nil {
		wg.Go(func() { _ = a.alerts.Close(ctx) })
	}
	if a.writer != nil {
		wg.Go(func() {
			if err := a.writer.CloseContext(ctx); err != nil {
				a.log.Error("decision log: close failed; records not written are counted in detour_decisions_dropped_total", "err", err, "dropped_total", a.writer.Dropped())
			}
		})
	}
	wg.Go(func() { a.closeTracer(ctx) })
	wg.Wait()
	if a.Server != nil {
		a.Server.Current().Dispatcher.Close()
	}
	if a.rdb != nil {
		_ = a.rdb.Close()
	}
}

// redisLogger sends go-redis's internal log lines to slog at debug level.
type redisLogger struct{ log *slog.Logger }

func (l redisLogger) Printf(ctx context.Context, format string, v ...any) {
	l.log.DebugContext(ctx, fmt.Sprintf(format, v...))
}

// healthScrubber scrubs the upstream's words GET /v1/health shows for a
// cooldown: every fragment of a key, as for the operator (String), and the
// addresses and account ids, as for a client (ForClient): anyone who
// reaches the gateway may read them.
func healthScrubber(sc *redact.Scrubber) func(string) string {
	return func(msg string) string { return sc.ForClient(sc.String(msg), nil) }
}

// classNames are the twelve classes' names: an account forgotten rearms
// the alerts of every one of them (alert.Notifier.Rearm).
var classNames = func() []string {
	var out []string
	for _, c := range classify.Classes() {
		out = append(out, c.String())
	}
	return out
}()

// ReopenDecisions opens the decision log's file again when its path no
// longer names the file being written: a log rotated by moving it away,
// then SIGHUP (docs/deploy.md, "Rotating the decision log"). It logs what
// it did, or why it could not.
func (a *App) ReopenDecisions() {
	if a.writer == nil {
		return
	}
	if err := a.writer.Reopen(); err != nil {
		a.log.Error("decision log: could not open it again; records still go to the file that was moved", "err", err)
	}
}

// clusterNode reports whether the single Redis rdb answers as a node of a
// Redis Cluster (INFO cluster: cluster_enabled:1). Given as state.url, it
// answers MOVED for most keys, each replica then counts health and budgets
// alone, and /v1/health said shared (operator review 52). A Redis that
// does not answer now is not one: the store's outage handling takes it.
func clusterNode(rdb redis.UniversalClient, timeout time.Duration) bool {
	if timeout <= 0 {
		timeout = health.DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*timeout)
	defer cancel()
	info, err := rdb.Info(ctx, "cluster").Result()
	return err == nil && strings.Contains(info, "cluster_enabled:1")
}

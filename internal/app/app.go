package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/alert"
	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/console"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/dispatch"
	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/metrics"
	"github.com/detour-llm/detour/internal/server"
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
}

// App is one running Detour process.
type App struct {
	Server  *server.Server
	Metrics *metrics.Metrics
	opt     Options
	log     *slog.Logger
	store   health.Store
	claimer alert.Claimer
	rdb     *redis.Client
	dec     decision.Sink
	writer  *decision.Writer
	alerts  *alert.Notifier
	mu      sync.Mutex // serializes Reload
	cfg     *config.Config
	// Console is the operator console at /ui; nil when disabled.
	Console *console.Console
	tracer  *tracing.Tracer
}

// New builds an App for cfg.
func New(cfg *config.Config, opt Options) (*App, error) {
	a := &App{opt: opt, log: opt.Logger, Metrics: metrics.New(), cfg: cfg}
	if a.log == nil {
		a.log = slog.Default()
	}
	switch cfg.State.Store {
	case config.StoreRedis:
		ro, err := redis.ParseURL(cfg.State.URL)
		if err != nil {
			return nil, fmt.Errorf("state.url: %v", err)
		}
		ro.DialTimeout, ro.ReadTimeout, ro.WriteTimeout = time.Second, 500*time.Millisecond, 500*time.Millisecond
		ro.MaxRetries = 0
		// One dial per operation: the store retries a down Redis once a
		// second itself. go-redis's default (5 dials, 100ms apart) turns a
		// refused connection into a 500ms stall ending in "context deadline
		// exceeded", hiding the cause.
		ro.DialerRetries = 1
		// go-redis logs through its own global logger, in its own format, on
		// every failed dial; the store logs an outage once. Keep go-redis's
		// lines, in the configured format, at debug level.
		redis.SetLogger(redisLogger{a.log.With("component", "redis")})
		a.rdb = redis.NewClient(ro)
		rs := health.NewRedis(a.rdb, "detour:", a.log)
		a.store, a.claimer = rs, rs
	default:
		m := health.NewMemory()
		a.store, a.claimer = m, m
	}
	a.dec = opt.Decisions
	if a.dec == nil {
		w, err := decision.Open(cfg.Decisions.Path, a.log)
		if err != nil {
			return nil, fmt.Errorf("decisions.path: %v", err)
		}
		a.writer, a.dec = w, w
	}
	if err := a.observe(cfg); err != nil {
		a.Close(context.Background())
		return nil, err
	}
	a.alerts = alert.New(alert.Config{Webhook: cfg.Alerts.Webhook, MinInterval: cfg.Alerts.MinInterval,
		Claimer: a.claimer, Logger: a.log, Metrics: a.Metrics})
	st, err := a.state(cfg)
	if err != nil {
		a.Close(context.Background())
		return nil, err
	}
	a.Server = server.New(st, a.Metrics, a.log)
	a.mount()
	return a, nil
}

// state builds the served state of cfg over the process's shared parts.
func (a *App) state(cfg *config.Config) (*server.State, error) {
	var keys []health.Key
	for _, t := range cfg.Targets {
		for _, p := range t.Providers {
			keys = append(keys, health.Key{Target: t.Name, Provider: p})
		}
	}
	tr := health.New(a.store, health.Settings{FailureThreshold: cfg.Health.FailureThreshold,
		Cooldown: cfg.Health.Cooldown, MaxCooldown: cfg.Health.MaxCooldown}, keys, nil)
	d, err := dispatch.New(dispatch.Options{Config: cfg, Health: tr, Classifier: &classify.Classifier{Rules: cfg.Rules},
		Decisions: a.dec, Metrics: a.Metrics, Alerts: a.alerts, Logger: a.log, Backoff: a.opt.Backoff})
	if err != nil {
		return nil, err
	}
	return &server.State{Config: cfg, Dispatcher: d, Health: tr}, nil
}

// Reload serves cfg from now on. Settings that belong to the process
// (listen, state, decisions, alerts, log) need a restart; a change to them
// is logged and otherwise ignored.
func (a *App) Reload(cfg *config.Config) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	old := a.cfg
	for _, ch := range []struct {
		key     string
		changed bool
	}{
		{"listen", cfg.Listen != old.Listen},
		{"state", cfg.State != old.State},
		{"decisions", cfg.Decisions != old.Decisions},
		{"alerts", cfg.Alerts != old.Alerts},
		{"log", cfg.Log != old.Log},
		{"console", cfg.Console != old.Console},
		{"tracing", cfg.Tracing != old.Tracing},
	} {
		if ch.changed {
			a.log.Warn("config reload: a change to this key needs a restart; keeping the running value", "key", ch.key)
		}
	}
	st, err := a.state(cfg)
	if err != nil {
		return err
	}
	prev := a.Server.Swap(st)
	a.cfg = cfg
	// Idle connections of the old dispatcher go; busy ones finish first.
	prev.Dispatcher.Close()
	return nil
}

// Serve serves on ln until ctx ends, then stops accepting, lets requests and
// streams in flight finish for up to grace, and returns.
func (a *App) Serve(ctx context.Context, ln net.Listener, grace time.Duration) error {
	srv := &http.Server{
		Handler:           a.handler(),
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second, // a slow client upload cannot hold a connection forever
		IdleTimeout:       120 * time.Second,
		ErrorLog:          slog.NewLogLogger(a.log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	a.log.Info("shutting down: draining requests in flight", "grace", grace.String())
	sctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := srv.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		a.log.Warn("grace period over: closing remaining connections")
		err = srv.Close()
	}
	return err
}

// Close flushes the decision log and queued alerts and releases
// connections. Call it after Serve returns.
func (a *App) Close(ctx context.Context) {
	if a.alerts != nil {
		_ = a.alerts.Close(ctx)
	}
	if a.writer != nil {
		if err := a.writer.Close(); err != nil {
			a.log.Error("decision log: close failed", "err", err)
		}
	}
	a.closeTracer(ctx)
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

package app

import (
	"context"
	"net"
	"net/http"
	"os"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/console"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/tracing"
)

// replicaName is how the console names this process: the host name and
// the port it serves on, so two replicas on one host are told apart
// (operator review 48b: both read "replica vm").
func replicaName(listen string) string {
	h, _ := os.Hostname()
	if _, port, err := net.SplitHostPort(listen); err == nil && port != "" {
		return h + ":" + port
	}
	return h
}

// slotsHeld is the server's count of a client key's max_concurrent slots
// held now, for the console's Keys page (the server is made after the
// console, before either serves).
func (a *App) slotsHeld(name string) int {
	if a.Server == nil {
		return 0
	}
	return a.Server.SlotsHeld(name)
}

// observe tees decision records into the console's ring and the tracer, as
// cfg asks, all of them scrubbed. Both belong to the process: a reload does not change them.
func (a *App) observe(cfg *config.Config) error {
	sinks := []decision.Sink{a.dec}
	if !cfg.Console.Disabled {
		a.Console = console.New(console.Options{Size: cfg.Console.Ring(), State: a.current, Replica: replicaName(cfg.Listen), Limits: a.limits,
			Slots: a.slotsHeld, Loaded: a.loaded})
		sinks = append(sinks, a.Console)
	}
	if cfg.Tracing.OTLPEndpoint != "" {
		t, err := tracing.New(tracing.Options{Endpoint: cfg.Tracing.OTLPEndpoint, ServiceName: cfg.Tracing.Service(),
			Instance: replicaName(cfg.Listen), Dialect: a.dialect, Logger: a.log})
		if err != nil {
			return err
		}
		a.tracer = t
		sinks = append(sinks, t)
	}
	// Every sink gets the record scrubbed (docs/security.md): the log, and
	// the console's ring and the tracer too, which show or export an
	// upstream's own words.
	a.dec = decision.Scrubbed(decision.Tee(sinks...), a.scrub.String)
	return nil
}

// mount serves the console beside /metrics and /v1/health.
func (a *App) mount() {
	if a.Console != nil {
		a.Server.HandleOperator(console.Prefix, a.Console.Handler())
	}
}

// wrap is what a listener serves for h: with tracing, an incoming
// traceparent reaches the request's context first.
func (a *App) wrap(h http.Handler) http.Handler {
	if a.tracer != nil {
		return tracing.Extract(h)
	}
	return h
}

// current is the configuration being served and its health.
func (a *App) current() (*config.Config, *health.Tracker) {
	st := a.Server.Current()
	return st.Config, st.Health
}

// dialect names a configured provider's dialect, for traces.
func (a *App) dialect(provider string) string {
	if a.Server == nil {
		return ""
	}
	if p, ok := a.Server.Current().Config.Provider(provider); ok {
		return string(p.Dialect)
	}
	return ""
}

// closeTracer exports the spans still queued.
func (a *App) closeTracer(ctx context.Context) {
	if a.tracer != nil {
		if err := a.tracer.Shutdown(ctx); err != nil {
			a.log.Warn("tracing: flush at shutdown failed", "err", err)
		}
	}
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/rawjson"
)

func runServe(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := fs.String("c", "detour.yaml", "configuration file")
	fs.StringVar(path, "config", "detour.yaml", "the same as -c")
	grace := fs.Duration("grace", 30*time.Second, "how long in-flight requests may finish after SIGTERM")
	if fs.Parse(args) != nil {
		return 2
	}
	if fs.NArg() > 0 {
		return strayArgument(stderr, "serve", fs.Arg(0), "-c")
	}
	// Catch SIGHUP from the start: its default action would end the process.
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	cfg, err := config.Load(*path)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	log := newLogger(cfg.Log, stderr)
	a, err := app.New(cfg, app.Options{Logger: log})
	if err != nil {
		log.Error("cannot start", "err", err)
		return 1
	}
	log = a.Logger() // scrubs every line (docs/design.md, "Operator secrets")
	if msg := openOperatorEndpoints(cfg); msg != "" {
		log.Warn(msg)
	}
	for _, msg := range openListener(cfg) {
		log.Warn(msg)
	}
	if msg := budgetRestartWarning(cfg); msg != "" {
		log.Warn(msg)
	}
	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		log.Error("cannot listen", "addr", cfg.Listen, "err", err)
		a.Close(context.Background())
		return 1
	}
	var admin net.Listener
	if cfg.AdminListen != "" {
		if admin, err = net.Listen("tcp", cfg.AdminListen); err != nil {
			log.Error("cannot listen", "admin_listen", cfg.AdminListen, "err", err)
			ln.Close()
			a.Close(context.Background())
			return 1
		}
	}
	return serve(a, ln, admin, *grace, log, hup, func() (*config.Config, error) { return config.Load(*path) })
}

// adminGrace bounds the admin listener's drain, which starts after the main
// one's: its handlers answer at once (no stream), so shutdown takes about
// --grace, not twice it.
const adminGrace = 5 * time.Second

// serve runs a on ln (and admin, the admin_listen listener, when not nil)
// until SIGINT or SIGTERM (a second one ends the drain now; docs/scale.md,
// "SIGTERM: draining"); SIGHUP reloads the configuration (a bad one is
// logged with file:line and the running one kept). hup must already be
// registered for SIGHUP.
func serve(a *app.App, ln, admin net.Listener, grace time.Duration, log *slog.Logger, hup chan os.Signal, reload func() (*config.Config, error)) int {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	done := make(chan struct{})
	defer close(done)
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGTERM)
	defer signal.Stop(sigs)
	// The first signal drains for up to grace; a second ends the drain now
	// and still flushes the decision log, alerts and traces (before round 57
	// it was swallowed, or during the admin drain killed the process before
	// the flush); a third has the default effect: the process ends at once.
	go func() {
		select {
		case <-sigs:
		case <-done:
			return
		}
		stop()
		select {
		case s := <-sigs:
			log.Warn("second signal: ending the requests in flight now; the logs are still flushed (a third signal exits at once)", "signal", s.String())
			a.Hurry()
			signal.Stop(sigs)
		case <-done:
		}
	}()
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-hup:
			}
			// A decision log moved away (rotated) is opened anew, whatever
			// the configuration below turns out to be.
			a.ReopenDecisions()
			if reload == nil {
				continue
			}
			// A file that does not load is refused whole and logged with
			// every file:line; /metrics, /v1/health and the console say so.
			a.ReloadWith(reload)
		}
	}()
	adminErr := make(chan error, 1)
	// The operator endpoints on their own listener stay up while the main
	// one drains, and stop after it: a stream that ends during the drain is
	// in the last scrape of /metrics (operator review 56: the admin listener
	// closed with the main one, and /metrics refused connections for the
	// whole drain). The main listener closes at once, so a balancer takes
	// the replica out.
	adminCtx, adminStop := context.WithCancel(context.Background())
	defer adminStop()
	if admin != nil {
		log.Info("detour serving the operator endpoints (/metrics, /v1/health, /v1/health/reset, /ui)", "admin_addr", admin.Addr().String())
		go func() {
			err := a.ServeAdmin(adminCtx, admin, min(grace, adminGrace))
			if err != nil && !errors.Is(err, net.ErrClosed) && !errors.Is(err, http.ErrServerClosed) {
				log.Error("admin listener failed; stopping", "err", err)
				stop() // without its operator endpoints the process is not what was configured
			}
			adminErr <- err
		}()
	} else {
		adminErr <- nil
	}
	log.Info("detour serving", "addr", ln.Addr().String())
	err := a.Serve(ctx, ln, grace)
	stop()
	adminStop() // the main listener has drained (or stopped on its own): the admin one goes now
	aerr := <-adminErr
	if err == nil || errors.Is(err, net.ErrClosed) || errors.Is(err, http.ErrServerClosed) {
		err = aerr
	}
	cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	a.Close(cctx)
	if err != nil && !errors.Is(err, net.ErrClosed) && !errors.Is(err, http.ErrServerClosed) {
		log.Error("serve", "err", err)
		return 1
	}
	log.Info("detour stopped")
	return 0
}

func newLogger(c config.Log, w io.Writer) *slog.Logger {
	var lvl slog.Level
	_ = lvl.UnmarshalText([]byte(strings.ToUpper(c.Level)))
	opts := &slog.HandlerOptions{Level: lvl}
	if c.Format == "json" {
		return slog.New(slog.NewJSONHandler(&visible{w: w}, opts))
	}
	return slog.New(slog.NewTextHandler(&visible{w: w}, opts))
}

// visible writes each log line with its invisible characters escaped
// (rawjson.AppendVisible: a bidi override an upstream wrote must not reorder
// the operator's terminal, a variation selector hide bytes). slog writes one
// line per Write; the text format quotes what is not printable itself, but
// not a variation selector (hostile 57b).
type visible struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

func (v *visible) Write(p []byte) (int, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.buf = rawjson.AppendVisible(v.buf[:0], p)
	if _, err := v.w.Write(v.buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

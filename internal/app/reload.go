package app

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/console"
	"github.com/detour-llm/detour/internal/rawjson"
)

// Reload serves cfg from now on. Settings that belong to the process
// (listen, admin_listen, state, decisions, alerts, log) need a restart; a
// change to them is logged and otherwise ignored.
func (a *App) Reload(cfg *config.Config) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	old := a.cfg
	for _, ch := range []struct {
		key     string
		changed bool
	}{
		{"listen", cfg.Listen != old.Listen},
		// Which listener serves /metrics and /v1/health is the process's;
		// admin_keys, cors, allowed_hosts and max_inflight_body_bytes apply
		// at once.
		{"admin_listen", cfg.AdminListen != old.AdminListen},
		{"state", !cfg.State.Equal(old.State)},
		{"decisions", !cfg.Decisions.Equal(old.Decisions)},
		{"alerts", cfg.Alerts != old.Alerts},
		{"log", cfg.Log != old.Log},
		{"console", cfg.Console != old.Console},
		{"tracing", cfg.Tracing != old.Tracing},
	} {
		if ch.changed {
			a.log.Warn("config reload: a change to this key needs a restart; keeping the running value", "key", ch.key)
		}
	}
	// The configuration kept says what runs, so the next reload compares
	// with it: before (operator review 48) the ignored value became the
	// reference, a second reload of the same file was silent, and putting
	// the file back warned.
	cfg.Listen, cfg.AdminListen, cfg.State, cfg.Decisions = old.Listen, old.AdminListen, old.State, old.Decisions
	cfg.Alerts, cfg.Log, cfg.Console, cfg.Tracing = old.Alerts, old.Log, old.Console, old.Tracing
	sc, rules := a.scrubFor(cfg)
	st, err := a.state(cfg, sc)
	if err != nil {
		return err
	}
	a.use(sc, rules)
	forgetChanged(&a.retired, a.gen, st.Health, old, cfg)
	// What the reload removed leaves /metrics.
	a.Metrics.Retain(served(st))
	logKeyChanges(a.log, old, cfg)
	take, apply := a.countAddedBudgets(old, cfg)
	prev := a.Server.Swap(st, take)
	if apply != nil {
		apply()
		if a.epoch != nil {
			// The keys' markers now, not at the next check: a Redis lost
			// before it took the reload's share for a budget that was
			// new, and gave nothing back (operator review 60).
			a.epoch.check()
		}
	}
	a.Metrics.ConfigLoaded(true, time.Now())
	a.cfg = cfg
	// Idle connections of the old dispatcher go; busy ones finish first.
	prev.Dispatcher.Close()
	return nil
}

// loadedAt is when the configuration served was loaded (zero before the
// server is built).
func (a *App) loadedAt() time.Time {
	if a.Server == nil {
		return time.Time{}
	}
	return a.Server.LoadedAt()
}

// ReloadWith reloads what load reads (SIGHUP: the configuration file
// again) and logs how it went. A file that does not load, or that Reload
// refuses, is refused whole: the running configuration keeps serving, the
// log says why with every "file:line: message", and /metrics, GET
// /v1/health and the console say so until a reload is applied (operator
// reviews 56 and 68e: before, the console went on showing the old
// configuration as if the edit had taken). It returns the refusal.
func (a *App) ReloadWith(load func() (*config.Config, error)) error {
	cfg, err := load()
	if err == nil {
		err = a.Reload(cfg)
	}
	if err != nil {
		hint := ""
		if strings.Contains(err.Error(), "is not set") && strings.Contains(err.Error(), "environment variable") {
			// `detour check` runs in the operator's shell; a reload reads
			// the environment detour started with (operator review 61f:
			// check said ok, the reload refused the file, and nothing said
			// why they differed).
			hint = "a reload reads the environment detour started with: a variable set since needs a restart (docs/deploy.md, Reloading)"
		}
		a.reloadRefused(err, hint)
		attrs := []any{"err", err.Error()}
		if hint != "" {
			attrs = append(attrs, "hint", hint)
		}
		a.log.Error("config reload failed; keeping the running configuration", attrs...)
		return err
	}
	a.log.Info("config reloaded", "routes", len(cfg.Routes), "targets", len(cfg.Targets))
	return nil
}

// Refusal reasons the console shows: at most shownReasons lines, each at
// most reasonBytes; the log has them all.
const (
	shownReasons = 20
	reasonBytes  = 400
)

// reloadRefused records a reload that was not applied, and why: /metrics
// and GET /v1/health say so until one is (operator review 56), and the
// console with the reason. The reason is the log line's: each error
// scrubbed with the scrubber of the configuration served, as the log's
// every line is (the configuration's own errors never quote a key field, a
// value from the environment, or a name that may be a pasted secret:
// docs/config.md, "Ground rules"), and its invisible characters written as
// escapes, as the log writes them.
func (a *App) reloadRefused(err error, hint string) {
	now := time.Now()
	why := &console.Refusal{At: now.UTC(), Errors: []string{}, Hint: hint}
	for _, line := range strings.Split(err.Error(), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if len(why.Errors) == shownReasons {
			why.More++
			continue
		}
		why.Errors = append(why.Errors, visibleText(cutText(a.scrub.String(line), reasonBytes)))
	}
	a.refusal.Store(why) // before the server's time, which says whether it stands
	a.Server.ReloadRefused(now)
	a.Metrics.ConfigLoaded(false, now)
}

// loaded is the configuration served and, while the server says a reload
// was refused since (until one is applied), the last refusal, for the
// console.
func (a *App) loaded() console.Loaded {
	if a.Server == nil {
		return console.Loaded{}
	}
	at, refused := a.Server.Loaded()
	l := console.Loaded{At: at.UTC()}
	if !refused.IsZero() {
		l.Refused = a.refusal.Load()
	}
	return l
}

// cutText cuts s to at most n bytes, at a character, marking the cut.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// visibleText writes s's controls and invisible characters (rawjson.Invisible:
// C1 controls, format characters such as bidi overrides and zero-width
// spaces, variation selectors, the code points drawn as nothing) as \u
// escapes, as the log writes them, so a page shows each one instead of
// having the line reordered or hidden.
func visibleText(s string) string {
	invisible := func(r rune) bool { return r < 0x20 || r == 0x7f || rawjson.Invisible(r) }
	if strings.IndexFunc(s, invisible) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case !invisible(r):
			b.WriteRune(r)
		case r > 0xFFFF:
			fmt.Fprintf(&b, `\U%08X`, r)
		default:
			fmt.Fprintf(&b, `\u%04X`, r)
		}
	}
	return b.String()
}

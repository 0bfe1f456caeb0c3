package app

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/detour-llm/detour/internal/config"
)

// A Redis that comes back empty (restarted without persistence, failed
// over to an empty replica, flushed) gives every client key its budget
// back, silently: operator review 53 saw a key refused at its budget
// served again after a Redis restart, and neither replica said a word.
// Every replica keeps a marker in Redis, an epoch a replica writes when
// there is none; a replica that finds the epoch gone or changed knows
// Redis lost Detour's state, says so, and gives the budgets back what its
// own decision log says it spent this month (docs/scale.md, "Redis
// restarted empty"). Decision logs are per replica, so each adds its own
// share. With no marker at start, spend already counted in Redis (a
// Detour before round 53 wrote no marker) means nothing was lost.

// epochKey is the marker's key.
const epochKey = "detour:state:epoch"

// epochEvery is how often a replica reads the marker.
const epochEvery = 5 * time.Second

// watchEpoch reads (or writes) the marker now and every epochEvery until
// the process stops.
func (a *App) watchEpoch(cfg *config.Config, timeout time.Duration) {
	w := &epochWatch{a: a, timeout: cmp.Or(timeout, time.Second)}
	w.start(cfg)
	go func() {
		t := time.NewTicker(epochEvery)
		defer t.Stop()
		for {
			select {
			case <-a.stop.Done():
				return
			case <-t.C:
				w.check()
			}
		}
	}()
}

type epochWatch struct {
	a       *App
	timeout time.Duration
	seen    string // the epoch last read; "" before Redis answered
}

// read returns the marker, writing a new one when there is none (created).
func (w *epochWatch) read() (epoch string, created bool, err error) {
	ctx, cancel := context.WithTimeout(w.a.stop, w.timeout)
	defer cancel()
	var b [8]byte
	_, _ = rand.Read(b[:])
	fresh := hex.EncodeToString(b[:])
	ok, err := w.a.rdb.SetNX(ctx, epochKey, fresh, 0).Result()
	if err != nil {
		return "", false, err
	}
	if ok {
		return fresh, true, nil
	}
	epoch, err = w.a.rdb.Get(ctx, epochKey).Result()
	if errors.Is(err, redis.Nil) { // gone between the two: read again next time
		return "", false, err
	}
	return epoch, false, err
}

// start reads the marker at start: one this replica had to write, in a
// Redis that counts no spend for any budgeted key, is a Redis that holds
// none of the fleet's state, and this replica's log restores its share.
func (w *epochWatch) start(cfg *config.Config) {
	epoch, created, err := w.read()
	if err != nil {
		return // Redis down: the store says so; the next check reads it
	}
	w.seen = epoch
	w.warnPersistence(cfg)
	if created && !w.spentInRedis(cfg) {
		if n := w.a.restoreBudgets(cfg, w.a.limits, w.a.limits.Now()); n > 0 {
			w.a.log.Warn("client budgets: Redis held none of Detour's state (new, or restarted without persistence); this replica's share of this month's spend was restored from its decision log", "keys", n)
		}
	}
}

// check reads the marker; a different or missing one means Redis lost
// Detour's state since the last read.
func (w *epochWatch) check() {
	epoch, _, err := w.read()
	if err != nil {
		return
	}
	if w.seen == "" || epoch == w.seen {
		w.seen = epoch
		return
	}
	w.seen = epoch
	cfg := w.a.Server.Current().Config
	// Every record of the month is given back: the requests of the few
	// seconds between the loss and this read were counted in the new Redis
	// too, and count twice, which errs on the side of the budget.
	n := w.a.restoreBudgets(cfg, w.a.limits, w.a.limits.Now())
	w.a.log.Warn("client budgets: Redis lost Detour's state (restarted without persistence, failed over to an empty replica, or flushed); this replica's share of this month's spend was restored from its decision log (docs/scale.md)",
		"keys", n, "clients", budgetedNames(cfg))
}

// spentInRedis reports whether Redis counts any spend for a budgeted key.
func (w *epochWatch) spentInRedis(cfg *config.Config) bool {
	ctx, cancel := context.WithTimeout(w.a.stop, w.timeout)
	defer cancel()
	for i := range cfg.Clients {
		k := &cfg.Clients[i]
		if k.Budget == (config.Budget{}) {
			continue
		}
		for _, s := range w.a.limits.Standings(ctx, k) {
			if strings.HasPrefix(s.Limit, "usd_") && s.Used > 0 {
				return true
			}
		}
	}
	return false
}

// warnPersistence warns when Redis persists nothing (no append-only file,
// no snapshots) and client keys have budgets, which such a Redis forgets
// when it restarts. A Redis that refuses CONFIG (a managed one) is not
// asked again.
func (w *epochWatch) warnPersistence(cfg *config.Config) {
	names := budgetedNames(cfg)
	if len(names) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(w.a.stop, w.timeout)
	defer cancel()
	c, err := w.a.rdb.ConfigGet(ctx, "appendonly").Result()
	if err != nil || c["appendonly"] != "no" {
		return
	}
	if s, err := w.a.rdb.ConfigGet(ctx, "save").Result(); err != nil || strings.TrimSpace(s["save"]) != "" {
		return
	}
	w.a.log.Warn("client budgets: the Redis of state persists nothing (appendonly no, no save points): a restart of it gives every key its budget back; turn on appendonly (docs/scale.md)", "clients", names)
}

// budgetedNames are the names of the client keys with a budget.
func budgetedNames(cfg *config.Config) []string {
	var out []string
	for i := range cfg.Clients {
		if cfg.Clients[i].Budget != (config.Budget{}) {
			out = append(out, cfg.Clients[i].Name)
		}
	}
	return out
}

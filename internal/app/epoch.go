package app

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/detour-llm/detour/internal/config"
)

// A Redis that comes back empty (restarted without persistence, failed
// over to an empty replica, flushed) gave every client key its budget
// back, silently: operator review 53 saw a key refused at its budget
// served again after a Redis restart, and neither replica said a word.
//
// Every replica reads a marker in Redis every epochEvery. The replica that
// finds none writes one: an epoch, a verdict and the time. The verdict is
// "lost" when Redis counts less spend for a budgeted key than this
// replica's own log holds, or none at all where the log holds none (it
// holds none of Detour's state: new, restarted empty, flushed), "kept"
// otherwise (the marker alone went, or a fleet upgraded from before round
// 53, which wrote none). Each replica then gives a "lost" epoch, once, what its own
// decision log says each budgeted key spent this month: it claims the
// epoch under its log's name in a key beside the marker, so a replica
// restarted later, or a second look, adds nothing again (hostile 53c: the
// first versions restored one replica's share only, none when Detour came
// up before its Redis, and doubled the month when the marker alone was
// deleted). docs/scale.md, "Redis restarted empty", says what is left:
// spend served during an outage that ends in an empty Redis is counted
// from the replica's pending counts and from its log, twice.

// epochKey is the marker's key; claimedKey + epoch + ":" + a log's
// identity says that log gave the epoch its spend.
const (
	epochKey     = "detour:state:epoch"
	claimedKey   = "detour:state:restored:"
	epochEvery   = 5 * time.Second
	restoreAfter = 10 * time.Minute // a "lost" epoch older than this is given nothing more
)

// watchEpoch reads (or writes) the marker now and every epochEvery until
// the process stops.
func (a *App) watchEpoch(cfg *config.Config, timeout time.Duration) {
	w := &epochWatch{a: a, timeout: cmp.Or(timeout, time.Second), id: logIdentity(cfg)}
	w.warnPersistence(cfg)
	w.check()
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
	id      string // the decision log's name, which claims an epoch
	seen    string // the marker last read; "" before one was
}

// logIdentity names this replica's decision log: the first 16 hex digits
// of the SHA-256 of its host and absolute path (Redis holds no host name
// or path of ours).
func logIdentity(cfg *config.Config) string {
	h, _ := os.Hostname()
	p, err := filepath.Abs(cfg.Decisions.Path)
	if err != nil {
		p = cfg.Decisions.Path
	}
	sum := sha256.Sum256([]byte(h + "\x00" + p))
	return hex.EncodeToString(sum[:8])
}

// check reads the marker, writing one when there is none, and gives a
// "lost" epoch this replica's share once.
func (w *epochWatch) check() {
	ctx, cancel := context.WithTimeout(w.a.stop, w.timeout)
	defer cancel()
	cfg := w.a.Server.Current().Config
	marker, err := w.a.rdb.Get(ctx, epochKey).Result()
	if errors.Is(err, redis.Nil) {
		var b [8]byte
		_, _ = rand.Read(b[:])
		verdict := "kept"
		if w.lost(ctx, cfg) {
			verdict = "lost"
		}
		fresh := hex.EncodeToString(b[:]) + ":" + verdict + ":" + strconv.FormatInt(time.Now().Unix(), 10)
		if _, err = w.a.rdb.SetNX(ctx, epochKey, fresh, 0).Result(); err == nil {
			marker, err = w.a.rdb.Get(ctx, epochKey).Result()
		}
	}
	if err != nil || marker == w.seen {
		return // Redis away (the store says so), or nothing new
	}
	first := w.seen == ""
	w.seen = marker
	epoch, rest, _ := strings.Cut(marker, ":")
	verdict, at, _ := strings.Cut(rest, ":")
	since, _ := strconv.ParseInt(at, 10, 64)
	if verdict != "lost" || time.Since(time.Unix(since, 0)) > restoreAfter {
		return
	}
	claimed, err := w.a.rdb.SetNX(ctx, claimedKey+epoch+":"+w.id, "1", 24*time.Hour).Result()
	if err != nil || !claimed {
		return
	}
	n := w.a.restoreBudgets(cfg, w.a.limits, w.a.limits.Now())
	if first && n == 0 {
		return // a new Redis, and nothing of this replica's to give it
	}
	w.a.log.Warn("client budgets: Redis held none of Detour's state (restarted without persistence, failed over to an empty replica, flushed, or new); this replica's share of this month's spend was restored from its decision log (docs/scale.md)",
		"keys", n, "clients", strings.Join(budgetedNames(cfg), ","))
}

// lost reports a Redis that holds none of Detour's state: one that counts
// less spend this month for a budgeted key than this replica's own log
// says it spent (an intact Redis holds at least every replica's share:
// requests served after a loss do not hide it), or, where the log says
// nothing, one that counts no spend for any budgeted key.
func (w *epochWatch) lost(ctx context.Context, cfg *config.Config) bool {
	spent, _ := w.a.logSpent(cfg, w.a.limits.Now())
	any := false
	for i := range cfg.Clients {
		k := &cfg.Clients[i]
		if k.Budget == (config.Budget{}) {
			continue
		}
		for _, s := range w.a.limits.Standings(ctx, k) {
			if s.Limit != "usd_per_month" && !(s.Limit == "usd_per_day" && k.Budget.USDPerMonth == 0) {
				continue
			}
			mine := spent[k.Name][1]
			if s.Limit == "usd_per_day" {
				mine = spent[k.Name][0]
			}
			if mine > 0 && s.Used < mine*0.999 {
				return true
			}
			any = any || s.Used > 0
		}
	}
	return !any
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
	w.a.log.Warn("client budgets: the Redis of state persists nothing (appendonly no, no save points): a restart of it gives every key its budget back; turn on appendonly (docs/scale.md)",
		"clients", strings.Join(names, ","))
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

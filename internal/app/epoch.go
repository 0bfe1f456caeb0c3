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
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/limit"
)

// A Redis that comes back empty (restarted without persistence, failed
// over to an empty replica, flushed) gave every client key its budget
// back, silently: operator review 53 saw a key refused at its budget
// served again after a Redis restart, and neither replica said a word.
//
// Each budgeted client key has a marker in Redis, beside its counters (in
// their hash slot, so a Redis Cluster shard that comes back empty loses
// both), read by every replica every epochEvery. The replica that finds
// none writes one: an epoch, what Redis counted for the key then (its
// month, or its day where it has no monthly budget) and the time. Each
// replica judges a new marker once: where the count it records is less
// than what this replica's own decision log says the key spent (an intact
// Redis holds at least every replica's share), Redis lost the key's state,
// and the replica gives it its log's share back, claiming the epoch under
// its log's identity so that a replica restarted later adds nothing again.
// A marker deleted alone (an operator's DEL, eviction), or the first
// marker of a fleet upgraded from before round 53, records the counts
// Redis still holds, and nothing is added. The reviews of round 53 broke
// earlier versions seven ways (Redis up after Detour, the marker alone
// deleted, a fleet restarting together, a Cluster shard lost, a big log
// read inside a Redis timeout, a replica with an empty log judging for
// all); each is a test. docs/scale.md, "Redis restarted empty", says what
// is left.

const (
	epochEvery   = 5 * time.Second
	restoreAfter = 10 * time.Minute // a marker older than this is given nothing more
)

// epochKey is client name's marker; claimKey records that the log id gave
// its epoch its share.
func epochKey(name string) string { return "detour:" + limit.Tag(name) + ":epoch" }
func claimKey(name, epoch, id string) string {
	return "detour:" + limit.Tag(name) + ":restored:" + epoch + ":" + id
}

// watchEpoch reads (or writes) the markers now and every epochEvery until
// the process stops.
func (a *App) watchEpoch(cfg *config.Config, timeout time.Duration) {
	w := &epochWatch{a: a, timeout: cmp.Or(timeout, time.Second), id: logIdentity(cfg), seen: map[string]string{}, budgeted: map[string]bool{}}
	for i := range cfg.Clients {
		if k := &cfg.Clients[i]; k.Budget != (config.Budget{}) {
			w.budgeted[k.Name] = true
		}
	}
	a.epoch = w
	go func() { // a month's log or many keys take seconds to judge: never the start's
		w.warnPersistence(cfg)
		w.check()
		a.every(epochEvery, w.check)
	}()
}

type epochWatch struct {
	mu      sync.Mutex // one check at a time: the timer's, or a reload's (Reload)
	a       *App
	timeout time.Duration
	id      string            // the decision log's identity, which claims an epoch
	seen    map[string]string // client name → the marker last judged
	// budgeted are the keys that had a budget at the last check, or at
	// the start before the first: a key a reload gave a budget had its
	// window's spend added by the reload itself (countAddedBudgets), and
	// its first marker says so ("new"): nothing is added again. Taken
	// from the start's configuration, not left empty until the first
	// check: a reload that gave a key its budget before the start's first
	// check (it runs in the background) had that check write the key's
	// marker as not new, over a Redis the reload had not added to yet, and
	// restore the log's spend the reload then added again (a CI run read
	// $0.70 for $0.35: TestReview58bRedisGapDeletedByTheFirstWindowBack).
	budgeted map[string]bool
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

// marker is a parsed marker: its epoch, the count Redis held when it was
// written, when, and whether a reload had just given the key its budget
// (the reload added its log's share then: nothing is given back).
type marker struct {
	epoch     string
	held      float64
	at        time.Time
	budgetNew bool
}

func parseMarker(v string) (marker, bool) {
	parts := strings.Split(v, ":")
	if len(parts) != 3 && !(len(parts) == 4 && parts[3] == "new") {
		return marker{}, false
	}
	held, err1 := strconv.ParseFloat(parts[1], 64)
	at, err2 := strconv.ParseInt(parts[2], 10, 64)
	return marker{epoch: parts[0], held: held, at: time.Unix(at, 0), budgetNew: len(parts) == 4}, err1 == nil && err2 == nil
}

// judged is the limit a key's marker records and its log is compared on:
// the month's spend, or the day's where the key has no monthly budget.
func judged(k *config.ClientKey) (limitName string, i int) {
	if k.Budget.USDPerMonth > 0 {
		return "usd_per_month", 1
	}
	return "usd_per_day", 0
}

// check reads every budgeted key's marker, writing the missing ones, and
// judges each one new to this replica.
func (w *epochWatch) check() {
	w.mu.Lock()
	defer w.mu.Unlock()
	cfg := w.a.Server.Current().Config
	var keys []*config.ClientKey
	was, now := w.budgeted, map[string]bool{}
	for i := range cfg.Clients {
		if k := &cfg.Clients[i]; k.Budget != (config.Budget{}) {
			keys = append(keys, k)
			now[k.Name] = true
		}
	}
	if len(keys) == 0 {
		w.budgeted = now
		return
	}
	// Every marker in one pipeline (one round trip a node); a missing one
	// is written apart, which happens after a loss or at a first start.
	ctx, cancel := context.WithTimeout(w.a.stop, w.timeout)
	pipe := w.a.rdb.Pipeline()
	gets := make([]*redis.StringCmd, len(keys))
	for i, k := range keys {
		gets[i] = pipe.Get(ctx, epochKey(k.Name))
	}
	_, err := pipe.Exec(ctx)
	cancel()
	if err != nil && !errors.Is(err, redis.Nil) {
		return // Redis away (the store says so): the next check reads it
	}
	// The log is read once, outside any Redis deadline (review 53b: a big
	// month's log read inside one never wrote a marker), and before a
	// missing marker is written: what is spent meanwhile is then in the
	// marker and not in the log, never in the log and not in the marker,
	// which would read an intact Redis as lost (review 53c).
	var spent map[string][2]float64
	read := func() {
		if spent == nil {
			spent, _ = w.a.logSpent(cfg, w.a.limits.Now())
			if spent == nil {
				spent = map[string][2]float64{}
			}
		}
	}
	var fresh []*config.ClientKey
	markers := map[string]string{}
	for i, k := range keys {
		v, err := gets[i].Result()
		if errors.Is(err, redis.Nil) {
			read()
			v, err = w.write(k, !was[k.Name])
		}
		if err != nil {
			return
		}
		if v != w.seen[k.Name] {
			markers[k.Name] = v
			fresh = append(fresh, k)
		}
	}
	w.budgeted = now
	if len(fresh) == 0 {
		return
	}
	read()
	var restored []string
	beforeAt := map[int64]map[string][2]float64{} // by the marker's second
	for _, k := range fresh {
		v := markers[k.Name]
		w.seen[k.Name] = v
		m, ok := parseMarker(v)
		_, i := judged(k)
		mine := spent[k.Name][i]
		if !ok || m.budgetNew || mine <= 0 || m.held >= mine*0.999 || w.a.limits.Now().Sub(m.at) > restoreAfter {
			continue
		}
		// The marker recorded what Redis held when it was written: compare
		// it with the requests that had ended by then, not with what the
		// log holds now. A replica restarted minutes after the marker (or
		// one that first reads it late) has spent since, in Redis and in
		// its log alike; judged on the whole log an intact Redis read as
		// lost and the key's spend was added again (operator review 68e).
		// One reading a marker time: a fleet's markers are written in one
		// check, and a whole month's log was read again for each key.
		before, ok := beforeAt[m.at.Unix()]
		if !ok {
			before = w.a.logSpentBefore(cfg, m.at)
			beforeAt[m.at.Unix()] = before
		}
		s := before[k.Name]
		if s[i] <= 0 || m.held >= s[i]*0.999 {
			continue
		}
		ctx, cancel := context.WithTimeout(w.a.stop, w.timeout)
		claimed, err := w.a.rdb.SetNX(ctx, claimKey(k.Name, m.epoch, w.id), "1", 24*time.Hour).Result()
		if err == nil && claimed {
			w.a.limits.Restore(ctx, k, s[0], s[1])
			restored = append(restored, k.Name)
		}
		cancel()
	}
	if len(restored) > 0 {
		w.a.Metrics.StateLost()
		w.a.stateLost()
		w.a.log.Warn("client budgets: Redis had lost these keys' spend (restarted without persistence, failed over to an empty replica, or flushed); this replica's share of this month's spend was restored from its decision log (docs/scale.md)",
			"clients", strings.Join(restored, ","))
	}
}

// write writes k's marker (what Redis holds for k now; budgetNew when a
// reload has just given k its budget) where there is none, and returns the
// marker there.
func (w *epochWatch) write(k *config.ClientKey, budgetNew bool) (string, error) {
	ctx, cancel := context.WithTimeout(w.a.stop, w.timeout)
	defer cancel()
	name, _ := judged(k)
	held := 0.0
	for _, s := range w.a.limits.Standings(ctx, k) {
		if s.Limit == name {
			held = s.Used
		}
	}
	if ctx.Err() != nil {
		return "", ctx.Err()
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	// Redis's clock with state redis: replicas whose clocks differ agree
	// on a marker's age.
	v := hex.EncodeToString(b[:]) + ":" + strconv.FormatFloat(held, 'f', -1, 64) + ":" + strconv.FormatInt(w.a.limits.Now().Unix(), 10)
	if budgetNew {
		v += ":new"
	}
	if _, err := w.a.rdb.SetNX(ctx, epochKey(k.Name), v, 0).Result(); err != nil {
		return "", err
	}
	return w.a.rdb.Get(ctx, epochKey(k.Name)).Result()
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

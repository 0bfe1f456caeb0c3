package health

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/detour-llm/detour/internal/redisfail"
)

const (
	// keepFor is how long a key outlives its last cooldown or lease, so
	// latency and counts survive a quiet night but nothing stale lingers.
	keepFor = 24 * time.Hour
	// keepLongest is the most of a cooldown's rest a key's expiry covers.
	keepLongest = 400 * 24 * time.Hour
	// retryEvery bounds how often a down Redis is tried again.
	retryEvery = time.Second
	// txRetries bounds optimistic retries of one Update under contention.
	txRetries = 64
)

// RedisStore is a Store and a Once shared by replicas through Redis. Records
// are JSON strings under prefix+key, each with an expiry. Every successful
// operation is mirrored into a local Memory; while Redis is unreachable the
// store serves from that mirror, so no store error ever reaches a request.
type RedisStore struct {
	client    redis.UniversalClient
	prefix    string
	log       *slog.Logger
	local     *Memory
	now       func() time.Time
	opTimeout time.Duration
	clock     redisClock // Redis's clock (clock.go)

	down        atomic.Bool // fast path: false while Redis answers
	mu          sync.Mutex  // guards retryAt, reconciling and the transitions of down
	retryAt     time.Time
	reconciling bool      // one caller is writing the journal back
	downSince   time.Time // when Redis last stopped answering (while down)

	jmu     sync.Mutex
	journal map[string]struct{} // keys whose cooldown began or grew while Redis was unreachable
	resets  map[string]struct{} // keys Reset while Redis was unreachable
	tokens  map[string]string   // Once key → the token of the claim this store holds
}

var (
	_ Store = (*RedisStore)(nil)
	_ Once  = (*RedisStore)(nil)
)

// NewRedis returns a store over client with keys under prefix (e.g.
// "detour:"). logger nil means slog.Default().
func NewRedis(client redis.UniversalClient, prefix string, logger *slog.Logger) *RedisStore {
	if logger == nil {
		logger = slog.Default()
	}
	s := &RedisStore{client: client, prefix: prefix, log: logger, local: NewMemory(), now: time.Now,
		opTimeout: DefaultTimeout, journal: make(map[string]struct{}), resets: make(map[string]struct{}), tokens: make(map[string]string)}
	s.clock.measure.Store(true) // measured at the first Now
	return s
}

// SetClock replaces the local clock used for key expiry, the retry
// back-off and the local fallback (nil = time.Now), and takes it for the
// shared one: Now is now and nothing is measured, until SyncClock. Call it
// before the store is used.
func (s *RedisStore) SetClock(now func() time.Time) {
	if now == nil {
		now = time.Now
	}
	s.now = now
	s.local.SetClock(now)
	s.clock.measure.Store(false)
	s.clock.at.Store(nil)
	s.clock.given.Store(true)
}

// SetTimeout bounds each Redis operation, whatever the caller's context
// says (a canceled request still records its outcome); d <= 0 means
// DefaultTimeout. Call it while no operation is in flight (before the store
// serves requests).
func (s *RedisStore) SetTimeout(d time.Duration) {
	if d <= 0 {
		d = DefaultTimeout
	}
	s.opTimeout = d
}

// Shared reports whether the last operation reached Redis.
func (s *RedisStore) Shared() bool { return !s.down.Load() }

// localSince is when Redis stopped answering, while it does not; zero
// while it does (Tracker.Sharing).
func (s *RedisStore) localSince() time.Time {
	if !s.down.Load() {
		return time.Time{}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.down.Load() {
		return time.Time{}
	}
	return s.downSince
}

// try says whether to talk to Redis now: always while it answers; once per
// retryEvery while it is down. The caller that finds Redis due for a retry
// first writes back the journal (reconcile); until that has succeeded every
// caller keeps to local state.
func (s *RedisStore) try(ctx context.Context) bool {
	if !s.down.Load() {
		return true
	}
	s.mu.Lock()
	if !s.down.Load() {
		s.mu.Unlock()
		return true
	}
	now := s.now()
	if s.reconciling || now.Before(s.retryAt) {
		s.mu.Unlock()
		return false
	}
	s.retryAt = now.Add(retryEvery)
	if !s.journaled() {
		s.mu.Unlock()
		return true // the operation itself tells whether Redis is back
	}
	s.reconciling = true
	s.mu.Unlock()
	err := s.reconcile(ctx)
	s.mu.Lock()
	s.reconciling = false
	s.mu.Unlock()
	ok := s.done(err)
	if ok && s.journaled() {
		// Journaled after the last pass, while this store still counted as
		// down (a reset, a cooldown): written now, not at the next outage
		// (review 30i). What arrives after this point sees Redis up and
		// writes itself (localUpdate, Reset).
		if err := s.reconcile(ctx); err != nil {
			s.done(err)
		}
	}
	return ok
}

// done records the outcome of one Redis operation; it reports whether the
// result can be used (false: fall back to the local mirror). Only an
// unreachable Redis (redisfail.Outage) stops the sharing; an error reply
// about one command serves that operation locally and is logged.
func (s *RedisStore) done(err error) bool {
	if err != nil && !redisfail.Outage(err) {
		s.log.Warn("health: redis refused a command; served locally this once", "prefix", s.prefix, "err", err)
		return false
	}
	if err == nil {
		if s.down.Load() {
			s.mu.Lock()
			if s.down.Load() {
				s.down.Store(false)
				s.log.Info("health: redis is back, resumed sharing state", "prefix", s.prefix)
			}
			s.mu.Unlock()
		}
		return true
	}
	s.mu.Lock()
	s.retryAt = s.now().Add(retryEvery)
	if !s.down.Load() {
		s.down.Store(true)
		s.downSince = s.now()
		s.log.Warn("health: redis unreachable, serving from local state until it is back", "prefix", s.prefix, "err", err)
	}
	s.mu.Unlock()
	return false
}

func (s *RedisStore) opCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.WithoutCancel(ctx), s.opTimeout)
}

// Load reads all keys with one MGET and mirrors them locally. It never fails.
func (s *RedisStore) Load(ctx context.Context, keys []string) ([]Record, error) {
	if len(keys) == 0 || !s.try(ctx) {
		return s.local.Load(ctx, keys)
	}
	full := make([]string, len(keys))
	for i, k := range keys {
		full[i] = s.prefix + k
	}
	c, cancel := s.opCtx(ctx)
	vals, err := s.mget(c, full)
	cancel()
	if !s.done(err) || len(vals) != len(keys) {
		return s.local.Load(ctx, keys)
	}
	out := make([]Record, len(keys))
	var now time.Time
	for i, v := range vals {
		if str, ok := v.(string); ok {
			out[i] = decode(str)
		} else if mine := s.local.get(keys[i]); !mine.CoolUntil.IsZero() {
			// Absent from Redis, yet this replica knows a cooldown there:
			// a key outlives its cooldown by a day, so Redis lost it (a
			// restart without persistence, a failover that lagged, an
			// eviction). Written back, never shortening, as the journal
			// is; taken for empty, the whole fleet forgot it (review 40d).
			if now.IsZero() {
				now = s.Now()
			}
			if mine.CoolUntil.After(now) {
				out[i] = s.restore(ctx, keys[i], mine)
				continue
			}
		}
		s.local.put(keys[i], out[i])
	}
	return out, nil
}

// restore writes mine, this replica's record at key with a running
// cooldown, back to a Redis that lost it (Load), and returns the record
// Redis then holds (mine, while it cannot be written).
func (s *RedisStore) restore(ctx context.Context, key string, mine Record) Record {
	if _, err := s.writeBack(ctx, key); err != nil {
		if !errors.Is(err, errConflict) {
			s.done(err)
		}
		return mine
	}
	s.log.Info("health: redis had lost a running cooldown this replica knows; wrote it back", "prefix", s.prefix, "key", key)
	return s.local.get(key)
}

// mget reads keys in one round trip: MGET, or pipelined GETs on a cluster,
// where one MGET cannot span slots.
func (s *RedisStore) mget(ctx context.Context, keys []string) ([]any, error) {
	if _, ok := s.client.(*redis.ClusterClient); !ok {
		return s.client.MGet(ctx, keys...).Result()
	}
	if len(keys) == 1 { // one key: no pipeline needed
		v, err := s.client.Get(ctx, keys[0]).Result()
		if errors.Is(err, redis.Nil) || err != nil && !redisfail.Outage(err) {
			return []any{nil}, nil // absent, or foreign: a fresh record
		}
		return []any{v}, err
	}
	cmds := make([]*redis.StringCmd, len(keys))
	_, err := s.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range keys {
			cmds[i] = p.Get(ctx, k)
		}
		return nil
	})
	if redisfail.Outage(err) {
		return nil, err
	}
	// The pipeline reports only its first error, and a key that is absent
	// is one (redis.Nil): each command's own error is read, so a node that
	// did not answer is an outage, never an absent key read as healthy.
	vals := make([]any, len(keys))
	for i, cmd := range cmds {
		switch v, err := cmd.Result(); {
		case err == nil:
			vals[i] = v
		case errors.Is(err, redis.Nil), !redisfail.Outage(err):
			// Absent, or foreign (WRONGTYPE): a fresh record, as MGET
			// reads a key that holds no string.
		default:
			return nil, err
		}
	}
	return vals, nil
}

// errConflict ends a transaction attempt that lost a race.
var errConflict = errors.New("health: redis update conflict")

// errSlotMoving is a transaction on a Redis Cluster that did not run: its
// key's slot is being moved between masters. Not an error reply, so it
// counts as an outage (redisfail.Outage): served locally, journaled, and
// written back once Redis serves the key again.
var errSlotMoving = errors.New("health: redis cluster slot being moved; the transaction did not run")

// Update runs fn in a WATCH/MULTI transaction, retried on conflict, and
// mirrors the result locally. It never fails: with Redis unreachable (or
// contention beyond txRetries) it updates the local mirror instead, and
// journals a cooldown that began or grew so it is written back later.
func (s *RedisStore) Update(ctx context.Context, key string, fn func(*Record)) (before, after Record, err error) {
	if !s.try(ctx) {
		return s.localUpdate(ctx, key, fn)
	}
	before, after, err = s.tx(ctx, key, fn)
	if errors.Is(err, errConflict) {
		return s.local.Update(ctx, key, fn) // Redis answers; contention is not an outage
	}
	if !s.done(err) {
		return s.localUpdate(ctx, key, fn)
	}
	s.local.put(key, after)
	return before, after, nil
}

// tx is one optimistic transaction on key in Redis, retried on conflict
// (errConflict when it kept losing).
func (s *RedisStore) tx(ctx context.Context, key string, fn func(*Record)) (before, after Record, err error) {
	full := s.prefix + key
	c, cancel := s.opCtx(ctx)
	defer cancel()
	var lastErr error
	for range txRetries {
		ran := false
		lastErr = s.client.Watch(c, func(tx *redis.Tx) error {
			ran = true
			raw, err := tx.Get(c, full).Result()
			switch {
			case errors.Is(err, redis.Nil), err != nil && !redisfail.Outage(err):
				// Absent, or foreign (another type: WRONGTYPE): a fresh
				// record, which the SET below overwrites whatever it held
				// (docs/scale.md, "Redis").
				before = Record{}
			case err != nil:
				return err
			default:
				before = decode(raw)
			}
			after = before
			fn(&after)
			if after == before {
				return nil // nothing to write: UNWATCH on return
			}
			data, err := json.Marshal(&after)
			if err != nil {
				return err
			}
			_, err = tx.TxPipelined(c, func(p redis.Pipeliner) error {
				p.Set(c, full, data, s.ttl(&after))
				return nil
			})
			return err
		}, full)
		if lastErr == nil && !ran {
			// go-redis's cluster WATCH gave up following the redirects of
			// a slot being moved (ASK to the new master, which answers
			// MOVED back without ASKING) and said nothing: the transaction
			// never ran. Taken for a write, the verdict was lost unseen
			// (review 40d); a slot on the move is a Redis that cannot
			// serve this key now, as TRYAGAIN says of other commands.
			return before, after, errSlotMoving
		}
		if !errors.Is(lastErr, redis.TxFailedErr) {
			return before, after, lastErr
		}
		time.Sleep(time.Duration(rand.Int64N(int64(200 * time.Microsecond)))) // de-synchronize contenders
	}
	return before, after, errConflict
}

// ttl is the expiry of a record: keepFor past its last cooldown or lease,
// whose rest counts for at most keepLongest (a sum past that overflowed
// into a key with no expiry at all; the tracker bounds a cooldown by the
// longest configured long before that).
func (s *RedisStore) ttl(r *Record) time.Duration {
	end := r.CoolUntil
	if r.ProbeUntil.After(end) {
		end = r.ProbeUntil
	}
	return keepFor + min(max(end.Sub(s.Now()), 0), keepLongest)
}

// Claim is SET NX PX in Redis, with a token of this claim as the value: true
// for exactly one caller per key per ttl across replicas. While Redis is
// unreachable it claims locally.
func (s *RedisStore) Claim(ctx context.Context, key string, ttl time.Duration) bool {
	if !s.try(ctx) {
		return s.local.Claim(ctx, key, ttl)
	}
	token := strconv.FormatUint(rand.Uint64(), 36) + strconv.FormatUint(rand.Uint64(), 36)
	c, cancel := s.opCtx(ctx)
	won, err := s.client.SetNX(c, s.prefix+"once:"+key, token, ttl).Result()
	cancel()
	if !s.done(err) {
		return s.local.Claim(ctx, key, ttl)
	}
	if won { // so a fallback right after does not claim again here
		s.local.claimUntil(key, s.now().Add(ttl))
		s.jmu.Lock()
		s.tokens[key] = token
		s.jmu.Unlock()
	}
	return won
}

// releaseScript deletes a claim only if it still holds the token given: a
// claim that expired and was won by another replica is not touched.
var releaseScript = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`)

// Release gives back a claim this store won, so the next Claim of key (by any
// replica) may win before ttl. A claim held by someone else is not touched.
// While Redis is unreachable only the local claim goes; the one in Redis
// then lapses with its ttl.
func (s *RedisStore) Release(ctx context.Context, key string) {
	s.local.Release(ctx, key)
	s.jmu.Lock()
	token, ok := s.tokens[key]
	delete(s.tokens, key)
	s.jmu.Unlock()
	if !ok || !s.try(ctx) {
		return
	}
	c, cancel := s.opCtx(ctx)
	err := releaseScript.Run(c, s.client, []string{s.prefix + "once:" + key}, token).Err()
	cancel()
	s.done(err)
}

// decode reads a stored record; a value it cannot read counts as empty.
func decode(s string) Record {
	var r Record
	if json.Unmarshal([]byte(s), &r) != nil {
		return Record{}
	}
	return r
}

package health

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

const (
	// keepFor is how long a key outlives its last cooldown or lease, so
	// latency and counts survive a quiet night but nothing stale lingers.
	keepFor = 24 * time.Hour
	// retryEvery bounds how often a down Redis is tried again.
	retryEvery = time.Second
	// txRetries bounds optimistic retries of one Update under contention.
	txRetries = 64
	// defaultOpTimeout bounds one Redis operation, whatever the caller's
	// context says (a canceled request still records its outcome).
	defaultOpTimeout = 500 * time.Millisecond
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

	down    atomic.Bool // fast path: false while Redis answers
	mu      sync.Mutex  // guards retryAt and the transitions of down
	retryAt time.Time
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
	return &RedisStore{client: client, prefix: prefix, log: logger, local: NewMemory(), now: time.Now, opTimeout: defaultOpTimeout}
}

// SetClock replaces the clock used for key expiry, the retry back-off and
// the local fallback (nil = time.Now). Call it before the store is used.
func (s *RedisStore) SetClock(now func() time.Time) {
	if now == nil {
		now = time.Now
	}
	s.now = now
	s.local.SetClock(now)
}

// Shared reports whether the last operation reached Redis.
func (s *RedisStore) Shared() bool { return !s.down.Load() }

// try says whether to talk to Redis now: always while it answers; once per
// retryEvery while it is down.
func (s *RedisStore) try() bool {
	if !s.down.Load() {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.down.Load() {
		return true
	}
	now := s.now()
	if now.Before(s.retryAt) {
		return false
	}
	s.retryAt = now.Add(retryEvery)
	return true
}

// done records the outcome of one Redis operation; it reports whether the
// result can be used (false: fall back to the local mirror).
func (s *RedisStore) done(err error) bool {
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
	if len(keys) == 0 || !s.try() {
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
	for i, v := range vals {
		if str, ok := v.(string); ok {
			out[i] = decode(str)
		}
		s.local.put(keys[i], out[i])
	}
	return out, nil
}

// mget reads keys in one round trip: MGET, or pipelined GETs on a cluster,
// where one MGET cannot span slots.
func (s *RedisStore) mget(ctx context.Context, keys []string) ([]any, error) {
	if _, ok := s.client.(*redis.ClusterClient); !ok {
		return s.client.MGet(ctx, keys...).Result()
	}
	cmds := make([]*redis.StringCmd, len(keys))
	_, err := s.client.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, k := range keys {
			cmds[i] = p.Get(ctx, k)
		}
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, err
	}
	vals := make([]any, len(keys))
	for i, cmd := range cmds {
		if v, err := cmd.Result(); err == nil {
			vals[i] = v
		}
	}
	return vals, nil
}

// errConflict ends a transaction attempt that lost a race.
var errConflict = errors.New("health: redis update conflict")

// Update runs fn in a WATCH/MULTI transaction, retried on conflict, and
// mirrors the result locally. It never fails: with Redis unreachable (or
// contention beyond txRetries) it updates the local mirror instead.
func (s *RedisStore) Update(ctx context.Context, key string, fn func(*Record)) (before, after Record, err error) {
	if !s.try() {
		return s.local.Update(ctx, key, fn)
	}
	full := s.prefix + key
	c, cancel := s.opCtx(ctx)
	defer cancel()
	var lastErr error
	for range txRetries {
		lastErr = s.client.Watch(c, func(tx *redis.Tx) error {
			raw, err := tx.Get(c, full).Result()
			switch {
			case errors.Is(err, redis.Nil):
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
		if !errors.Is(lastErr, redis.TxFailedErr) {
			break
		}
		lastErr = errConflict
		time.Sleep(time.Duration(rand.Int64N(int64(200 * time.Microsecond)))) // de-synchronize contenders
	}
	if errors.Is(lastErr, errConflict) {
		return s.local.Update(ctx, key, fn) // Redis answers; contention is not an outage
	}
	if !s.done(lastErr) {
		return s.local.Update(ctx, key, fn)
	}
	s.local.put(key, after)
	return before, after, nil
}

// ttl is the expiry of a record: keepFor past its last cooldown or lease.
func (s *RedisStore) ttl(r *Record) time.Duration {
	d := keepFor
	end := r.CoolUntil
	if r.ProbeUntil.After(end) {
		end = r.ProbeUntil
	}
	if left := end.Sub(s.now()); left > 0 {
		d += left
	}
	return d
}

// Claim is SET NX PX in Redis: true for exactly one caller per key per ttl
// across replicas. While Redis is unreachable it claims locally.
func (s *RedisStore) Claim(ctx context.Context, key string, ttl time.Duration) bool {
	if !s.try() {
		return s.local.Claim(ctx, key, ttl)
	}
	c, cancel := s.opCtx(ctx)
	won, err := s.client.SetNX(c, s.prefix+"once:"+key, 1, ttl).Result()
	cancel()
	if !s.done(err) {
		return s.local.Claim(ctx, key, ttl)
	}
	if won { // so a fallback right after does not claim again here
		s.local.claimUntil(key, s.now().Add(ttl))
	}
	return won
}

// decode reads a stored record; a value it cannot read counts as empty.
func decode(s string) Record {
	var r Record
	if json.Unmarshal([]byte(s), &r) != nil {
		return Record{}
	}
	return r
}

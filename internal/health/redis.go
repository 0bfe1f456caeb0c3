package health

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
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
	reconciling bool         // one caller is writing the journal back
	downSince   time.Time    // when Redis last stopped answering (while down)
	lostAt      atomic.Int64 // unix ns when Redis was last found to have lost state; 0: never (StateLost)

	jmu     sync.Mutex
	journal map[string]struct{}  // keys whose cooldown began or grew while Redis was unreachable
	resets  map[string]struct{}  // keys Reset while Redis was unreachable
	tokens  map[string]string    // Once key → the token of the claim this store holds
	held    map[string]time.Time // Once key → the end of a claim made locally while Redis was unreachable (redis_claim.go)
	writing map[string]bool      // Once keys whose held claim one caller is writing to Redis now (writeClaim)

	smu  sync.Mutex
	seen map[string]seenValue // key → its value in Redis as last read or written (tx)
	// noScripts: the Redis user may not run scripts (NOPERM): updates are
	// WATCH/MULTI transactions from then on (redis_watch.go).
	noScripts atomic.Bool
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
		opTimeout: DefaultTimeout, journal: make(map[string]struct{}), resets: make(map[string]struct{}), tokens: make(map[string]string),
		held: make(map[string]time.Time), writing: make(map[string]bool), seen: make(map[string]seenValue)}
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

// StateLost says Redis was found, at at, to have lost the state the
// replicas share (restarted empty, failed over to an empty replica,
// flushed): GET /v1/health's state.lost_at (docs/scale.md, "Redis
// restarted empty").
func (s *RedisStore) StateLost(at time.Time) { s.lostAt.Store(at.UnixNano()) }

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
	// A Redis Cluster may have promoted a replica in place of a master
	// that stopped answering: the retry a second from now goes to it.
	redisfail.Rediscover(s.client)
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
	vals, ok := s.read(ctx, keys)
	if !ok {
		return s.local.Load(ctx, keys)
	}
	out := make([]Record, len(keys))
	var now time.Time
	for i, v := range vals {
		out[i] = s.absorb(ctx, keys[i], v, &now)
	}
	return out, nil
}

// read gets keys' values from Redis in one round trip (mget), one a key,
// and reports whether Redis answered.
func (s *RedisStore) read(ctx context.Context, keys []string) ([]any, bool) {
	full := make([]string, len(keys))
	for i, k := range keys {
		full[i] = s.prefix + k
	}
	c, cancel := s.opCtx(ctx)
	vals, err := s.mget(c, full)
	cancel()
	return vals, s.done(err) && len(vals) == len(keys)
}

// absorb is the record at key from v, its value as Redis gave it (a string,
// or nil for an absent or foreign key), mirrored locally; *now is the
// shared clock's now, read once when first needed.
func (s *RedisStore) absorb(ctx context.Context, key string, v any, now *time.Time) Record {
	before := s.saw(key, v)
	var rec Record
	if str, ok := v.(string); ok {
		rec = decode(str)
	} else if mine := s.local.get(key); !mine.CoolUntil.IsZero() {
		// Absent from Redis, yet this replica knows a cooldown there:
		// a key outlives its cooldown by a day, so Redis lost it (a
		// restart without persistence, a failover that lagged, an
		// eviction). Written back, never shortening, as the journal
		// is; taken for empty, the whole fleet forgot it (review 40d).
		// So is a cooldown over but never closed (probing: the endpoint
		// has not answered since), which read as healthy, its failures
		// and cause gone (operator review 55) — when this replica read
		// it in Redis within probingFresh: an older copy may be of a
		// record another replica's probe has closed since (review 55).
		if now.IsZero() {
			*now = s.Now()
		}
		fresh := before.present && s.now().Sub(before.at) < probingFresh
		if mine.CoolUntil.After(*now) || (mine.LastCooldown > 0 && fresh) {
			return s.restore(ctx, key, mine)
		}
	}
	s.local.put(key, rec)
	return rec
}

// Refresh reads again from Redis every record this replica holds open
// (cooling, or probing): what another replica changed since this one last
// read it — an operator's reset, a probe's close — replaces the copy here.
// A replica that served no request touching a provider kept its copy of a
// cooldown an operator had ended, and wrote it back over the reset when
// Redis next restarted empty (operator review 56). A key Redis does not
// hold is left as it is: whether Redis lost it is for a request's Load to
// judge (absorb), not for a timer, which would keep a removed provider's
// records alive. A copy this process changed while the read was on its
// way (its own reset, a request's close) is left as it is (review 56: the
// older value read put the ended cooldown back). The caller runs it every
// few seconds; a handful of keys, one round trip.
func (s *RedisStore) Refresh(ctx context.Context) {
	keys := s.local.open()
	if len(keys) == 0 || !s.try(ctx) {
		return
	}
	held := make([]Record, len(keys))
	for i, k := range keys {
		held[i] = s.local.get(k)
	}
	vals, ok := s.read(ctx, keys)
	if !ok {
		return
	}
	for i, v := range vals {
		if str, ok := v.(string); ok && s.local.swap(keys[i], held[i], decode(str)) {
			s.saw(keys[i], v)
		}
	}
}

// restore writes mine, this replica's record at key with a running
// cooldown or one over but not closed, back to a Redis that lost it
// (Load), and returns the record Redis then holds (mine, while it cannot
// be written).
func (s *RedisStore) restore(ctx context.Context, key string, mine Record) Record {
	if _, err := s.writeBack(ctx, key); err != nil {
		if !errors.Is(err, errConflict) {
			s.done(err)
		}
		return mine
	}
	s.log.Info("health: redis had lost a cooldown this replica knows; wrote it back", "prefix", s.prefix, "key", key)
	s.StateLost(time.Now())
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

// probingFresh is how recently a replica must have read a record of its
// own in Redis for it to write that record back as probing (absorb): a
// copy older than that may be of a record another replica has closed since.
const probingFresh = time.Minute

// decode reads a stored record; a value it cannot read counts as empty.
func decode(s string) Record {
	var r Record
	if json.Unmarshal([]byte(s), &r) != nil {
		return Record{}
	}
	return r
}

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

// errConflict ends a transaction attempt that lost a race.
var errConflict = errors.New("health: redis update conflict")

// Update runs fn as one atomic compare-and-set (casScript), retried on
// conflict, and mirrors the result locally. It never fails: with Redis
// unreachable (or contention beyond txRetries) it updates the local mirror
// instead, and journals a cooldown that began or grew so it is written back
// later.
func (s *RedisStore) Update(ctx context.Context, key string, fn func(*Record), ch *Change) error {
	if ch == nil {
		ch = new(Change)
	}
	if !s.try(ctx) {
		return s.localUpdate(ctx, key, fn, ch)
	}
	var err error
	_, err = s.tx(ctx, key, "", fn, ch)
	if errors.Is(err, errConflict) {
		return s.local.Update(ctx, key, fn, ch) // Redis answers; contention is not an outage
	}
	if !s.done(err) {
		return s.localUpdate(ctx, key, fn, ch)
	}
	s.local.put(key, ch.After)
	return nil
}

// UpdateAlong is Update that also reads the record at along, a key of the
// same hash tag (an endpoint's account), in the same round trip, as Load
// reads it, into other; it reports false when other could not be read with
// the update (Redis unreachable, contention): the caller then Loads it. A
// success's report reads its account this way, so it costs one round trip,
// not two.
func (s *RedisStore) UpdateAlong(ctx context.Context, key, along string, fn func(*Record), ch *Change, other *Record) bool {
	if !s.try(ctx) {
		_ = s.localUpdate(ctx, key, fn, ch)
		return false
	}
	var err error
	var v any
	v, err = s.tx(ctx, key, along, fn, ch)
	if errors.Is(err, errConflict) {
		_ = s.local.Update(ctx, key, fn, ch)
		return false
	}
	if !s.done(err) {
		_ = s.localUpdate(ctx, key, fn, ch)
		return false
	}
	s.local.put(key, ch.After)
	if s.noScripts.Load() { // a transaction read nothing alongside
		return false
	}
	var now time.Time
	*other = s.absorb(ctx, along, v, &now)
	return true
}

// casScript is one update of a record: KEYS[1] the record, KEYS[2] (when
// given) a record of the same hash tag read alongside. ARGV[1] is "1" when
// the caller last saw KEYS[1] hold ARGV[2], "0" when it saw it absent;
// ARGV[3] the new value ("": nothing to write, the caller only checks what
// it saw is current), ARGV[4] its expiry in ms. While KEYS[1] holds what
// the caller saw, the new value is written and the reply is {1, nil,
// other}; otherwise nothing is written and the reply is {0, current,
// other}, for the caller to decide again on the current value. A value
// that is not a string (a foreign key of another type, which GET refuses)
// reads as absent, and the SET overwrites it (docs/scale.md, "Redis"). One
// round trip where WATCH, GET and MULTI/SET/EXEC took three, and none of
// them on a record the caller saw current: the store keeps the last value
// it read or wrote of each key (seen).
var casScript = redis.NewScript(`
local function get(k)
  local v = redis.pcall("GET", k)
  if type(v) ~= "string" then return false end
  return v
end
local cur = get(KEYS[1])
local other = false
if #KEYS > 1 then other = get(KEYS[2]) end
local saw = false
if ARGV[1] == "1" then saw = ARGV[2] end
if cur ~= saw then return {0, cur, other} end
if ARGV[3] ~= "" then redis.call("SET", KEYS[1], ARGV[3], "PX", ARGV[4]) end
return {1, false, other}`)

// seenValue is the last value this store read or wrote of a key.
type seenValue struct {
	raw     string
	present bool
	at      time.Time // when it was read or written (this process's clock)
}

// probingFresh is how recently a replica must have read a record of its
// own in Redis for it to write that record back as probing (absorb): a
// copy older than that may be of a record another replica has closed since.
const probingFresh = time.Minute

// maxSeen bounds the values kept: past it they are forgotten, and the next
// update of each key costs a round trip more.
const maxSeen = 4096

// saw notes v, a value read from Redis (a string, or nil for an absent or
// foreign key), as the current one of key, and returns the one before.
func (s *RedisStore) saw(key string, v any) seenValue {
	str, ok := v.(string)
	s.smu.Lock()
	if len(s.seen) >= maxSeen {
		clear(s.seen)
	}
	prev := s.seen[key]
	s.seen[key] = seenValue{raw: str, present: ok, at: s.now()}
	s.smu.Unlock()
	return prev
}

// tx is one atomic update of key in Redis by fn, retried on conflict
// (errConflict when it kept losing), starting from the value this store saw
// last, writing the record before and after into ch; with along, it returns
// the value of that key too (nil when absent or foreign).
func (s *RedisStore) tx(ctx context.Context, key, along string, fn func(*Record), ch *Change) (other any, err error) {
	before, after := &ch.Before, &ch.After
	full := s.prefix + key
	keys := []string{full}
	if along != "" {
		keys = append(keys, s.prefix+along)
	}
	c, cancel := s.opCtx(ctx)
	defer cancel()
	if s.noScripts.Load() {
		return nil, s.watchTx(c, key, fn, ch)
	}
	s.smu.Lock()
	cur := s.seen[key]
	s.smu.Unlock()
	for i := range txRetries {
		*before = Record{}
		if cur.present {
			// What is not a record reads as a fresh one, which the write
			// overwrites (docs/scale.md, "Redis").
			*before = decode(cur.raw)
		}
		*after = *before
		fn(after)
		var data []byte
		if *after != *before {
			if data, err = json.Marshal(after); err != nil {
				return nil, err
			}
		}
		present := "0"
		if cur.present {
			present = "1"
		}
		reply, err := casScript.Run(c, s.client, keys, present, cur.raw, data, strconv.FormatInt(max(s.ttl(after).Milliseconds(), 1), 10)).Slice()
		if noPerm(err) {
			s.refuseScripts(err)
			return nil, s.watchTx(c, key, fn, ch)
		}
		if err != nil {
			return nil, err
		}
		if len(reply) < 3 {
			return nil, errors.New("health: redis update: unexpected reply")
		}
		other = reply[2]
		if won, _ := reply[0].(int64); won == 1 {
			switch {
			case data != nil:
				s.saw(key, string(data))
			case cur.present:
				s.saw(key, cur.raw)
			default:
				s.saw(key, nil)
			}
			return other, nil
		}
		s.saw(key, reply[1])
		str, ok := reply[1].(string)
		cur = seenValue{raw: str, present: ok}
		// De-synchronize contenders: those that lost to one write all
		// hold its value, and sent again at once only one of them wins.
		time.Sleep(time.Duration(rand.Int64N(int64(min(100*time.Microsecond<<min(i, 10), 10*time.Millisecond)))))
	}
	return nil, errConflict
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

// decode reads a stored record; a value it cannot read counts as empty.
func decode(s string) Record {
	var r Record
	if json.Unmarshal([]byte(s), &r) != nil {
		return Record{}
	}
	return r
}

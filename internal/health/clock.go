package health

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Replicas over one Redis compare the times each of them wrote: a cooldown's
// end, a probe lease's. Their own clocks may differ by seconds or, on a
// misconfigured host, by hours; so a RedisStore keeps Redis's clock (the
// server's TIME, measured once a minute, half the round trip taken off) and
// a Tracker over it reads that clock (docs/scale.md, "One clock"). The
// bounds a Tracker puts on records it reads assume the clock is shared
// (sanity.go); while it is not — before the first measurement, with a
// Redis that does not answer TIME — they are not applied, and records are
// taken as written.

const (
	// clockEvery is how often the offset to Redis's clock is measured again.
	clockEvery = time.Minute
	// clockSlack is how far past its bounds a record may be before a
	// Tracker bounds it: the shared clock's own error (half a round trip,
	// the drift between measurements) and the moments between a write and
	// a read.
	clockSlack = 2 * time.Second
)

// redisClock is Redis's clock as this process reads it: the last
// measurement of Redis's TIME, carried forward by the local clock's
// monotonic reading, so that a step of the host's wall clock (NTP
// correcting a host that ran an hour ahead) moves nothing. The zero value
// has measured nothing: Now is the local clock, not shared.
type redisClock struct {
	at      atomic.Pointer[clockReading] // the last measurement; nil: none
	due     atomic.Pointer[time.Time]    // the next measurement is due (local clock); nil: at once
	given   atomic.Bool                  // SetClock: the local clock is the shared one, nothing measured
	measure atomic.Bool                  // keep measuring (NewRedis, SyncClock)
	busy    atomic.Bool                  // a measurement is under way
	refused atomic.Bool                  // a refusal of TIME was logged
}

// clockReading is one measurement: Redis's TIME and the local clock at the
// middle of the round trip (with its monotonic reading, where it has one).
type clockReading struct {
	redis, local time.Time
	stepped      atomic.Bool // a step was seen since: a measurement was called for (once)
}

// since is how long ago, on the monotonic clock where both readings carry
// it, the measurement was made at local; stepped reports that the wall clock
// has since moved apart from it by more than clockSlack (a step, a resumed
// suspend) or back before it: the measurement no longer says where Redis's
// clock is until it is made again.
func (r *clockReading) since(local time.Time) (elapsed time.Duration, stepped bool) {
	elapsed = local.Sub(r.local)
	wall := time.Duration(local.UnixNano() - r.local.UnixNano())
	drift := wall - elapsed
	return elapsed, elapsed < 0 || drift > clockSlack || drift < -clockSlack
}

// Now is the time on Redis's clock as this process reads it: the last
// measurement carried forward by the time elapsed since (the local clock
// until the first measurement). A measurement that is due, or one the
// wall clock's step calls for, runs in the background.
func (s *RedisStore) Now() time.Time {
	c := &s.clock
	r := c.at.Load() // before the clock: a measurement landing between is then no step back (review 36b)
	local := s.now()
	var elapsed time.Duration
	stepped := false
	if r != nil {
		elapsed, stepped = r.since(local)
		if stepped && r.stepped.CompareAndSwap(false, true) {
			c.due.Store(nil) // measure again at once; a failure retries as usual
		}
	}
	if c.measure.Load() && c.isDue(local) && c.busy.CompareAndSwap(false, true) {
		go func() {
			defer c.busy.Store(false)
			_ = s.measureClock(context.Background())
		}()
	}
	if r == nil {
		return local
	}
	return r.redis.Add(elapsed)
}

func (c *redisClock) isDue(local time.Time) bool {
	due := c.due.Load()
	return due == nil || !local.Before(*due)
}

// ClockShared reports whether Now is Redis's clock: measured at least once
// (a failed measurement later keeps the last one), and the host's wall
// clock not stepped since (until the measurement that step calls for).
func (s *RedisStore) ClockShared() bool {
	if s.clock.given.Load() {
		return true
	}
	r := s.clock.at.Load()
	if r == nil {
		return false
	}
	_, stepped := r.since(s.now())
	return !stepped
}

// SyncClock measures Redis's clock now, and from then on once every
// clockEvery (Now starts each measurement in the background).
func (s *RedisStore) SyncClock(ctx context.Context) error {
	s.clock.given.Store(false) // SetClock's local clock is shared no longer
	s.clock.measure.Store(true)
	return s.measureClock(ctx)
}

func (s *RedisStore) measureClock(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.opTimeout)
	defer cancel()
	c, err := s.clockNode(ctx)
	if err != nil {
		s.clock.due.Store(ptr(s.now().Add(retryEvery)))
		return err
	}
	t0 := s.now()
	at, err := c.Time(ctx).Result()
	t1 := s.now()
	if err != nil {
		s.clock.due.Store(ptr(t1.Add(retryEvery)))
		var reply redis.Error
		if errors.As(err, &reply) && s.clock.refused.CompareAndSwap(false, true) {
			// An answer, not a down Redis (the store logs that): an ACL
			// without TIME (NOPERM), a proxy that does not pass it. Said once.
			s.log.Warn("health: redis refused TIME; records are taken as written, not bounded by a shared clock (docs/scale.md, \"One clock\")", "prefix", s.prefix, "err", err)
		}
		return err
	}
	s.clock.at.Store(&clockReading{redis: at, local: t0.Add(t1.Sub(t0) / 2)})
	s.clock.due.Store(ptr(t1.Add(clockEvery)))
	return nil
}

// clockKey is the key, under the store's prefix, whose master a Redis
// Cluster's clock is read from. TIME names no key, so a cluster client sends
// it to any node; replicas would read different masters' clocks, and one
// replica a different one at each measurement.
const clockKey = "clock"

// clockNode is the node whose TIME is the shared clock: on a Cluster the
// master of the prefix's clock key (the same one for every replica with
// this prefix; the client's slot map, no round trip), else the client.
func (s *RedisStore) clockNode(ctx context.Context) (redis.Cmdable, error) {
	if cc, ok := s.client.(*redis.ClusterClient); ok {
		return cc.MasterForKey(ctx, s.prefix+clockKey)
	}
	return s.client, nil
}

func ptr[T any](v T) *T { return &v }

// clockOf is the clock a Tracker over store reads when given none: Redis's
// for a RedisStore, else the local one.
func clockOf(store Store) func() time.Time {
	if rs, ok := store.(*RedisStore); ok {
		return rs.Now
	}
	return time.Now
}

// Now is t's clock: the one the times in its records and Status are on
// (Redis's over a RedisStore; compare them with this, not time.Now).
func (t *Tracker) Now() time.Time { return t.now() }

// sharedClock reports whether t's clock is the one every writer of its
// store reads: a Memory store's (one process), or a RedisStore's once
// measured. A Tracker given a clock of its own (tests) over a Memory store
// counts as shared too.
func (t *Tracker) sharedClock() bool {
	if rs, ok := t.store.(*RedisStore); ok {
		return rs.ClockShared()
	}
	return true
}

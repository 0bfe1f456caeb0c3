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

// redisClock is the offset of Redis's clock from the local one. The zero
// value is the local clock, not shared.
type redisClock struct {
	offset  atomic.Int64 // Redis's time minus the local time, ns
	next    atomic.Int64 // local unix ns of the next measurement
	shared  atomic.Bool  // measured (or given by SetClock)
	measure atomic.Bool  // keep measuring (NewRedis, SyncClock)
	busy    atomic.Bool  // a measurement is under way
	refused atomic.Bool  // a refusal of TIME was logged
}

// Now is the time on Redis's clock as this process reads it: the local
// clock plus the last measured offset (the local clock until the first
// measurement). A measurement that is due runs in the background.
func (s *RedisStore) Now() time.Time {
	local := s.now()
	c := &s.clock
	if c.measure.Load() && local.UnixNano() >= c.next.Load() && c.busy.CompareAndSwap(false, true) {
		go func() {
			defer c.busy.Store(false)
			_ = s.measureClock(context.Background())
		}()
	}
	return local.Add(time.Duration(c.offset.Load()))
}

// ClockShared reports whether Now is Redis's clock: measured at least once
// (a failed measurement later keeps the last offset).
func (s *RedisStore) ClockShared() bool { return s.clock.shared.Load() }

// SyncClock measures the offset to Redis's clock now, and from then on once
// every clockEvery (Now starts each measurement in the background).
func (s *RedisStore) SyncClock(ctx context.Context) error {
	s.clock.measure.Store(true)
	return s.measureClock(ctx)
}

func (s *RedisStore) measureClock(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, s.opTimeout)
	defer cancel()
	t0 := s.now()
	at, err := s.client.Time(ctx).Result()
	t1 := s.now()
	if err != nil {
		s.clock.next.Store(t1.Add(retryEvery).UnixNano())
		var reply redis.Error
		if errors.As(err, &reply) && s.clock.refused.CompareAndSwap(false, true) {
			// An answer, not a down Redis (the store logs that): an ACL
			// without TIME (NOPERM), a proxy that does not pass it. Said once.
			s.log.Warn("health: redis refused TIME; records are taken as written, not bounded by a shared clock (docs/scale.md, \"One clock\")", "prefix", s.prefix, "err", err)
		}
		return err
	}
	s.clock.offset.Store(int64(at.Sub(t0.Add(t1.Sub(t0) / 2))))
	s.clock.shared.Store(true)
	s.clock.next.Store(t1.Add(clockEvery).UnixNano())
	return nil
}

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

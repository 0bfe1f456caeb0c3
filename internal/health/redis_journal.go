package health

import (
	"context"
	"errors"
	"time"
)

// The journal: while Redis is unreachable a replica decides on its local
// mirror, and what it learns there that matters to the others — a cooldown
// that began or grew (a model gone, an endpoint failing, an account capped)
// — is journaled by key. When Redis answers again, the journaled records
// are written back before sharing resumes, under the never-shorten rule: a
// cooldown already in Redis that ends later wins.

// localUpdate is Update on the local mirror while Redis cannot be used; it
// journals key when the update began or extended a cooldown.
func (s *RedisStore) localUpdate(ctx context.Context, key string, fn func(*Record), ch *Change) error {
	err := s.local.Update(ctx, key, fn, ch)
	if ch.After.CoolUntil.After(ch.Before.CoolUntil) {
		s.jmu.Lock()
		s.journal[key] = struct{}{}
		s.jmu.Unlock()
		if !s.down.Load() {
			// Redis came back (and the journal was written back) between
			// this caller's choice of local state and now: write it too.
			if _, err := s.writeBack(ctx, key); err != nil && !errors.Is(err, errConflict) {
				s.done(err)
			}
		}
	}
	return err
}

// journaled reports whether anything waits to be written back.
func (s *RedisStore) journaled() bool {
	s.jmu.Lock()
	defer s.jmu.Unlock()
	return len(s.journal) > 0 || len(s.resets) > 0 || len(s.held) > 0
}

// Reset clears the record at key for every replica (Resetter). While Redis
// cannot be used it clears the local mirror and journals the reset, which
// is written back before the cooldowns learned since: a reload's clean
// slate (Tracker.Forget) outlives an outage instead of being read back
// from Redis when it returns.
func (s *RedisStore) Reset(ctx context.Context, key string) {
	s.local.put(key, Record{})
	s.jmu.Lock()
	s.resets[key] = struct{}{}
	delete(s.journal, key) // a cooldown journaled before the reset is the old one's
	s.jmu.Unlock()
	// With Redis answering (or caught up by try just now) it is written at
	// once; otherwise by the write-back when Redis returns, or by the pass
	// of a write-back running now (review 30i).
	if s.try(ctx) {
		if _, err := s.writeResets(ctx); err != nil && !errors.Is(err, errConflict) {
			s.done(err)
		}
	}
}

// writeResets writes the journaled resets to Redis, each taken off the
// journal once written.
func (s *RedisStore) writeResets(ctx context.Context) (written int, err error) {
	s.jmu.Lock()
	keys := make([]string, 0, len(s.resets))
	for k := range s.resets {
		keys = append(keys, k)
	}
	s.jmu.Unlock()
	for _, key := range keys {
		if _, err := s.tx(ctx, key, "", func(r *Record) { *r = Record{} }, new(Change)); err != nil {
			if errors.Is(err, errConflict) {
				continue
			}
			return written, err
		}
		s.jmu.Lock()
		delete(s.resets, key)
		s.jmu.Unlock()
		written++
	}
	return written, nil
}

// Journaled lists the keys waiting to be written back to Redis (for
// tests and diagnostics).
func (s *RedisStore) Journaled() []string {
	s.jmu.Lock()
	defer s.jmu.Unlock()
	out := make([]string, 0, len(s.journal))
	for k := range s.journal {
		out = append(out, k)
	}
	return out
}

// reconcilePasses bounds the passes over the journal: keys journaled during
// one pass (by requests served locally meanwhile) get the next.
const reconcilePasses = 3

// reconcile writes the journal back to Redis. It stops at the first error
// that is not contention, keeping what is left journaled; a key that keeps
// losing optimistic races stays journaled for the next attempt.
func (s *RedisStore) reconcile(ctx context.Context) error {
	written, claims := 0, 0
	defer func() {
		if written > 0 || claims > 0 {
			s.log.Info("health: wrote back to redis what was learned while it was unreachable", "prefix", s.prefix, "records", written, "claims", claims)
		}
	}()
	// The alert claims made locally meanwhile (redis_claim.go): before the
	// first request's claim after the outage asks Redis.
	claims, err := s.writeClaims(ctx)
	if err != nil {
		return err
	}
	for range reconcilePasses {
		// Resets first, each pass: one journaled while a pass ran is the
		// next pass's, before the cooldowns learned since.
		n, err := s.writeResets(ctx)
		written += n
		if err != nil {
			return err
		}
		s.jmu.Lock()
		keys := make([]string, 0, len(s.journal))
		for k := range s.journal {
			keys = append(keys, k)
		}
		s.jmu.Unlock()
		if len(keys) == 0 {
			if !s.journaled() {
				return nil
			}
			continue
		}
		for _, key := range keys {
			ok, err := s.writeBack(ctx, key)
			if errors.Is(err, errConflict) {
				continue
			}
			if err != nil {
				return err
			}
			if ok {
				written++
			}
		}
	}
	return nil
}

// writeBack writes the journaled record at key to Redis under the
// never-shorten rule and, unless a newer local change was journaled
// meanwhile, takes it off the journal. ok reports whether Redis now holds
// the journaled cooldown.
func (s *RedisStore) writeBack(ctx context.Context, key string) (ok bool, err error) {
	mine := s.local.get(key)
	now := s.Now()
	var ch Change
	_, err = s.tx(ctx, key, "", func(r *Record) { mergeCooldown(r, &mine, now) }, &ch)
	if err != nil {
		return false, err
	}
	s.jmu.Lock()
	if s.local.get(key) == mine { // nothing newer journaled meanwhile
		delete(s.journal, key)
	}
	s.jmu.Unlock()
	s.local.put(key, ch.After)
	return ch.After.CoolUntil.Equal(mine.CoolUntil), nil
}

// mergeCooldown writes a cooldown learned locally into r, the record in
// Redis, when it still runs and ends later than r's: a cooldown is never
// shortened, so a longer one in Redis wins and r is left as it is.
func mergeCooldown(r, mine *Record, now time.Time) {
	if !mine.CoolUntil.After(now) && mine.LastCooldown > 0 && *r == (Record{}) {
		// Mine's cooldown is over, unproven (probing), and Redis holds
		// nothing of the key: it lost it (absorb). Mine goes back as it
		// is, its probe lease apart.
		*r = *mine
		r.ProbeUntil, r.MeasureUntil = time.Time{}, 0
		return
	}
	if !mine.CoolUntil.After(now) || !mine.CoolUntil.After(r.CoolUntil) {
		return
	}
	if r.Def != "" && mine.Def != "" && r.Def != mine.Def {
		return // Redis's record is about something else now (a rolling deploy's other side): mine is not about it
	}
	if mine.Def != "" {
		r.Def = mine.Def // a record written back to an empty Redis keeps what it is about (define.go)
	}
	r.CoolUntil = mine.CoolUntil
	if mine.CoolFrom.After(r.CoolFrom) {
		r.CoolFrom = mine.CoolFrom
	}
	if mine.OpenSince > 0 && (r.LastCooldown == 0 || r.OpenSince <= 0 || mine.OpenSince < r.OpenSince) {
		r.OpenSince = mine.OpenSince // out since the earlier of the two
	}
	r.LastCooldown = max(r.LastCooldown, mine.LastCooldown)
	r.ProbeUntil = time.Time{}
	r.Failures = max(r.Failures, mine.Failures)
	if mine.LastClass != "" {
		r.LastClass = mine.LastClass
	}
	// Mine now ends the cooldown, so its cause is the cooldown's.
	r.CoolClass, r.CoolWords = mine.CoolClass, mine.CoolWords
	// This replica announced the change when it learned it; the others must
	// not announce it again.
	r.Announced = Cooling
}

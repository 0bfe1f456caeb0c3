package health

import (
	"context"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/detour-llm/detour/internal/redisfail"
)

// Claims (Once): the right to page about a provider and class, one replica
// per min_interval (docs/scale.md, "Alerts"). In Redis a claim is a key
// holding a token, set if absent; while Redis is unreachable a replica
// claims on its local mirror, so each replica may page once in an outage.
// Such a claim is held (s.held) until Redis answers again, and is then
// written there for the rest of its time: as first built, the first claim
// after the outage asked Redis alone, which had never seen it, and a
// replica that paged on a local claim paged again 31 s later, inside its
// min_interval of 60 s, as could every other replica (operator review 63e).

// Claim is SET NX PX in Redis, with a token of this claim as the value: true
// for exactly one caller per key per ttl across replicas. While Redis is
// unreachable it claims locally; such a claim still holds when Redis is
// back, until its ttl has passed.
func (s *RedisStore) Claim(ctx context.Context, key string, ttl time.Duration) bool {
	if !s.try(ctx) {
		return s.claimLocally(ctx, key, ttl)
	}
	if s.holds(ctx, key) {
		return false
	}
	token := newToken()
	c, cancel := s.opCtx(ctx)
	won, err := s.client.SetNX(c, s.prefix+"once:"+key, token, ttl).Result()
	cancel()
	if !s.done(err) {
		return s.claimLocally(ctx, key, ttl)
	}
	if won { // so a fallback right after does not claim again here
		s.local.claimUntil(key, s.now().Add(ttl))
		s.jmu.Lock()
		s.tokens[key] = token
		s.jmu.Unlock()
	}
	return won
}

// claimLocally is Claim on the local mirror, Redis unreachable; a claim won
// is held until it is written to Redis (writeClaim).
func (s *RedisStore) claimLocally(ctx context.Context, key string, ttl time.Duration) bool {
	if !s.local.Claim(ctx, key, ttl) {
		return false
	}
	s.jmu.Lock()
	s.held[key] = s.now().Add(ttl)
	s.jmu.Unlock()
	if !s.down.Load() {
		// Redis came back (and the held claims were written) between this
		// caller's choice of local state and now: write it too.
		if _, err := s.writeClaim(ctx, key); err != nil {
			s.done(err)
		}
	}
	return true
}

// holds reports whether this store holds a claim on key made while Redis
// was unreachable and still running; it writes it to Redis first (when the
// write-back did not: written while this caller asked, or failed).
func (s *RedisStore) holds(ctx context.Context, key string) bool {
	s.jmu.Lock()
	until, ok := s.held[key]
	s.jmu.Unlock()
	if !ok || !until.After(s.now()) {
		return false
	}
	if _, err := s.writeClaim(ctx, key); err != nil {
		s.done(err)
	}
	return true
}

// keepClaimScript writes a claim ARGV[1] for ARGV[2] ms unless the key holds
// one that lasts as long or longer: a claim written back never shortens
// another replica's (the rule cooldowns follow), nor is cut short by it.
var keepClaimScript = redis.NewScript(`
local t = redis.call("PTTL", KEYS[1])
if t == -2 or (t >= 0 and t < tonumber(ARGV[2])) then
  redis.call("SET", KEYS[1], ARGV[1], "PX", ARGV[2])
  return 1
end
return 0`)

// writeClaim writes the held claim on key to Redis for the rest of its time
// and stops holding it: Redis then says it is taken, to every replica, and
// an operator's reset on any of them (Forget) ends it. wrote reports that
// Redis now holds this claim (not one as long of another replica's). An
// error that is an outage keeps it held, for the next write-back.
//
// One caller at a time writes a key's claim: two at once (the write-back
// as Redis returns, and a storm of verdicts asking holds) wrote two tokens,
// and the second, finding the claim no longer held once the first was
// done, took that for a give-back and deleted the live claim (review 63l).
// A caller that finds another writing returns at once; the claim holds.
func (s *RedisStore) writeClaim(ctx context.Context, key string) (wrote bool, err error) {
	s.jmu.Lock()
	until, ok := s.held[key]
	if !ok || s.writing[key] {
		s.jmu.Unlock()
		return false, nil
	}
	s.writing[key] = true
	s.jmu.Unlock()
	defer func() {
		s.jmu.Lock()
		delete(s.writing, key)
		s.jmu.Unlock()
	}()
	rest := until.Sub(s.now())
	won, token := false, newToken()
	if rest >= time.Millisecond {
		c, cancel := s.opCtx(ctx)
		full, ms := s.prefix+"once:"+key, strconv.FormatInt(rest.Milliseconds(), 10)
		if !s.noScripts.Load() {
			won, err = keepClaimScript.Run(c, s.client, []string{full}, token, ms).Bool()
			if noPerm(err) {
				s.refuseScripts(err)
			}
		}
		if s.noScripts.Load() {
			won, err = s.client.SetNX(c, full, token, rest).Result()
		}
		cancel()
		if redisfail.Outage(err) {
			return false, err
		}
		if err != nil { // about this command alone: the other replicas are not told
			s.log.Warn("health: redis refused a command; a claim made while it was unreachable is not written back", "prefix", s.prefix, "key", key, "err", err)
		}
	}
	s.jmu.Lock()
	if cur, ok := s.held[key]; ok && cur.Equal(until) {
		delete(s.held, key)
		if won {
			s.tokens[key] = token
		}
		s.jmu.Unlock()
		return won, nil
	}
	s.jmu.Unlock()
	if won { // given back (Release, Forget) while it was being written
		c, cancel := s.opCtx(ctx)
		err = releaseScript.Run(c, s.client, []string{s.prefix + "once:" + key}, token).Err()
		cancel()
	}
	return false, err
}

// writeClaims writes every held claim to Redis (reconcile); it stops at the
// first outage, keeping what is left held.
func (s *RedisStore) writeClaims(ctx context.Context) (written int, err error) {
	s.jmu.Lock()
	keys := make([]string, 0, len(s.held))
	for k := range s.held {
		keys = append(keys, k)
	}
	s.jmu.Unlock()
	for _, key := range keys {
		wrote, err := s.writeClaim(ctx, key)
		if err != nil {
			return written, err
		}
		if wrote {
			written++
		}
	}
	return written, nil
}

func newToken() string {
	return strconv.FormatUint(rand.Uint64(), 36) + strconv.FormatUint(rand.Uint64(), 36)
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
	delete(s.held, key)
	s.jmu.Unlock()
	if !ok || !s.try(ctx) {
		return
	}
	c, cancel := s.opCtx(ctx)
	err := releaseScript.Run(c, s.client, []string{s.prefix + "once:" + key}, token).Err()
	cancel()
	s.done(err)
}

// Forget ends the claim on key whichever replica won it, so the next Claim
// (by any replica) wins at once. While Redis is unreachable only the local
// claim goes; the one in Redis then lapses with its ttl.
func (s *RedisStore) Forget(ctx context.Context, key string) {
	s.local.Release(ctx, key)
	s.jmu.Lock()
	delete(s.tokens, key)
	delete(s.held, key)
	s.jmu.Unlock()
	if !s.try(ctx) {
		return
	}
	c, cancel := s.opCtx(ctx)
	err := s.client.Del(c, s.prefix+"once:"+key).Err()
	cancel()
	s.done(err)
}

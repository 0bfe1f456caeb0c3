package health

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Updates in Redis: a compare-and-set (casScript) from the value last seen.

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

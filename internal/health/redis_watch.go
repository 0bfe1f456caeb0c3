package health

import (
	"context"
	"encoding/json"
	"errors"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/detour-llm/detour/internal/redisfail"
)

// A Redis user whose ACL forbids scripts (`-@scripting`) answers the
// compare-and-set script (casScript) NOPERM. Sharing health needs no
// script, so such a store says so once and updates with WATCH/MULTI
// transactions from then on: three round trips an update, and a success's
// report reads its account apart (docs/scale.md, "Redis"). Before this
// fallback (review 41i) every update was an outage: nothing was shared and
// the log said "unreachable" and "back" every second.

// noPerm reports a command the Redis user may not run.
func noPerm(err error) bool {
	return err != nil && strings.HasPrefix(err.Error(), "NOPERM")
}

// refuseScripts switches s to transactions, and says so once.
func (s *RedisStore) refuseScripts(err error) {
	if s.noScripts.CompareAndSwap(false, true) {
		s.log.Warn("health: the redis user may not run scripts; updating with WATCH/MULTI transactions, three round trips an update instead of one (grant it +@scripting: docs/scale.md)",
			"prefix", s.prefix, "err", err)
	}
}

// errSlotMoving is a transaction on a Redis Cluster that did not run: its
// key's slot is being moved between masters. Not an error reply, so it
// counts as an outage (redisfail.Outage): served locally, journaled, and
// written back once Redis serves the key again.
var errSlotMoving = errors.New("health: redis cluster slot being moved; the transaction did not run")

// watchTx is one optimistic WATCH/MULTI transaction on key under c,
// retried on conflict (errConflict when it kept losing), writing the
// record before and after into ch.
func (s *RedisStore) watchTx(c context.Context, key string, fn func(*Record), ch *Change) error {
	before, after := &ch.Before, &ch.After
	full := s.prefix + key
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
				*before = Record{}
			case err != nil:
				return err
			default:
				*before = decode(raw)
			}
			*after = *before
			fn(after)
			if *after == *before {
				return nil // nothing to write: UNWATCH on return
			}
			data, err := json.Marshal(after)
			if err != nil {
				return err
			}
			_, err = tx.TxPipelined(c, func(p redis.Pipeliner) error {
				p.Set(c, full, data, s.ttl(after))
				return nil
			})
			return err
		}, full)
		if lastErr == nil && !ran {
			// go-redis's cluster WATCH gave up following the redirects of
			// a slot being moved and said nothing: the transaction never
			// ran (review 40d).
			return errSlotMoving
		}
		if !errors.Is(lastErr, redis.TxFailedErr) {
			return lastErr
		}
		time.Sleep(time.Duration(rand.Int64N(int64(200 * time.Microsecond)))) // de-synchronize contenders
	}
	return errConflict
}

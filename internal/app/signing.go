package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/signkey"
	"github.com/redis/go-redis/v9"
)

// signingKeyName is the Redis key the replicas share the thought-signature
// signing key under.
const signingKeyName = "detour:thought-signature-key"

// signingEvery is how often a replica writes its signing key back to a
// Redis that lost it, or takes up the one its fleet shares there.
const signingEvery = 5 * time.Second

// refreshEvery is how often the records this replica holds open are read
// again from Redis (health.RedisStore.Refresh).
const refreshEvery = 5 * time.Second

// signingKeys are the keys the Gemini thought signatures handed to clients
// are sealed with (docs/doors.md, "Gemini thought signatures"): random,
// made by the first replica to start and shared through Redis so that a
// client's next turn may go to any replica. With no Redis, or none
// answering at start, this process's own, until a Redis answers (syncSigning).
// The key never leaves the process but to Redis, and holds nothing of a
// provider's key.
func signingKeys(rdb redis.UniversalClient, timeout time.Duration, log *slog.Logger) (r *signkey.Ring, shared bool) {
	own := make([]byte, 32)
	_, _ = rand.Read(own) // never fails (crypto/rand)
	r = signkey.New(own)
	if rdb == nil {
		return r, false
	}
	_, _, err := shareSigningKey(rdb, r, timeout)
	if err != nil {
		log.Warn("thought signatures: the signing key could not be shared through Redis; this replica seals with its own until Redis answers, so a Gemini signature it sealed is not recognised by another replica (which sends Google's placeholder instead: docs/doors.md)", "err", err)
	}
	return r, err == nil
}

// maxSigningKey bounds the key taken up from Redis: the replicas make
// 32-byte keys, and a huge value there (a stray write) would be read every
// tick and hashed whole by every seal (hostile 55b: a 64 MiB key cost 59
// ms of CPU a seal).
const maxSigningKey = 1024

// errSigningKey is a key in Redis that is not one to seal with: shorter
// than 16 bytes or longer than maxSigningKey. Redis answered.
var errSigningKey = errors.New("the key Redis holds is not one to seal with (16 bytes to 1 KiB, a string this replica may read)")

// shareSigningKey writes r's key to Redis where Redis holds none (wrote:
// it was restarted empty, or this is the first replica) and takes up the
// key Redis holds; adopted when that changed the key r seals with (the one
// before is still recognised: a fleet that came apart agrees again, review
// 54b). The replicas write hex; a value set by hand that is not hex is
// taken as its bytes (review 55: a passphrase was refused at every tick,
// without a word, and each replica started later sealed with its own).
func shareSigningKey(rdb redis.UniversalClient, r *signkey.Ring, timeout time.Duration) (adopted, wrote bool, err error) {
	if timeout <= 0 {
		timeout = time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*timeout)
	defer cancel()
	wrote, err = rdb.SetNX(ctx, signingKeyName, hex.EncodeToString(r.Current()), 0).Result()
	if err != nil {
		return false, false, err
	}
	// No more than a key's hex and a byte: a longer value is refused
	// unread.
	v, err := rdb.GetRange(ctx, signingKeyName, 0, 2*maxSigningKey).Result()
	if err != nil && strings.HasPrefix(err.Error(), "WRONGTYPE") {
		// A value of another type under Detour's name is overwritten, as
		// any foreign value under its prefix is (docs/scale.md, "Foreign
		// values"): each replica kept its own key for good (hostile 55c).
		if err = rdb.Set(ctx, signingKeyName, hex.EncodeToString(r.Current()), 0).Err(); err == nil {
			wrote = true
			v, err = rdb.GetRange(ctx, signingKeyName, 0, 2*maxSigningKey).Result()
		}
	}
	var reply redis.Error
	if errors.As(err, &reply) {
		// Redis answered, and refused: a user that may not read or
		// write the key.
		return false, wrote, fmt.Errorf("%w: %v", errSigningKey, err)
	}
	if err != nil {
		return false, wrote, err
	}
	shared, herr := hex.DecodeString(v)
	if herr != nil {
		shared = []byte(v)
	}
	if len(v) > 2*maxSigningKey || len(shared) < 16 || len(shared) > maxSigningKey {
		return false, wrote, errSigningKey
	}
	return r.Adopt(shared), wrote, nil
}

// watchSigning shares the signing key every signingEvery until the process
// stops (docs/scale.md, "Redis restarted empty"). shared says the key was
// in Redis at start: a key this replica has to write again after Redis
// held one says Redis lost its state (GET /v1/health's state.lost_at).
func (a *App) watchSigning(timeout time.Duration, shared bool) {
	warned := false // about a key in Redis that is not one: once, until it is
	go a.every(signingEvery, func() {
		adopted, wrote, err := shareSigningKey(a.rdb, a.signing, timeout)
		if errors.Is(err, errSigningKey) {
			if !warned {
				a.log.Warn("thought signatures: the signing key in Redis is not one to seal with (a string of 16 bytes to 1 KiB this replica may read; the replicas write 32 bytes of hex); this replica keeps its own until it is (docs/scale.md)", "err", err)
			}
			warned = true
			return
		}
		if err != nil {
			return // Redis does not answer: the health store says so
		}
		warned = false
		switch {
		case wrote && shared:
			a.stateLost()
			// Said as what it tells an operator of any configuration: Redis
			// lost its data (review 64h: a line about Gemini's thought
			// signatures alarmed an operator who ran no Gemini target).
			a.log.Warn("Redis lost its data (restarted empty, an empty replica promoted, or flushed): the key the replicas share there to seal Gemini thought signatures was gone, and this replica wrote its own back (docs/scale.md)")
		case adopted && shared:
			// A key other than the one Redis held: Redis lost that one and
			// a replica started since wrote its own first, or someone
			// replaced it (hostile 55b).
			a.stateLost()
			a.log.Warn("thought signatures: the signing key in Redis changed (Redis lost it and another replica wrote its own, or it was replaced); this replica seals with it now, and still recognises what it sealed before (docs/scale.md)")
		case adopted:
			a.log.Info("thought signatures: this replica now seals with the signing key its fleet shares in Redis; what it sealed before is still recognised here")
		}
		shared = true
	})
}

// every runs fn every d until the process stops.
func (a *App) every(d time.Duration, fn func()) {
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-a.stop.Done():
			return
		case <-t.C:
			fn()
		}
	}
}

// stateLost says this replica found that Redis had lost the state the
// replicas share: GET /v1/health and the console show when.
func (a *App) stateLost() {
	if rs, ok := a.store.(*health.RedisStore); ok {
		rs.StateLost(time.Now())
	}
}

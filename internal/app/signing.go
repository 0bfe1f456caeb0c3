package app

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"
)

// signingKeyName is the Redis key the replicas share the thought-signature
// signing key under.
const signingKeyName = "detour:thought-signature-key"

// signingKey is the key the Gemini thought signatures handed to clients are
// sealed with (docs/doors.md, "Gemini thought signatures"): random, made by
// the first replica to start and shared through Redis so that a client's
// next turn may go to any replica; with no Redis (or none answering) this
// process's own, so a signature sealed before a restart or by another
// replica is not recognised and the turn goes with Google's placeholder.
// It never leaves the process but to Redis, and holds nothing of a key.
func signingKey(rdb redis.UniversalClient, timeout time.Duration, log *slog.Logger) []byte {
	own := make([]byte, 32)
	_, _ = rand.Read(own) // never fails (crypto/rand)
	if rdb == nil {
		return own
	}
	if timeout <= 0 {
		timeout = time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*timeout)
	defer cancel()
	_ = rdb.SetNX(ctx, signingKeyName, hex.EncodeToString(own), 0).Err()
	v, err := rdb.Get(ctx, signingKeyName).Result()
	var shared []byte
	if err == nil {
		shared, err = hex.DecodeString(v)
	}
	if err != nil || len(shared) < 16 {
		log.Warn("thought signatures: the signing key could not be shared through Redis; this replica seals with its own, so a Gemini signature it sealed is not recognised by another replica (which sends Google's placeholder instead: docs/doors.md)", "err", err)
		return own
	}
	return shared
}

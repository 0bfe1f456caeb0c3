package health

import "time"

// Sharing is where a replica's health comes from now: GET /v1/health's
// "state" and the detour_state_shared gauge (docs/scale.md, "Redis
// unreachable"). Every replica answers /v1/health from its own view; a
// replica cut off from Redis shows only what it learned itself, so the
// operator must be able to tell which replicas those are.
type Sharing struct {
	// Store is the configured store: "memory" or "redis".
	Store string
	// Shared: the replica reads and writes the state every replica shares
	// (a Redis store that answers). False for a memory store, and for a
	// Redis store serving from local state because Redis does not answer.
	Shared bool
	// LocalSince is when a Redis store stopped answering; zero otherwise.
	LocalSince time.Time
	// LostAt is when this replica last found that Redis had lost the
	// state the replicas share (restarted empty, failed over to an empty
	// replica, flushed) and wrote back what it held (RedisStore.StateLost);
	// zero if it never has since it started.
	LostAt time.Time
}

// Sharing says where t's health comes from now. A Redis outage is seen by
// an operation, so a replica that has served nothing since Redis went down
// still says shared.
func (t *Tracker) Sharing() Sharing {
	switch s := t.store.(type) {
	case *RedisStore:
		since := s.localSince()
		sh := Sharing{Store: "redis", Shared: since.IsZero(), LocalSince: since}
		if ns := s.lostAt.Load(); ns != 0 {
			sh.LostAt = time.Unix(0, ns).UTC()
		}
		return sh
	default:
		return Sharing{Store: "memory"}
	}
}

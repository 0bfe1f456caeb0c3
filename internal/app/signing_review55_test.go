package app

import (
	"log/slog"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
)

// Review 55: docs/scale.md says "Whoever can write Redis can replace the
// key (a value shorter than 16 bytes is refused): the replicas then seal
// with it". An operator who replaces it with a value of 16 bytes or more
// that is not hex (a passphrase, a base64 key: the docs never say hex) has
// it refused too, by every replica, at every 5 s tick, without a word (the
// tick's error is taken for "Redis does not answer"). The running replicas
// keep what they had; every replica started afterwards seals with a random
// key of its own, so the fleet is apart, for good, and says so only once
// per new replica at start. Redis answers throughout. A value that is not
// hex is taken as its bytes now.
func TestReview55AHandSetSigningKeySplitsTheFleet(t *testing.T) {
	rs := redistest.Start(t)
	c := rs.Client(t)
	log := slog.New(slog.DiscardHandler)
	if err := c.Set(t.Context(), signingKeyName, "correct-horse-battery-staple-0123456789", 0).Err(); err != nil {
		t.Fatal(err)
	}
	b, _ := signingKeys(rs.Client(t), time.Second, log)
	d, _ := signingKeys(rs.Client(t), time.Second, log)
	// A tick on each: the fleet should agree again within 5 s (scale.md).
	_, _, errB := shareSigningKey(rs.Client(t), b, time.Second)
	_, _, errD := shareSigningKey(rs.Client(t), d, time.Second)
	if !sealedAt(b, d, seal(b)) {
		t.Errorf("two replicas started after a 39-byte key was set by hand seal with different keys, and stay apart (tick errors: %v / %v)", errB, errD)
	}
}

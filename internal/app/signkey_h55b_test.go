package app

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
)

// Hostile 55b. The key Redis holds is refused when shorter than 16 bytes,
// but taken up at any length above: a huge value written to
// detour:thought-signature-key (a stray write, a careless operator's SET of
// a file's contents, anyone who can write Redis) is read whole by every
// replica every 5 s (GET, hex decode, compare), adopted, and then hashed
// whole by every Seal and, for each of the two keys, every Unseal (HMAC
// hashes a key longer than its block first). Measured here: a 64 MiB key
// (128 MiB of hex, well under Redis's 512 MiB string limit) took 344 ms to
// take up and 59 ms of CPU per seal and per unseal, on every Gemini turn;
// the GET allocates 3x the value every tick on every replica. The key the
// replicas make is 32 bytes; a key over 1 KiB is refused now, unread.
func TestHostile55bAHugeSharedKeyIsRefused(t *testing.T) {
	rs := redistest.Start(t)
	c := rs.Client(t)
	a, _ := signingKeys(c, time.Second, slog.New(slog.DiscardHandler))
	own := bytes.Clone(a.Current())
	if err := c.Set(t.Context(), signingKeyName, strings.Repeat("ab", 1<<20), 0).Err(); err != nil {
		t.Fatal(err)
	}
	_, _, err := shareSigningKey(c, a, time.Second)
	if err == nil || !bytes.Equal(a.Current(), own) {
		t.Errorf("a %d-byte key in Redis was taken up (err %v): every seal and unseal now hashes it whole", len(a.Current()), err)
	}
}

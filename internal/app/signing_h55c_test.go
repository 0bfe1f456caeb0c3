package app

import (
	"bytes"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
	"github.com/detour-llm/detour/internal/signkey"
)

// Hostile 55c. docs/scale.md ("Foreign values"): "a key under Detour's
// prefix that holds something Detour did not write — … a list or a hash
// where a record belongs — is read as empty … and overwritten by the next
// write. One such key once put … the whole gateway's health, on local state
// for good (review 33d)." detour:thought-signature-key holding a hash (a
// careless HSET, a tool that stores structured values): SET NX finds the key
// there and writes nothing, GETRANGE answers WRONGTYPE, and watchSigning
// takes that for "Redis does not answer" and goes on, silently, every 5 s
// (only errSigningKey warns): each replica seals with its own key for good,
// so a Gemini signature sealed by one is not recognised by the next, while
// the health store says Redis is fine. Two replicas here ended with two
// keys; the hash is overwritten now, as any foreign value is.
func TestH55cSigningKeyOfAnotherTypeSplitsTheFleet(t *testing.T) {
	srv := redistest.Start(t)
	rdb := srv.Client(t)
	if err := rdb.HSet(t.Context(), signingKeyName, "key", "x").Err(); err != nil {
		t.Fatal(err)
	}
	a := signkey.New(bytes.Repeat([]byte{1}, 32))
	b := signkey.New(bytes.Repeat([]byte{2}, 32))
	var errA, errB error
	for range 2 { // two ticks each
		_, _, errA = shareSigningKey(rdb, a, time.Second)
		_, _, errB = shareSigningKey(rdb, b, time.Second)
	}
	t.Logf("replica A: %v; replica B: %v", errA, errB)
	if !bytes.Equal(a.Current(), b.Current()) {
		t.Errorf("two replicas over one Redis seal with two keys (A %x…, B %x…): the foreign value at %s is neither overwritten nor said (errSigningKey: %v, %v)",
			a.Current()[:4], b.Current()[:4], signingKeyName, errA == errSigningKey, errB == errSigningKey)
	}
}

package app

import (
	"bytes"
	"log/slog"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/redistest"
	"github.com/detour-llm/detour/internal/signkey"
)

// sealedAt reports whether a signature replica from sealed (before or
// now) is recognised at replica at.
func sealedAt(from, at *signkey.Ring, sealed string) bool {
	ep := provider.Endpoint{Account: "gemini", Model: "gemini-3-pro-preview", APIKey: "k", Signing: at}
	return provider.Unseal(ep, sealed) == "c2lnbmF0dXJl"
}

func seal(r *signkey.Ring) string {
	return provider.Seal(provider.Endpoint{Account: "gemini", Model: "gemini-3-pro-preview", APIKey: "k", Signing: r}, "c2lnbmF0dXJl")
}

// Review 54b: the key was read once, at start. A Redis restarted empty was
// given a new key by the next replica to start while the running ones kept
// the old, and a signature sealed at one went as Google's placeholder at
// the other until every replica restarted. A running replica now writes
// its key back to a Redis that lost it.
func TestSigningKeyWrittenBackToARedisRestartedEmpty(t *testing.T) {
	rs := redistest.Start(t)
	a, _ := signingKeys(rs.Client(t), time.Second, slog.New(slog.DiscardHandler))
	before := seal(a)
	rs.Kill()
	rs.Start(t) // empty: nothing saved
	// Replica A's next tick:
	if _, _, err := shareSigningKey(rs.Client(t), a, time.Second); err != nil {
		t.Fatal(err)
	}
	b, _ := signingKeys(rs.Client(t), time.Second, slog.New(slog.DiscardHandler))
	if !bytes.Equal(a.Current(), b.Current()) || !sealedAt(a, b, before) || !sealedAt(b, a, seal(b)) {
		t.Fatal("a replica started after the restart does not share the running replica's key")
	}
}

// A replica that starts in the seconds before a running one writes its key
// back wins the key; the running one takes it up at its next tick, so the
// fleet agrees again, and still recognises what it sealed before.
func TestSigningKeyTakenUpFromAReplicaThatStartedFirst(t *testing.T) {
	rs := redistest.Start(t)
	a, _ := signingKeys(rs.Client(t), time.Second, slog.New(slog.DiscardHandler))
	before := seal(a)
	rs.Kill()
	rs.Start(t)
	b, _ := signingKeys(rs.Client(t), time.Second, slog.New(slog.DiscardHandler))
	if sealedAt(b, a, seal(b)) {
		t.Fatal("the replicas agree before any tick: the test proves nothing")
	}
	changed, _, err := shareSigningKey(rs.Client(t), a, time.Second)
	if err != nil || !changed {
		t.Fatalf("replica A did not take up the shared key (changed %v, err %v)", changed, err)
	}
	if !sealedAt(b, a, seal(b)) || !sealedAt(a, b, seal(a)) {
		t.Error("after A's tick the replicas still do not recognise each other's seals")
	}
	if !sealedAt(a, a, before) {
		t.Error("A no longer recognises a signature it sealed before it took up the shared key")
	}
	if changed, _, _ := shareSigningKey(rs.Client(t), a, time.Second); changed {
		t.Error("a second tick changed the key again")
	}
}

// A replica that started while Redis did not answer sealed with its own
// key for its whole life; it shares the fleet's once Redis answers.
func TestSigningKeySharedOnceRedisAnswers(t *testing.T) {
	rs := redistest.New(t) // not started: Redis does not answer
	a, _ := signingKeys(rs.Client(t), 50*time.Millisecond, slog.New(slog.DiscardHandler))
	rs.Start(t)
	b, _ := signingKeys(rs.Client(t), time.Second, slog.New(slog.DiscardHandler))
	if _, _, err := shareSigningKey(rs.Client(t), a, time.Second); err != nil {
		t.Fatal(err)
	}
	if !sealedAt(a, b, seal(a)) {
		t.Error("replica A, started without Redis, still seals with a key replica B does not know")
	}
}

// What Redis holds must be a key: a value too short to be one (an
// operator's SET, a stray write) is refused, and the replica keeps its own.
func TestSigningKeyRefusesAShortSharedKey(t *testing.T) {
	rs := redistest.Start(t)
	c := rs.Client(t)
	a, _ := signingKeys(c, time.Second, slog.New(slog.DiscardHandler))
	own := bytes.Clone(a.Current())
	if err := c.Set(t.Context(), signingKeyName, "00", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := shareSigningKey(c, a, time.Second); err == nil || !bytes.Equal(a.Current(), own) {
		t.Errorf("a one-byte key in Redis was taken up (err %v)", err)
	}
}

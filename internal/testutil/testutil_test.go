package testutil

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestClock(t *testing.T) {
	var zero Clock
	if !zero.Now().IsZero() {
		t.Fatalf("zero Clock reads %v", zero.Now())
	}
	start := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	c := NewClock(start)
	c.Advance(90 * time.Second)
	if got, want := c.Now(), start.Add(90*time.Second); !got.Equal(want) {
		t.Fatalf("after Advance: %v, want %v", got, want)
	}
	c.Set(start)
	if !c.Now().Equal(start) {
		t.Fatalf("after Set: %v, want %v", c.Now(), start)
	}
}

// Concurrent writes and reads lose nothing (and -race sees no race).
func TestBuffer(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				b.Write([]byte("x\n"))
				_ = b.String()
			}
		}()
	}
	wg.Wait()
	if n := b.Count("x\n"); n != 400 {
		t.Fatalf("Count = %d, want 400", n)
	}
	if got := b.Take(); len(got) != 800 {
		t.Fatalf("Take returned %d bytes, want 800", len(got))
	}
	if b.String() != "" {
		t.Fatalf("after Take: %q", b.String())
	}
	b.Logger().Debug("hello", "k", "v")
	if s := b.String(); !strings.Contains(s, "level=DEBUG") || !strings.Contains(s, "k=v") {
		t.Fatalf("Logger wrote %q", s)
	}
}

// Health decodes the gateway's field names and finds entries by key.
func TestHealth(t *testing.T) {
	var h Health
	body := `{"status":"serving","endpoints":[{"target":"a","provider":"p","model":"m","state":"cooling","failures":2,` +
		`"last_class":"quota","cooldown_until":"2030-01-02T03:04:05Z","latency_ms":null}],` +
		`"accounts":[{"name":"p","state":"cooling","last_class":"quota","cooldown_until":null}]}`
	if err := json.Unmarshal([]byte(body), &h); err != nil {
		t.Fatal(err)
	}
	e, ok := h.Endpoint("a", "p")
	if !ok || e.Model != "m" || e.State != "cooling" || e.Failures != 2 || e.LastClass != "quota" ||
		e.CooldownUntil == nil || e.LatencyMS != nil {
		t.Fatalf("endpoint a/p: %+v %v", e, ok)
	}
	if _, ok := h.Endpoint("a", "q"); ok {
		t.Fatal("found an endpoint a/q that is not listed")
	}
	if a, ok := h.Account("p"); !ok || a.State != "cooling" || a.CooldownUntil != nil {
		t.Fatalf("account p: %+v %v", a, ok)
	}
	if _, ok := h.Account("q"); ok {
		t.Fatal("found an account q that is not listed")
	}
}

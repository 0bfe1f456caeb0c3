package health

import (
	"context"
	"sync"
	"time"
)

// Memory is a Store and a Once held in this process: the store for a single
// replica, and the local fallback (and mirror) of RedisStore.
type Memory struct {
	mu     sync.RWMutex
	recs   map[string]Record
	claims map[string]time.Time // Once key → expiry
	now    func() time.Time
}

var (
	_ Store = (*Memory)(nil)
	_ Once  = (*Memory)(nil)
)

// NewMemory returns an empty in-process store.
func NewMemory() *Memory {
	return &Memory{recs: make(map[string]Record), claims: make(map[string]time.Time), now: time.Now}
}

// SetClock replaces the clock Claim uses for expiry (nil = time.Now). Call it
// before the store is used; tests inject the same clock as the Tracker's.
func (m *Memory) SetClock(now func() time.Time) {
	if now == nil {
		now = time.Now
	}
	m.now = now
}

// Load returns the records at keys; missing keys give zero Records. It never
// fails.
func (m *Memory) Load(_ context.Context, keys []string) ([]Record, error) {
	out := make([]Record, len(keys))
	m.mu.RLock()
	for i, k := range keys {
		out[i] = m.recs[k]
	}
	m.mu.RUnlock()
	return out, nil
}

// loadWith is Load without the slices: out[2i] and out[2i+1] are the
// records of the two keys key(i) returns, for i < n.
func (m *Memory) loadWith(n int, key func(i int) (string, string), out []Record) {
	m.mu.RLock()
	for i := range n {
		a, b := key(i)
		out[2*i], out[2*i+1] = m.recs[a], m.recs[b]
	}
	m.mu.RUnlock()
}

// Update applies fn under the store's lock. It never fails.
func (m *Memory) Update(_ context.Context, key string, fn func(*Record), ch *Change) error {
	if ch == nil {
		ch = new(Change)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	ch.Before = m.recs[key]
	ch.After = ch.Before
	fn(&ch.After)
	if ch.After == (Record{}) {
		delete(m.recs, key)
	} else {
		m.recs[key] = ch.After
	}
	return nil
}

// put overwrites the record at key (RedisStore's mirror).
func (m *Memory) put(key string, r Record) {
	m.mu.Lock()
	if r == (Record{}) {
		delete(m.recs, key)
	} else {
		m.recs[key] = r
	}
	m.mu.Unlock()
}

// Claim is true for the first caller per key until ttl has passed.
func (m *Memory) Claim(_ context.Context, key string, ttl time.Duration) bool {
	now := m.now()
	m.mu.Lock()
	defer m.mu.Unlock()
	if exp, ok := m.claims[key]; ok && now.Before(exp) {
		return false
	}
	if len(m.claims) >= 1024 { // keep the set small: drop what has expired
		for k, exp := range m.claims {
			if !now.Before(exp) {
				delete(m.claims, k)
			}
		}
	}
	m.claims[key] = now.Add(ttl)
	return true
}

// claimUntil records a claim won elsewhere (RedisStore's mirror).
func (m *Memory) claimUntil(key string, exp time.Time) {
	m.mu.Lock()
	m.claims[key] = exp
	m.mu.Unlock()
}

// open lists the keys whose records are open: cooling, or cooled and
// never closed since.
func (m *Memory) open() []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	var keys []string
	for k, r := range m.recs {
		if r.LastCooldown > 0 || !r.CoolUntil.IsZero() {
			keys = append(keys, k)
		}
	}
	return keys
}

// swap puts r at key if the record there is still old, and reports
// whether it did: a copy read before a round trip replaces nothing this
// process wrote meanwhile.
func (m *Memory) swap(key string, old, r Record) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.recs[key] != old {
		return false
	}
	if r == (Record{}) {
		delete(m.recs, key)
	} else {
		m.recs[key] = r
	}
	return true
}

// get returns the record at key (RedisStore's journal).
func (m *Memory) get(key string) Record {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.recs[key]
}

// Release gives back a claim on key, so the next Claim wins at once.
func (m *Memory) Release(_ context.Context, key string) {
	m.mu.Lock()
	delete(m.claims, key)
	m.mu.Unlock()
}

// Forget ends the claim on key, whoever won it: in one process, as Release.
func (m *Memory) Forget(ctx context.Context, key string) { m.Release(ctx, key) }

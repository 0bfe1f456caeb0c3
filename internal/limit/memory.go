package limit

import (
	"context"
	"sync"
	"time"
)

// Memory is a Counter in the process. The zero value is not usable; use
// NewMemory.
type Memory struct {
	mu    sync.Mutex
	now   func() time.Time
	m     map[string]entry
	swept time.Time
}

type entry struct {
	n       int64
	expires time.Time
}

// NewMemory returns an empty Memory; now nil means time.Now (it only
// expires counters: the windows are in the keys).
func NewMemory(now func() time.Time) *Memory {
	if now == nil {
		now = time.Now
	}
	return &Memory{now: now, m: map[string]entry{}}
}

var _ Counter = (*Memory)(nil)

// get is the live count of k; the caller holds mu.
func (m *Memory) get(k string, now time.Time) int64 {
	e, ok := m.m[k]
	if !ok || !now.Before(e.expires) {
		return 0
	}
	return e.n
}

// add adds d (at most Ceiling) to k, saturating at Ceiling; the caller
// holds mu.
func (m *Memory) add(k Key, d int64, now time.Time) {
	e := m.m[k.Name]
	if !now.Before(e.expires) {
		e = entry{}
	}
	e.n = min(e.n+d, Ceiling) // both at most Ceiling: no overflow
	if exp := now.Add(k.TTL); exp.After(e.expires) {
		e.expires = exp
	}
	m.m[k.Name] = e
}

// sweep drops expired counters, at most once a minute; the caller holds mu.
func (m *Memory) sweep(now time.Time) {
	if now.Sub(m.swept) < time.Minute {
		return
	}
	m.swept = now
	for k, e := range m.m {
		if !now.Before(e.expires) {
			delete(m.m, k)
		}
	}
}

// Admit implements Counter.
func (m *Memory) Admit(_ context.Context, keys []Key, caps []int64) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.sweep(now)
	for i, k := range keys {
		if caps[i] > 0 && m.get(k.Name, now) >= caps[i] {
			return i
		}
	}
	if caps[0] > 0 {
		m.add(keys[0], 1, now)
	}
	return -1
}

// Add implements Counter.
func (m *Memory) Add(_ context.Context, keys []Key, deltas []int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	for i, k := range keys {
		if deltas[i] != 0 {
			m.add(k, deltas[i], now)
		}
	}
}

// Read implements Counter.
func (m *Memory) Read(_ context.Context, keys []Key) []int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	out := make([]int64, len(keys))
	for i, k := range keys {
		out[i] = m.get(k.Name, now)
	}
	return out
}

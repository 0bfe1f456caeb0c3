package alert

import (
	"context"
	"sync"
	"time"
)

// Claimer grants the right to act on key to one caller per ttl: Claim returns
// true for the first caller and false for every other until ttl has passed.
// Release gives back a grant the caller won and could not use (an alert not
// delivered), so the next Claim may win at once. A store shared by all
// replicas (Redis) makes the grant cluster-wide.
type Claimer interface {
	Claim(ctx context.Context, key string, ttl time.Duration) bool
	Release(ctx context.Context, key string)
	// Forget ends a grant whoever won it: an operator's reset (Rearm).
	Forget(ctx context.Context, key string)
}

// LocalClaimer is a process-local Claimer. The zero value is ready to use.
type LocalClaimer struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	mu    sync.Mutex
	until map[string]time.Time
}

// Claim implements Claimer.
func (c *LocalClaimer) Claim(_ context.Context, key string, ttl time.Duration) bool {
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	t := now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if until, ok := c.until[key]; ok && t.Before(until) {
		return false
	}
	if c.until == nil {
		c.until = make(map[string]time.Time)
	}
	for k, u := range c.until { // keep the map small: drop expired grants
		if !t.Before(u) {
			delete(c.until, k)
		}
	}
	c.until[key] = t.Add(ttl)
	return true
}

// Release implements Claimer.
func (c *LocalClaimer) Release(_ context.Context, key string) {
	c.mu.Lock()
	delete(c.until, key)
	c.mu.Unlock()
}

// Forget implements Claimer: in one process, as Release.
func (c *LocalClaimer) Forget(ctx context.Context, key string) { c.Release(ctx, key) }

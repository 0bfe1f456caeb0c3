package health

import (
	"context"
	"maps"
	"sync"
	"sync/atomic"
	"time"
)

// What a reload changed under a name it kept (docs/scale.md, "SIGHUP:
// reloading"): Forget clears it, and Retirements keep the trackers of
// earlier configurations from recording it again.

// Forget clears what is known of endpoint k — its failures, its cooldown, a
// model found gone — as if it had never been asked. A reload that changes
// what the endpoint is (its target's model, its provider's URL) calls it:
// the old model's "gone" must not keep the corrected one from being tried
// for a day (docs/config.md, "Reload").
func (t *Tracker) Forget(ctx context.Context, k Key) {
	t.reset(ctx, t.names(k).ep)
}

// ForgetAccount clears provider's account record, as Forget an endpoint's:
// a reload that changes its key calls it, so a rejected key's cooldown does
// not outlive the key.
func (t *Tracker) ForgetAccount(ctx context.Context, provider string) {
	t.reset(ctx, acctKey(provider))
	if t.AccountForgotten != nil {
		t.AccountForgotten(ctx, provider)
	}
}

// Resetter is a Store that clears a record for good even while it cannot
// share it (RedisStore journals the reset for when Redis answers again).
type Resetter interface {
	Reset(ctx context.Context, key string)
}

func (t *Tracker) reset(ctx context.Context, key string) {
	if r, ok := t.store.(Resetter); ok {
		r.Reset(ctx, key)
		return
	}
	_ = t.store.Update(ctx, key, func(r *Record) { *r = Record{} }, nil)
}

// Retirements records, for the trackers of successive configurations,
// which endpoints each reload changed (Forget: another model, URL or key).
// A tracker of an earlier generation then records nothing for them, so an
// attempt still in flight there — however many reloads ago it started —
// cannot cool, or count against, what the endpoint is now. Safe for
// concurrent use; the zero value is ready, and a nil one retires nothing.
//
// It also keeps the longest cooldown the configuration being served can
// start (Settings.Longest), which bounds every tracker's reads: an earlier
// configuration's tracker, still serving a request in flight, must not cut
// a cooldown the newer one started to its own shorter bound (review 35b).
type Retirements struct {
	mu      sync.Mutex                     // serializes Retire
	at      atomic.Pointer[map[Key]uint64] // the generation that last changed each key; copied on write
	longest atomic.Int64                   // the served configuration's Settings.Longest; 0: none set
}

// Serve records that the configuration being served now starts no cooldown
// longer than longest.
func (r *Retirements) Serve(longest time.Duration) { r.longest.Store(int64(longest)) }

// Retire records that the configuration of generation gen changed keys.
// Reloads are rare and every report reads the map: it is copied on write,
// so Report takes no lock.
func (r *Retirements) Retire(keys []Key, gen uint64) {
	if len(keys) == 0 {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	m := make(map[Key]uint64)
	if old := r.at.Load(); old != nil {
		maps.Copy(m, *old)
	}
	for _, k := range keys {
		m[k] = gen
	}
	r.at.Store(&m)
}

func (r *Retirements) retired(k Key, gen uint64) bool {
	if r == nil {
		return false
	}
	m := r.at.Load()
	if m == nil {
		return false
	}
	at, ok := (*m)[k]
	return ok && at > gen
}

// longest is the bound of a record's cooldown: the served configuration's
// when a reload has set one, else t's own.
func (t *Tracker) longest() time.Duration {
	if t.ret != nil {
		if l := t.ret.longest.Load(); l != 0 {
			return time.Duration(l)
		}
	}
	return t.s.Longest
}

// Generation makes t the tracker of generation gen, whose reports r may
// retire (a reload calls it on each new configuration's tracker).
func (t *Tracker) Generation(r *Retirements, gen uint64) {
	t.ret, t.gen = r, gen
}

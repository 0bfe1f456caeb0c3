package gatewaytest

import (
	"sync"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/decision"
)

// patience is how long Wait and ByID wait for a record.
const patience = 30 * time.Second

// Records is a decision sink that keeps every record, in the order written.
type Records struct {
	mu   sync.Mutex
	cond *sync.Cond
	all  []*decision.Decision
}

// NewRecords returns an empty sink.
func NewRecords() *Records {
	r := &Records{}
	r.cond = sync.NewCond(&r.mu)
	return r
}

// Write keeps d.
func (r *Records) Write(d *decision.Decision) {
	r.mu.Lock()
	r.all = append(r.all, d)
	r.mu.Unlock()
	r.cond.Broadcast()
}

// Wait returns the n-th record (1-based), waiting up to 30s (a failure guard) for it.
func (r *Records) Wait(t testing.TB, n int) *decision.Decision {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.until(func() bool { return len(r.all) >= n }) {
		t.Fatalf("decision record %d never arrived (have %d)", n, len(r.all))
	}
	return r.all[n-1]
}

// ByID returns the record of decision id, waiting up to 30s (a failure guard) for it.
func (r *Records) ByID(t testing.TB, id string) *decision.Decision {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	var d *decision.Decision
	found := func() bool {
		for _, x := range r.all {
			if x.ID == id {
				d = x
				return true
			}
		}
		return false
	}
	if !r.until(found) {
		t.Fatalf("decision record %s never arrived", id)
	}
	return d
}

// until waits, r.mu held, up to patience for done to hold; it reports
// whether it did.
func (r *Records) until(done func() bool) bool {
	deadline := time.AfterFunc(patience, r.cond.Broadcast)
	defer deadline.Stop()
	start := time.Now()
	for !done() {
		if time.Since(start) > patience {
			return false
		}
		r.cond.Wait()
	}
	return true
}

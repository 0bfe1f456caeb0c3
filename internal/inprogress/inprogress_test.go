package inprogress

import (
	"sync"
	"testing"
	"time"
)

// The console lists what is in progress, oldest first, with the attempt
// each one is making, and forgets a request once it ends.
func TestSetListsWhatIsInProgress(t *testing.T) {
	var s Set
	t0 := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	a := &Request{ID: "b", API: "chat", Route: "deep", Client: "team-a", Stream: true, Started: t0.Add(time.Second)}
	b := &Request{ID: "a", API: "messages", Route: "cheap", Started: t0}
	c := &Request{ID: "c", API: "responses", Route: "deep", Started: t0.Add(time.Second)}
	s.Add(a)
	s.Add(b)
	s.Add(c)
	s.Add(c) // twice is harmless
	a.Attempt(2, "gpt", "openrouter", t0.Add(2*time.Second))
	views, total := s.List(10)
	if total != 3 || len(views) != 3 || views[0].ID != "a" || views[1].ID != "b" || views[2].ID != "c" {
		t.Fatalf("got %d %+v, want a, b, c (oldest first, ties by id)", total, views)
	}
	if at := views[1].Attempt; at == nil || at.N != 2 || at.Target != "gpt" || at.Provider != "openrouter" || !at.Started.Equal(t0.Add(2*time.Second)) {
		t.Errorf("b's attempt %+v", at)
	}
	if views[0].Attempt != nil {
		t.Errorf("a request before its first attempt shows one: %+v", views[0].Attempt)
	}
	if views, total := s.List(2); total != 3 || len(views) != 2 {
		t.Errorf("List(2): %d of %d", len(views), total)
	}
	s.Remove(a)
	s.Remove(a) // twice is harmless
	s.Remove(b)
	if views, total := s.List(10); total != 1 || views[0].ID != "c" {
		t.Errorf("after two ended: %d %+v", total, views)
	}
	s.Remove(c)
	if _, total := s.List(10); total != 0 {
		t.Errorf("%d left", total)
	}
}

// A nil Set, and a nil Request, record nothing and never panic: a server
// built without a console passes nil.
func TestNilSetKeepsNothing(t *testing.T) {
	var s *Set
	s.Add(&Request{ID: "x"})
	s.Remove(&Request{ID: "x"})
	var r *Request
	r.Attempt(1, "t", "p", time.Now())
	if v, n := s.List(5); v != nil || n != 0 {
		t.Fatal(v, n)
	}
}

// Requests come and go on many goroutines while the console reads.
func TestSetIsSafeForConcurrentUse(t *testing.T) {
	var s Set
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 200 {
				r := &Request{ID: string(rune('a' + i)), Started: time.Now()}
				s.Add(r)
				r.Attempt(j+1, "t", "p", time.Now())
				s.List(3)
				s.Remove(r)
			}
		}()
	}
	wg.Wait()
	if _, n := s.List(1); n != 0 {
		t.Fatalf("%d left", n)
	}
}

package server

import (
	"testing"

	"github.com/detour-llm/detour/internal/config"
)

// The allowance's overdraft (translate.go): a translation that does not fit
// beside the others runs when no other request is past the allowance, is
// counted apart so that it refuses no one else, and is given back when the
// translation ends, or when the request does.
func TestOneRequestAtATimeOverdrawsTheAllowance(t *testing.T) {
	s := &Server{}
	st := &State{Config: &config.Config{MaxBodyBytes: 1000, MaxInflightBodyBytes: 1000}} // one translation may cost up to 40,000
	a, b, c := &admitted{st: st, srv: s}, &admitted{st: st, srv: s}, &admitted{st: st, srv: s}
	if !s.bodies.take(600, 1000) { // b's body, read by the front
		t.Fatal("b's body does not fit")
	}
	b.held = 600

	if !s.reserve(a, 5000) {
		t.Fatal("a translation past the allowance was refused with no other request past it")
	}
	if got := s.bodies.held.Load(); got != 600 {
		t.Errorf("the overdraft is counted in the allowance the others read: held %d, want 600", got)
	}
	if s.reserve(c, 5000) {
		t.Error("a second translation past the allowance ran beside the first")
	}
	if !s.reserve(c, 300) {
		t.Error("a translation within the allowance was refused because another overdraws it")
	}
	s.settle(c, 300, 50)
	if c.held != 50 || s.bodies.held.Load() != 650 {
		t.Errorf("settling within the allowance: c holds %d, all %d; want 50, 650", c.held, s.bodies.held.Load())
	}

	s.settle(a, 5000, 120) // a's translation ends: its translated body stays counted
	if a.over != 0 || s.bodies.over.Load() != nil {
		t.Error("the overdraft outlived the translation")
	}
	if a.held != 120 || s.bodies.held.Load() != 770 {
		t.Errorf("after the overdraft: a holds %d, all %d; want 120, 770", a.held, s.bodies.held.Load())
	}
	if !s.reserve(c, 5000) {
		t.Error("the overdraft, given back, could not be taken again")
	}

	// A translation that never returns (a panic) gives the overdraft back
	// with the rest of its request.
	s.end(c)
	if s.bodies.over.Load() != nil {
		t.Error("the end of the request kept its overdraft")
	}
	s.end(a)
	s.end(b)
	if got := s.bodies.held.Load(); got != 0 {
		t.Errorf("after every request ended the allowance holds %d", got)
	}
	s.end(b) // an end run twice gives nothing back twice
	if got := s.bodies.held.Load(); got != 0 {
		t.Errorf("a second end gave back again: %d", got)
	}
}

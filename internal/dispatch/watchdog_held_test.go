package dispatch

import (
	"testing"
	"time"
)

// A client held the relay back when one write to it took heldLimit or
// more and ended just before the stream's end: not many short writes
// summed (review 52, hostile 52b: a steady reader of large events, a
// 60 ms pause every 90 s for half an hour), nor one long hold the relay
// has read normally since (hostile 52b: the upstream's own cut 4 s later).
func TestHeldBack(t *testing.T) {
	pause := func(wd *watchdog, endedAgo, took time.Duration) {
		end := time.Now().Add(-endedAgo)
		wd.mu.Lock()
		wd.pausedAt = end.Add(-took)
		wd.held(end)
		wd.mu.Unlock()
	}
	for _, c := range []struct {
		name   string
		pauses [][2]time.Duration // ended ago, took
		want   bool
	}{
		{"one long hold just now", [][2]time.Duration{{0, 1500 * time.Millisecond}}, true},
		{"one long hold, read normally since", [][2]time.Duration{{4 * time.Second, 2500 * time.Millisecond}}, false},
		{"many short writes", func() (p [][2]time.Duration) {
			for i := 0; i < 40; i++ {
				p = append(p, [2]time.Duration{time.Duration(40-i) * 50 * time.Millisecond, 250 * time.Millisecond})
			}
			return p
		}(), false},
		{"no pause", nil, false},
	} {
		wd := &watchdog{}
		for _, p := range c.pauses {
			pause(wd, p[0], p[1])
		}
		if got := wd.heldBack(); got != c.want {
			t.Errorf("%s: heldBack %v, want %v", c.name, got, c.want)
		}
	}
}

// A long write that went through at a reader's pace (one 12 MiB event to a
// client reading 2 MB/s) is no hold (hostile 52c).
func TestHeldBackNeedsASlowPace(t *testing.T) {
	for _, c := range []struct {
		bytes int
		want  bool
	}{{12 << 20, false}, {30 << 10, true}} {
		wd := &watchdog{}
		now := time.Now()
		wd.mu.Lock()
		wd.pausedAt = now.Add(-3 * time.Second)
		wd.wrote(c.bytes)
		wd.held(now)
		wd.mu.Unlock()
		if got := wd.heldBack(); got != c.want {
			t.Errorf("%d bytes in a 3 s write: heldBack %v, want %v", c.bytes, got, c.want)
		}
	}
}

package server

import (
	"fmt"
	"testing"
	"time"
)

// The first refusal of each key and limit in a window is noted, the rest
// of that window is not, and a flood of key names past maxNotes is not noted (never remembered
// without bound).
func TestRefusalNotesOnePerWindow(t *testing.T) {
	var n refusalNotes
	t0 := time.Date(2026, 12, 6, 21, 0, 0, 0, time.UTC)
	if !n.first("team-a", "usd_per_day", 1, t0, 3*time.Hour) {
		t.Fatal("the first refusal was not noted")
	}
	if n.first("team-a", "usd_per_day", 1, t0.Add(2*time.Hour), time.Hour) {
		t.Error("a second refusal in the same day was noted")
	}
	if !n.first("team-a", "requests_per_minute", 60, t0.Add(59*time.Second), time.Second) || !n.first("team-b", "usd_per_day", 1, t0, time.Hour) {
		t.Error("another limit, or another key, was not noted")
	}
	if n.first("team-a", "requests_per_minute", 60, t0.Add(59500*time.Millisecond), 500*time.Millisecond) {
		t.Error("a second rate refusal in the same minute was noted")
	}
	// Operator review 60: the next minute's first refusal, 8 s into it, was
	// noted only a minute after the last note (40 s late, and called the
	// first of its window).
	if !n.first("team-a", "requests_per_minute", 60, t0.Add(68*time.Second), 52*time.Second) {
		t.Error("the first rate refusal of the next minute was not noted at once")
	}
	// A reload forgets them all: a budget taken away and given back (or
	// any change) notes its first refusal again.
	n.reset()
	if !n.first("team-b", "usd_per_day", 1, t0.Add(time.Minute), time.Hour) {
		t.Error("after a reload, the first refusal was not noted")
	}
	if !n.first("team-a", "usd_per_day", 2, t0.Add(2*time.Hour), time.Hour) {
		t.Error("the first refusal at a cap a reload raised was not noted")
	}
	if !n.first("team-a", "usd_per_day", 1, t0.Add(3*time.Hour), time.Hour) {
		t.Error("the first refusal of the next window was not noted")
	}
	for i := range 2 * maxNotes {
		n.first(fmt.Sprintf("k%d", i), "requests_per_minute", 60, t0, time.Second)
	}
	if len(n.next) > maxNotes {
		t.Errorf("%d remembered, more than %d", len(n.next), maxNotes)
	}
}

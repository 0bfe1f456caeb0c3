package inprogress

import (
	"math/rand/v2"
	"testing"
	"time"
)

// The console's "In progress" lists exactly the requests that started and
// have not ended, whatever order they end in (the newest, the oldest, one
// in the middle, one twice, one never added): the set keeps them in a
// list through the requests themselves (docs/benchmarks.md, "Round 23").
func TestSetKeepsExactlyThoseNotEnded(t *testing.T) {
	var s Set
	t0 := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	reqs := make([]*Request, 40)
	for i := range reqs {
		reqs[i] = &Request{ID: string(rune('A' + i)), Started: t0.Add(time.Duration(i) * time.Second)}
	}
	in := map[*Request]bool{}
	rng := rand.New(rand.NewPCG(1, 2))
	for step := range 2000 {
		r := reqs[rng.IntN(len(reqs))]
		if rng.IntN(2) == 0 {
			s.Add(r)
			in[r] = true
		} else {
			s.Remove(r)
			delete(in, r)
		}
		views, total := s.List(len(reqs))
		if total != len(in) || len(views) != len(in) {
			t.Fatalf("step %d: %d listed of %d, want %d", step, len(views), total, len(in))
		}
		for i, v := range views {
			if i > 0 && !views[i-1].Started.Before(v.Started) {
				t.Fatalf("step %d: not oldest first: %v", step, views)
			}
			found := false
			for r := range in {
				found = found || r.ID == v.ID
			}
			if !found {
				t.Fatalf("step %d: %s listed, not in progress", step, v.ID)
			}
		}
	}
}

package route

import (
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
	"time"
)

// orderBefore is Order as it was with sort.SliceStable.
func orderBefore(s Strategy, cs []Candidate, rotate uint64) []int {
	idx := make([]int, len(cs))
	n := len(cs)
	for i := range idx {
		idx[i] = i
		if s == Pool && n > 0 {
			idx[i] = (i + int(rotate%uint64(n))) % n
		}
	}
	sort.SliceStable(idx, func(a, b int) bool {
		x, y := cs[idx[a]], cs[idx[b]]
		if x.Cooling != y.Cooling {
			return !x.Cooling
		}
		if x.Cooling {
			return x.Until.Before(y.Until)
		}
		switch s {
		case Fastest:
			if x.Measured != y.Measured {
				return !x.Measured
			}
			return x.Measured && x.Latency < y.Latency
		case Pool:
			return x.InFlight < y.InFlight
		case Ordered:
		}
		return false
	})
	return idx
}

// Order orders every mix of candidates as it did with sort.SliceStable:
// ties (and there are many: few distinct values) keep their order.
func TestOrderAsBefore(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for range 20000 {
		cs := make([]Candidate, r.IntN(9))
		for i := range cs {
			cs[i] = Candidate{Cooling: r.IntN(3) == 0, Until: t0.Add(time.Duration(r.IntN(3)) * time.Second),
				Measured: r.IntN(2) == 0, Latency: time.Duration(r.IntN(3)) * time.Millisecond, InFlight: int64(r.IntN(3))}
		}
		s, rot := Strategy(r.IntN(3)), r.Uint64()
		if got, want := Order(s, cs, rot), orderBefore(s, cs, rot); !slices.Equal(got, want) {
			t.Fatalf("Order(%v, %+v, %d) = %v, was %v", s, cs, rot, got, want)
		}
	}
}

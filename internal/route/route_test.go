package route

import (
	"reflect"
	"testing"
	"time"
)

func TestOrder(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 9, 0, 0, 0, time.UTC)
	ms := time.Millisecond
	cases := []struct {
		name   string
		s      Strategy
		cs     []Candidate
		rotate uint64
		want   []int
	}{
		{"ordered keeps the listed order", Ordered, []Candidate{{}, {}, {}}, 0, []int{0, 1, 2}},
		{"ordered puts cooling last", Ordered, []Candidate{{Cooling: true, Until: t0}, {}, {}}, 0, []int{1, 2, 0}},
		{"cooling last, soonest to recover first", Ordered,
			[]Candidate{{Cooling: true, Until: t0.Add(time.Hour)}, {Cooling: true, Until: t0.Add(time.Minute)}}, 0, []int{1, 0}},
		{"fastest tries never-measured first", Fastest,
			[]Candidate{{Measured: true, Latency: 5 * ms}, {}, {Measured: true, Latency: 2 * ms}}, 0, []int{1, 2, 0}},
		{"fastest: a cooling never-measured target is not first", Fastest,
			[]Candidate{{Measured: true, Latency: 50 * ms}, {Cooling: true, Until: t0}}, 0, []int{0, 1}},
		{"pool: fewest in flight first", Pool,
			[]Candidate{{InFlight: 3}, {InFlight: 1}, {InFlight: 2}}, 0, []int{1, 2, 0}},
		{"pool: ties rotate", Pool, []Candidate{{}, {}, {}}, 1, []int{1, 2, 0}},
		{"pool: ties rotate further", Pool, []Candidate{{}, {}, {}}, 5, []int{2, 0, 1}},
		{"pool: cooling last", Pool, []Candidate{{}, {Cooling: true, Until: t0}, {}}, 1, []int{2, 0, 1}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Order(tc.s, tc.cs, tc.rotate); !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// A pool with equal loads spreads consecutive requests over every member.
func TestPoolSpreads(t *testing.T) {
	first := map[int]int{}
	for r := uint64(0); r < 300; r++ {
		first[Order(Pool, make([]Candidate, 3), r)[0]]++
	}
	for i := 0; i < 3; i++ {
		if first[i] != 100 {
			t.Fatalf("member %d went first %d times of 300: %v", i, first[i], first)
		}
	}
}

func BenchmarkOrderFastest(b *testing.B) {
	cs := []Candidate{{Measured: true, Latency: 5}, {}, {Measured: true, Latency: 2}, {Cooling: true}}
	b.ReportAllocs()
	for b.Loop() {
		Order(Fastest, cs, 0)
	}
}

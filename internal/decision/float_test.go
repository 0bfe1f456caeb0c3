package decision

import (
	"encoding/json"
	"github.com/detour-llm/detour/internal/testutil"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestAppendFloatIsMarshal holds appendFloat to json.Marshal on
// Millis values across the whole range of durations, on k/1000 for k near
// the 1e15 cut-off, and on arbitrary floats that happen to be k/1000.
func TestAppendFloatIsMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	check := func(f float64) {
		t.Helper()
		want, err := json.Marshal(f)
		if err != nil {
			return
		}
		if got := appendFloat(nil, f); string(got) != string(want) {
			t.Fatalf("appendFloat(%v) = %s, json.Marshal %s", f, got, want)
		}
	}
	for _, d := range []time.Duration{0, 1, 999, 1000, -1, -999, -1000, -1001, math.MaxInt64, math.MinInt64, math.MinInt64 + 1} {
		check(Millis(d))
	}
	n := 2_000_000
	if testing.Short() || testutil.Race {
		n = 50_000 // make test runs it with -race; the full sweep: go test -run AppendFloatIsMarshal ./internal/decision
	}
	for range n {
		var k int64
		switch r.IntN(4) {
		case 0:
			k = r.Int64N(1e15) - 5e14
		case 1:
			k = int64(1e15) - r.Int64N(1e6)
		case 2:
			k = -int64(1e15) + r.Int64N(1e6)
		default:
			k = r.Int64N(1e7)
		}
		check(float64(k) / 1000)
		check(Millis(time.Duration(r.Int64())))
		check(float64(k)/1000 + math.Copysign(math.SmallestNonzeroFloat64, 1))
		check(math.Nextafter(float64(k)/1000, 0))
		check(math.Nextafter(float64(k)/1000, math.Inf(1)))
	}
}

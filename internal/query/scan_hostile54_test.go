package query

import (
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/decision"
)

// hugeLine reads as one record, then a line of n bytes without a record,
// then one more record, made as it is read (no input held in memory).
type hugeLine struct {
	head, tail string
	n          int // filler bytes left
	stage      int
}

func (h *hugeLine) Read(p []byte) (int, error) {
	switch h.stage {
	case 0:
		h.stage++
		return copy(p, h.head), nil
	case 1:
		if h.n == 0 {
			h.stage++
			return copy(p, "\"}\n"), nil
		}
		k := min(len(p), h.n)
		for i := range k {
			p[i] = 'A'
		}
		h.n -= k
		return k, nil
	case 2:
		h.stage++
		return copy(p, h.tail), nil
	}
	return 0, io.EOF
}

// hostile54: `detour decisions` (query.Scan, and Follow) read a line that
// had not ended by appending each 64 KiB read to it and searching the whole
// of it for a newline again: quadratic, and the whole line held. Measured
// with the built CLI on a log whose second line is 8, 16, 32, 128 MiB of one
// string: 0.13 s, 0.27 s, 0.75 s, 15.3 s (600 MB resident). A line past
// MaxLine is now reported and skipped in bounded memory: reading one of 256
// MiB allocates far less than the line (asserted on the allocations, not
// on a clock).
func TestHostile54ScanOfAHugeLineIsBounded(t *testing.T) {
	rec := `{"id":"ok%d","time":"2026-12-01T00:00:00Z","route":"r","attempts":[],"transitions":[]}` + "\n"
	in := &hugeLine{head: strings.Replace(rec, "%d", "1", 1) + `{"id":"x","message":"`, n: 256 << 20, tail: strings.Replace(rec, "%d", "2", 1)}
	seen, bad := 0, 0
	var long error
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	err := Scan(in, func(*decision.Decision, []byte) error { seen++; return nil }, func(b *BadLine) { bad++; long = b.Err })
	runtime.ReadMemStats(&after)
	if err != nil || seen != 2 || bad != 1 || long != ErrLongLine {
		t.Errorf("%d records and %d bad lines (%v), err %v; want 2 and 1 (ErrLongLine)", seen, bad, long, err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 128<<20 { // half the line; holding it whole allocated twice the line
		t.Errorf("reading a 256 MiB line allocated %d MiB; a line past MaxLine (%d MiB) is skipped, never held", got>>20, MaxLine>>20)
	}
}

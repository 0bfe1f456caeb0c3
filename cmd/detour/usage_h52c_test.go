package main

import (
	"fmt"
	"io"
	"runtime"
	"testing"
)

// records yields n decision lines, each its own request with one attempt.
type hostile52cRecords struct {
	i, n int
	buf  []byte
}

func (r *hostile52cRecords) Read(p []byte) (int, error) {
	for len(r.buf) == 0 {
		if r.i == r.n {
			return 0, io.EOF
		}
		r.buf = fmt.Appendf(nil, `{"id":"%016x","time":"2026-12-01T10:00:00Z","client":"team-a","route":"deep","attempts":[{"target":"gpt","provider":"openai","status":200}]}`+"\n", r.i)
		r.i++
	}
	n := copy(p, r.buf)
	r.buf = r.buf[n:]
	return n, nil
}

// `detour usage --by target` (or provider) keeps every request id it has
// read, per row, to count a request once however many attempts it made at
// the row (a row held each request id), though a request's attempts are all in its
// one record. Reading a month of rotations at once, gzip too (530d552: "usage
// … read several -f logs, gzip too"), then holds a map entry per request
// of the month: measured with the binary, a 5.6 MB .gz of 2,000,000 records
// took 280 MB of RSS by target against 25 MB by client; a busy gateway's
// month (tens of millions of requests) does not fit. The ids of the record
// being read are all that is needed.
func TestUsageByTargetHoldsNoIDPerRequest(t *testing.T) {
	const n = 300_000
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	rows, bad, err := sumUsage(&hostile52cRecords{n: n}, "target", window{})
	if err != nil || bad != 0 || len(rows) != 1 || rows[0].Requests != n {
		t.Fatalf("rows %v bad %d err %v", rows, bad, err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	runtime.KeepAlive(rows)
	t.Logf("%d records by target: %d bytes held after the sum (%.0f per record)", n, held, float64(held)/n)
	if held > 4<<20 {
		t.Errorf("summing %d records by target holds %d bytes (%.0f a record) until it ends: memory grows with the log read", n, held, float64(held)/n)
	}
}

package dispatch

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"
)

// readAtMost returns what io.ReadAll(io.LimitReader(r, max)) returns, for
// bodies shorter than, as long as and longer than the limit, read in
// chunks of every kind, with a right, wrong or unknown size hint, and
// with a read error part way.
func TestReadAtMostIsReadAllOfLimitReader(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 9))
	boom := errors.New("connection reset")
	readers := []func([]byte) io.Reader{
		func(b []byte) io.Reader { return bytes.NewReader(b) },
		func(b []byte) io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) },
		func(b []byte) io.Reader { return iotest.HalfReader(bytes.NewReader(b)) },
		func(b []byte) io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) },
		func(b []byte) io.Reader { return io.MultiReader(bytes.NewReader(b), iotest.ErrReader(boom)) },
		func(b []byte) io.Reader {
			return io.MultiReader(iotest.HalfReader(bytes.NewReader(b)), iotest.TimeoutReader(bytes.NewReader([]byte("x"))))
		},
	}
	for range 3000 {
		body := make([]byte, r.IntN(3000))
		for i := range body {
			body[i] = byte(r.IntN(256))
		}
		max := int64(r.IntN(3500)) + 1
		for _, size := range []int64{-1, int64(len(body)), int64(r.IntN(4000)), 0} {
			for i, mk := range readers {
				want, werr := io.ReadAll(io.LimitReader(mk(body), max))
				got, gerr := readAtMost(mk(body), max, size)
				if !bytes.Equal(got, want) || gerr != werr {
					t.Fatalf("reader %d, %d bytes, max %d, size %d: %d bytes, %v; ReadAll %d bytes, %v",
						i, len(body), max, size, len(got), gerr, len(want), werr)
				}
			}
		}
	}
}

func TestReadAtMostOneAllocation(t *testing.T) {
	body := bytes.Repeat([]byte("a"), 3000)
	rd := bytes.NewReader(body)
	n := testing.AllocsPerRun(100, func() {
		rd.Reset(body)
		if b, err := readAtMost(rd, 64<<20, int64(len(body))); err != nil || len(b) != len(body) {
			t.Fatal(err, len(b))
		}
	})
	if n != 1 {
		t.Errorf("%v allocations, want 1", n)
	}
}

// BenchmarkReadAnswer3KiB: a 3 KiB answer with its Content-Length, read as
// plain reads it, and as io.ReadAll of a LimitReader did.
func BenchmarkReadAnswer3KiB(b *testing.B) {
	body := bytes.Repeat([]byte("a"), 3<<10)
	rd := bytes.NewReader(body)
	b.Run("readAtMost", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			rd.Reset(body)
			_, _ = readAtMost(iotest.HalfReader(rd), 64<<20, int64(len(body)))
		}
	})
	b.Run("ReadAll", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			rd.Reset(body)
			_, _ = io.ReadAll(io.LimitReader(iotest.HalfReader(rd), 64<<20))
		}
	})
}

// A declared size is not an allocation an upstream can ask for: a body
// announced as 60 MiB that never comes holds at most maxPresize.
func TestReadAtMostTrustsNoLargeSize(t *testing.T) {
	b, err := readAtMost(bytes.NewReader([]byte("{}")), 64<<20, 60<<20)
	if err != nil || string(b) != "{}" || cap(b) > maxPresize {
		t.Fatalf("%q %v, capacity %d", b, err, cap(b))
	}
}

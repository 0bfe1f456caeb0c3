package splice

import "testing"

// Per-chunk costs: the first upstream (head kept, text tracked), a
// continuation's chunk (head rewritten), a Replay chunk held back, and a
// Join chunk after its whitespace is settled.

func BenchmarkSeamFirstUpstream(b *testing.B) {
	var s Seam
	c := content("A", "a typical token ")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Chunk(c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSeamContinuation(b *testing.B) {
	var s Seam
	if _, err := s.Chunk(content("A", "x")); err != nil {
		b.Fatal(err)
	}
	s.Next()
	c := content("B", "a typical token ")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Chunk(c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReplayHoldingBack(b *testing.B) {
	c := content("B", "a")
	b.ReportAllocs()
	r := &Replay{want: "a"}
	for b.Loop() {
		r.want, r.done = "aa", false
		if _, err := r.Chunk(c); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkJoinSettled(b *testing.B) {
	var j Join
	c := content("B", "a typical token ")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := j.Chunk(c); err != nil {
			b.Fatal(err)
		}
	}
}

package offstack

import "testing"

// BenchmarkRun is what Run adds to a piece of work: the handoff to an idle
// worker and back.
func BenchmarkRun(b *testing.B) {
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		n += Run(func() int { return 1 })
	}
}

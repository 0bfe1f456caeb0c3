package decision

import (
	"path/filepath"
	"testing"
)

// benchWrite measures Write of a typical two-attempt record to a file, from
// parallel requests.
func benchWrite(b *testing.B, o Options) {
	w, err := Open(filepath.Join(b.TempDir(), "d.jsonl"), o)
	if err != nil {
		b.Fatal(err)
	}
	d := &Decision{ID: NewID(), Route: "deep", Strategy: "ordered", Outcome: OutcomeOK, Status: 200,
		Attempts: []Attempt{{Target: "claude", Provider: "anthropic", Model: "claude-sonnet-4-5", Status: 400,
			Class: "quota", Evidence: "phrase:credit balance is too low", Action: ActionNextTarget, Counted: true},
			{Target: "gpt", Provider: "openai", Model: "gpt-4o", Status: 200, Action: ActionDone, Billable: true}},
		Transitions: []Transition{{Scope: "account", Name: "anthropic", From: "healthy", To: "cooling", Class: "quota"}}}
	b.SetParallelism(4)
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			w.Write(d)
		}
	})
	b.StopTimer()
	w.Close()
}

func BenchmarkWriteBuffered(b *testing.B) { benchWrite(b, Options{}) }

// Sync: each Write waits for its fsync; parallel Writes share one.
func BenchmarkWriteSyncAlways(b *testing.B) { benchWrite(b, Options{Sync: true}) }

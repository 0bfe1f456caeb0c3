package decision

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Flush writes what a buffered Writer holds at once (a reload reads the
// log just after it), not within FlushEvery; on a closed Writer it
// returns.
func TestFlushWritesTheBufferNow(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	w, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"one", "two"} {
		w.Write(&Decision{ID: id})
	}
	if !w.Flush(5 * time.Second) {
		t.Fatal("Flush gave up")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(string(b), "\n"); got != 2 || !strings.Contains(string(b), `"id":"two"`) {
		t.Errorf("after Flush the file holds %d records: %q", got, b)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if !w.Flush(time.Second) { // returns at once: nothing is left
		t.Error("Flush on a closed Writer gave up")
	}
}

// stalledOutput blocks every write until released (a pipe nobody reads).
type stalledOutput struct{ release chan struct{} }

func (s stalledOutput) Write(p []byte) (int, error) {
	<-s.release
	return len(p), nil
}

// A stalled output does not hold Flush past its wait: a reload that
// flushes would hold every later reload.
func TestFlushGivesUpOnAStalledOutput(t *testing.T) {
	out := stalledOutput{release: make(chan struct{})}
	w := NewWriter(out, nil, Options{})
	t.Cleanup(func() { close(out.release); w.Close() })
	w.Write(&Decision{ID: "stuck"})
	start := time.Now()
	if w.Flush(100 * time.Millisecond) {
		t.Error("Flush reported the record written to a stalled output")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Flush waited %v", d)
	}
}

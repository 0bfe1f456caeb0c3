package decision

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	w.Flush()
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
	w.Flush() // returns
}

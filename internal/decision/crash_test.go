package decision

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// A file whose last line was cut by a crash gets a newline on open: the
// next record starts on its own line and parses; the cut line is kept.
func TestOpenEndsATornLastLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	torn := `{"id":"whole"}` + "\n" + `{"id":"cut","time":"2026-`
	if err := os.WriteFile(path, []byte(torn), 0o644); err != nil {
		t.Fatal(err)
	}
	w, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(&Decision{ID: "next", Attempts: []Attempt{}, Transitions: []Transition{}})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(lines) != 3 || lines[1] != `{"id":"cut","time":"2026-` {
		t.Fatalf("lines: %q", lines)
	}
	var d Decision
	if err := json.Unmarshal([]byte(lines[2]), &d); err != nil || d.ID != "next" {
		t.Fatalf("the next record did not start on its own line: %q", lines[2])
	}
	// A file that ends with a newline, or is empty, gets nothing.
	for _, content := range []string{"", `{"id":"a"}` + "\n"} {
		p := filepath.Join(t.TempDir(), "d.jsonl")
		os.WriteFile(p, []byte(content), 0o644)
		w, err := Open(p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		w.Close()
		if b, _ := os.ReadFile(p); string(b) != content {
			t.Errorf("%q became %q", content, b)
		}
	}
}

// writes records every write call the Writer makes.
type writes struct {
	mu    sync.Mutex
	calls [][]byte
	syncs int
}

func (w *writes) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.calls = append(w.calls, append([]byte(nil), p...))
	return len(p), nil
}

func (w *writes) Sync() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.syncs++
	return nil
}

// Every write holds whole lines only, however large the records and however
// full the buffer: a crash between two writes never leaves half a record
// for the next process to append to.
func TestEveryWriteHoldsWholeLines(t *testing.T) {
	out := &writes{}
	w := NewWriter(out, nil, Options{})
	long := strings.Repeat("x", 3000)
	for i := 0; i < 500; i++ {
		w.Write(&Decision{ID: NewID(), Route: long[:i*7%3000], Attempts: []Attempt{}, Transitions: []Transition{}})
	}
	w.Write(&Decision{ID: "huge", Route: strings.Repeat("y", 200<<10)}) // larger than the buffer
	w.Close()
	n := 0
	for i, c := range out.calls {
		if len(c) == 0 || c[len(c)-1] != '\n' {
			t.Fatalf("write %d does not end a line", i)
		}
		for _, line := range bytes.Split(bytes.TrimSuffix(c, []byte("\n")), []byte("\n")) {
			var d Decision
			if err := json.Unmarshal(line, &d); err != nil {
				t.Fatalf("write %d holds a partial record: %v", i, err)
			}
			n++
		}
	}
	if n != 501 || len(out.calls) < 3 {
		t.Fatalf("%d records in %d writes", n, len(out.calls))
	}
	if out.syncs != 0 {
		t.Errorf("%d syncs without Sync", out.syncs)
	}
}

// With Sync, Write returns only once its record is written and synced.
func TestSyncWriteWaitsForTheDisk(t *testing.T) {
	out := &writes{}
	w := NewWriter(out, nil, Options{Sync: true})
	var wg sync.WaitGroup
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := NewID()
			w.Write(&Decision{ID: id})
			out.mu.Lock()
			defer out.mu.Unlock()
			var all bytes.Buffer
			for _, c := range out.calls {
				all.Write(c)
			}
			if !bytes.Contains(all.Bytes(), []byte(`"id":"`+id+`"`)) || out.syncs == 0 {
				t.Errorf("Write of %s returned before its record was written and synced", id)
			}
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second): // a failure guard, not a timing assertion
		t.Fatal("Sync writes never returned")
	}
	w.Close()
	if out.syncs > 50 || out.syncs == 0 {
		t.Errorf("%d syncs for 50 records", out.syncs)
	}
}

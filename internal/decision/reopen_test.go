package decision

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A log moved away (logrotate's create mode) is opened anew by Reopen:
// records written before it are in the moved file, later ones in a new
// file at the path; a path that still names the file is left alone
// (operator review 50: SIGHUP did not reopen it, and every record went on
// into the rotated file).
func TestReopenAfterTheLogWasMoved(t *testing.T) {
	for _, sync := range []bool{false, true} {
		dir := t.TempDir()
		path := filepath.Join(dir, "decisions.jsonl")
		w, err := Open(path, Options{Sync: sync})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(&Decision{ID: "before"})
		if err := w.Reopen(); err != nil { // not moved: nothing changes
			t.Fatal(err)
		}
		w.Write(&Decision{ID: "same"})
		if err := os.Rename(path, path+".1"); err != nil {
			t.Fatal(err)
		}
		if err := w.Reopen(); err != nil {
			t.Fatal(err)
		}
		w.Write(&Decision{ID: "after"})
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		old, _ := os.ReadFile(path + ".1")
		cur, _ := os.ReadFile(path)
		if !strings.Contains(string(old), `"before"`) || !strings.Contains(string(old), `"same"`) || strings.Contains(string(old), `"after"`) ||
			!strings.Contains(string(cur), `"after"`) || strings.Contains(string(cur), `"before"`) {
			t.Errorf("sync %v: moved file %q, new file %q", sync, old, cur)
		}
	}
}

package app

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// review51b: rotatedName takes logrotate's names decisions.jsonl.1,
// decisions.jsonl-20261205 and, for `extension .jsonl`, decisions.1.jsonl.
// With `extension .jsonl` and `dateext` together logrotate names the file
// baseName (extension stripped) + dext_str + fileext + compext
// (logrotate/logrotate logrotate.c, prerotateSingleLog:
// asprintf(&rotNames->firstRotated, "%s/%s%s%s%s", dirName, baseName,
// dext_str, fileext, compext)): decisions-20261205.jsonl(.gz). The restart
// does not read it, and every key gets back what it spent before the last
// rotation this month.
func TestR51bRestoreMissesDateextWithExtension(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	month := now.Add(-24 * time.Hour)
	live := filepath.Join(dir, "decisions.jsonl")
	for _, name := range []string{"decisions.jsonl", "decisions-20261205.jsonl", "decisions-20261204.jsonl.gz"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, now, now)
	}
	files := logFiles(live, month)
	for _, want := range []string{"decisions-20261205.jsonl", "decisions-20261204.jsonl.gz"} {
		if !slices.Contains(files, filepath.Join(dir, want)) {
			t.Errorf("logrotate's name for dateext with extension .jsonl, %s, is not read: %v", want, files)
		}
	}
}

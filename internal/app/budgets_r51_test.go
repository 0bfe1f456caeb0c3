package app

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Review 51a: logFiles takes every regular file named the log's name and
// then "." or "-" as a rotated log. Files that are not rotations match
// too: an operator's backup copy made before an upgrade
// (cp decisions.jsonl decisions.jsonl.bak), or a second Detour's live log
// beside it (decisions.jsonl-staging). Their records are added to this
// log's: the restart charges every key twice what it spent (or another
// deployment's spend), and keys are refused long before their budget.
// logrotate's names are the log's name, then ".N", ".N.gz" or a dateext
// "-YYYYMMDD" (optionally .gz): digits after the separator.
func TestR51RestoreReadsFilesThatAreNotRotations(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	month := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	day := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	rec := fmt.Appendf(nil, `{"id":"x","time":%q,"client":"team-a","attempts":[{"billable":true,"cost_usd":1}]}`+"\n", now.Add(-time.Hour).Format(time.RFC3339Nano))
	for _, name := range []string{"decisions.jsonl", "decisions.jsonl.bak", "decisions.jsonl-staging"} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, rec, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now, now); err != nil {
			t.Fatal(err)
		}
	}
	spent := map[string][2]float64{}
	files := logFiles(filepath.Join(dir, "decisions.jsonl"), month)
	for _, p := range files {
		if err := addSpent(spent, p, month, day); err != nil {
			t.Fatal(err)
		}
	}
	if got := spent["team-a"]; got != [2]float64{1, 1} {
		t.Errorf("team-a restored as %v from %v, want [1 1]: $1 was spent, once, in the live log; a backup copy and another deployment's log are no rotation of it", got, files)
	}
}

// The same record reached twice through a hard link (a backup tool's
// snapshot, logrotate's "copy" then a link): os.SameFile is not checked.
func TestR51RestoreCountsAHardLinkTwice(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	month := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	day := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	live := filepath.Join(dir, "decisions.jsonl")
	rec := fmt.Appendf(nil, `{"id":"x","time":%q,"client":"team-a","attempts":[{"billable":true,"cost_usd":1}]}`+"\n", now.Add(-time.Hour).Format(time.RFC3339Nano))
	if err := os.WriteFile(live, rec, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(live, live+".1"); err != nil {
		t.Skip(err)
	}
	spent := map[string][2]float64{}
	for _, p := range logFiles(live, month) {
		if err := addSpent(spent, p, month, day); err != nil {
			t.Fatal(err)
		}
	}
	if got := spent["team-a"]; got != [2]float64{1, 1} {
		t.Errorf("team-a restored as %v, want [1 1]: one file, reached by two names", got)
	}
}

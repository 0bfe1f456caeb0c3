package app

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Review 58: the spend cache against the rotations docs/deploy.md names.

func r58rec(now time.Time, client string, usd float64) string {
	return fmt.Sprintf(`{"id":"x","time":%q,"client":%q,"attempts":[{"billable":true,"cost_usd":%v}]}`+"\n", now.Format(time.RFC3339Nano), client, usd)
}

func r58append(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
	f.Close()
}

// logrotate's copytruncate (docs/deploy.md: "copytruncate works too"):
// the live file is copied to decisions.jsonl.1 and truncated in place —
// the same inode. Once the live file has grown past the cache's offset
// again, the cache kept the spend it read of the old content (now also
// in .1, read whole as a new file) and read the new content from the
// middle: the old content was counted twice, the new content's first
// bytes not at all. The bytes before the offset are checked now.
func TestReview58SpentCacheCopytruncateCountsTwice(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "decisions.jsonl")
	now := time.Now().UTC()
	month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	r58append(t, path, r58rec(now, "team-a", 1))
	var c spentCache
	read := func() map[string][2]float64 {
		got := map[string][2]float64{}
		for _, p := range logFiles(path, month) {
			if err := c.add(got, p, month, day); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
		}
		return got
	}
	if got := read()["team-a"]; got[1] != 1 {
		t.Fatalf("first read %v", got)
	}
	// copytruncate: copy, then truncate in place.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path+".1", b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	// Detour goes on appending (O_APPEND): team-b spends $2, team-a $4,
	// past the old offset.
	r58append(t, path, r58rec(now, "team-b", 2)+r58rec(now, "team-a", 4))
	got := read()
	whole := wholeSpent(t, month, day, logFiles(path, month)...)
	if got["team-a"] != whole["team-a"] || got["team-b"] != whole["team-b"] {
		t.Errorf("after copytruncate: cached read team-a %v team-b %v; a read of the files team-a %v team-b %v (want $5 and $2)",
			got["team-a"], got["team-b"], whole["team-a"], whole["team-b"])
	}
}

// The writer's last write stopped just before a record's newline (a full
// disk writes what fits, sink.go; or a reader sees a write half copied).
// The record is whole JSON: the cache counted it, but its offset stopped
// before it (no newline), so when the newline arrived the record was read
// and counted again. A line without its newline counts once it has one.
func TestReview58SpentCacheRecordWithoutItsNewlineCountsTwice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	now := time.Now().UTC()
	month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	r := r58rec(now, "team-a", 2)
	r58append(t, path, r58rec(now, "team-a", 1)+strings.TrimSuffix(r, "\n"))
	var c spentCache
	got := map[string][2]float64{}
	if err := c.add(got, path, month, day); err != nil {
		t.Fatal(err)
	}
	r58append(t, path, "\n")
	got, whole := cachedSpent(t, &c, path, month, day), wholeSpent(t, month, day, path)
	if got["team-a"] != whole["team-a"] {
		t.Errorf("a record whose newline came later: cached read %v, whole read %v (want $3)", got["team-a"], whole["team-a"])
	}
}

// The cache kept an entry (a map of every client's spend) for every path
// it ever read, and dropped none: a path rotated away or deleted, or last
// month's rotations that logFiles no longer lists, stay in memory for the
// life of the process. With dateext rotation that is a file a day, each
// holding a map over every client key.
func TestReview58SpentCacheForgetsNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "decisions.jsonl")
	now := time.Now().UTC()
	month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	var c spentCache
	for i := 0; i < 40; i++ {
		r58append(t, path, r58rec(now, fmt.Sprintf("team-%d", i), 1))
		c.keep(logFiles(path, month)) // as logSpent does
		for _, p := range logFiles(path, month) {
			if err := c.add(map[string][2]float64{}, p, month, day); err != nil {
				t.Fatal(err)
			}
		}
		rot := fmt.Sprintf("%s-202612%02d", path, i) // logrotate dateext, then its maxage removes it
		if err := os.Rename(path, rot); err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			os.Remove(fmt.Sprintf("%s-202612%02d", path, i-1))
		}
	}
	r58append(t, path, r58rec(now, "team-x", 1))
	c.keep(logFiles(path, month))
	for _, p := range logFiles(path, month) {
		if err := c.add(map[string][2]float64{}, p, month, day); err != nil {
			t.Fatal(err)
		}
	}
	if n := len(c.files); n > len(logFiles(path, month)) {
		t.Errorf("the cache holds %d files' spend; the log is %d files now", n, len(logFiles(path, month)))
	}
}

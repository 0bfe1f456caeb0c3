package app

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// spentSince finds this month's records by bisection in a long log and
// sums each client's billable spend as the limits count it: a known cost,
// or the recorded estimate when larger; the day's part apart.
func TestSpentSince(t *testing.T) {
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	var b bytes.Buffer
	old := now.AddDate(0, -1, 0)
	for i := range 20000 { // last month: ~3 MB the search skips
		fmt.Fprintf(&b, `{"id":"o%d","time":%q,"route":"r","client":"team-a","attempts":[{"billable":true,"cost_usd":1}]}`+"\n", i, old.Add(time.Duration(i)*time.Second).Format(time.RFC3339Nano))
	}
	line := func(at time.Time, client, attempts string) {
		fmt.Fprintf(&b, `{"id":"x","time":%q,"route":"r","client":%q,"attempts":[%s]}`+"\n", at.Format(time.RFC3339Nano), client, attempts)
	}
	line(now.AddDate(0, 0, -3), "team-a", `{"billable":true,"cost_usd":0.5}`)
	line(now.Add(-time.Hour), "team-a", `{"billable":false,"cost_usd":0},{"billable":true,"cost_usd":null,"cost_unknown":true,"estimate":{"input_tokens":9,"output_tokens":1,"usd":0.25}}`)
	line(now.Add(-time.Minute), "team-b", `{"billable":true,"cost_usd":0.125}`)
	b.WriteString("not a record\n")
	month := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	day := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	got := spentSince(strings.NewReader(b.String()), month, day)
	if a := got["team-a"]; a != [2]float64{0.25, 0.75} {
		t.Errorf("team-a: %v, want day 0.25, month 0.75", a)
	}
	if b := got["team-b"]; b != [2]float64{0.125, 0.125} {
		t.Errorf("team-b: %v", b)
	}
}

// A log a crash filled with bytes that hold no newline is skipped past,
// not read into memory whole: the records after it still count.
func TestSpentSinceSkipsAnEndlessLine(t *testing.T) {
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	junk := strings.Repeat("\x00", 3<<20)
	log := junk + "\n" + fmt.Sprintf(`{"id":"x","time":%q,"client":"team-a","attempts":[{"billable":true,"cost_usd":0.5}]}`+"\n", now.Format(time.RFC3339Nano))
	got := spentSince(strings.NewReader(log), time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC))
	if got["team-a"] != [2]float64{0.5, 0.5} {
		t.Errorf("%v", got)
	}
}

// The files rotation moved the log to are read beside it, compressed or
// not, while a file last written before the month began, and another
// log's files, are not.
func TestRotatedLogsAreReadToo(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	month := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	rec := func(at time.Time, usd float64) []byte {
		return fmt.Appendf(nil, `{"id":"x","time":%q,"client":"team-a","attempts":[{"billable":true,"cost_usd":%g}]}`+"\n", at.Format(time.RFC3339Nano), usd)
	}
	write := func(name string, b []byte, mod time.Time) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, mod, mod); err != nil {
			t.Fatal(err)
		}
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(rec(now.AddDate(0, 0, -3), 2))
	zw.Close()
	write("decisions.jsonl", rec(now.Add(-time.Minute), 1), now)
	write("decisions.jsonl.1", rec(now.AddDate(0, 0, -1), 4), now.AddDate(0, 0, -1))
	write("decisions.jsonl.2.gz", gz.Bytes(), now.AddDate(0, 0, -3))
	write("decisions.jsonl-20261101", rec(now.AddDate(0, -1, 0), 8), now.AddDate(0, -1, 0)) // before the month: not read
	write("decisions.jsonlx", rec(now, 16), now)                                            // another name
	write("other.jsonl", rec(now, 32), now)
	spent := map[string][2]float64{}
	files := logFiles(filepath.Join(dir, "decisions.jsonl"), month)
	for _, p := range files {
		if err := addSpent(spent, p, month, time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
	if got := spent["team-a"]; got != [2]float64{1, 7} {
		t.Errorf("team-a: %v from %v, want day 1, month 7 (live 1, .1 4, .2.gz 2)", got, files)
	}
}

// A request begun before midnight and ended after it counts in the new
// day, as the limits charged it when its answer ended.
func TestSpentCountsARequestWhenItEnded(t *testing.T) {
	day := time.Date(2026, 12, 5, 0, 0, 0, 0, time.UTC)
	log := fmt.Sprintf(`{"id":"x","time":%q,"ms":120000,"client":"team-a","attempts":[{"billable":true,"cost_usd":1.19}]}`+"\n",
		day.Add(-time.Minute).Format(time.RFC3339Nano))
	got := spentSince(strings.NewReader(log), time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), day)
	if got["team-a"] != [2]float64{1.19, 1.19} {
		t.Errorf("%v, want the day's 1.19", got["team-a"])
	}
}

// The names rotation gives a log, and names that are not rotations.
func TestRotatedName(t *testing.T) {
	for name, want := range map[string]bool{
		"decisions.jsonl.1": true, "decisions.jsonl.12.gz": true, "decisions.jsonl-20261205": true,
		"decisions.jsonl-20261205-14.gz": true, "decisions.1.jsonl": true, "decisions.2.jsonl.gz": true,
		"decisions-20261205.jsonl": true, "decisions-20261204.jsonl.gz": true, "decisions-staging.jsonl": false,
		"decisions.jsonl": false, "decisions.jsonl.bak": false, "decisions.jsonl-staging": false,
		"decisions.jsonl.": false, "decisions.old.jsonl": false, "other.jsonl.1": false, "decisions.jsonl.1.zst": false,
	} {
		if got := rotatedName(name, "decisions.jsonl"); got != want {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}

package app

import (
	"bytes"
	"fmt"
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

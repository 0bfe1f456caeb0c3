package main

import (
	"strconv"
	"strings"
	"testing"
)

// TestHostile57cSummaryShowsHiddenCharacters: `detour decisions` lines
// escape control and invisible characters (rawjson.AppendVisible, 2c79083:
// "escaped too, in the text log and detour decisions' lines"), but the
// provider × class table --summary added in 39c4c6b (like the route table
// before it) prints the names raw through text/tabwriter. A decision log
// that is not the gateway's own (a copy from elsewhere, a shared volume,
// an old version's file: `-f` reads any JSONL) whose provider is
// "x\x1b]0;owned\x07\nopenai" writes an ESC sequence to the operator's
// terminal and forges a row; config's validName admits U+202E (RIGHT-TO-LEFT
// OVERRIDE, a format character, not a control one), so even the gateway's
// own log can carry a provider that draws as another's name.
func TestHostile57cSummaryShowsHiddenCharacters(t *testing.T) {
	rec := func(id, provider string) string {
		return `{"id":"` + id + `","time":"2026-11-30T09:12:03Z","route":"deep","strategy":"ordered","stream":false,"outcome":"error","status":504,"class":"timeout","ms":5,` +
			`"attempts":[{"target":"gpt","provider":"` + provider + `","model":"gpt-4o","status":504,"class":"timeout","evidence":"status:504","action":"stop","counted":true,"billable":true,"ms":4}],"transitions":[]}` + "\n"
	}
	log := rec("a000000000000001", `x\u001b]0;owned\u0007\nopenai  1  0  1  0`) + rec("a000000000000002", "ia\u202eneplo")
	code, out, errs := runD(t, "", "-f", logFile(t, log), "--summary")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	t.Logf("%q", out)
	if strings.ContainsAny(out, "\x1b\x07\u202e") {
		t.Errorf("--summary printed a provider name's control/invisible characters raw: %q", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "openai") {
			t.Errorf("a provider name with a newline forged a row of its own: %q", l)
		}
	}
}

// TestHostile57cSummaryOneLongNamePadsEveryRow: text/tabwriter pads
// every cell of a column to its widest, so one provider name of 100 KB
// (a log line may hold 16 MiB, query.MaxLine) makes each of the other
// providers' rows 100 KB of spaces: a log of 500 short records and that
// one prints ~50 MB; at MaxLine and a few thousand providers it is tens
// of GB to the operator's terminal. The route table has the same column.
func TestHostile57cSummaryOneLongNamePadsEveryRow(t *testing.T) {
	rec := func(id, provider string) string {
		return `{"id":"` + id + `","time":"2026-11-30T09:12:03Z","route":"deep","strategy":"ordered","stream":false,"outcome":"ok","status":200,"ms":5,` +
			`"attempts":[{"target":"gpt","provider":"` + provider + `","model":"gpt-4o","status":200,"action":"done","counted":false,"billable":true,"ms":4}],"transitions":[]}` + "\n"
	}
	var b strings.Builder
	b.WriteString(rec("b000000000000000", strings.Repeat("p", 100<<10)))
	for i := range 500 {
		b.WriteString(rec("b0000000000"+strings.Repeat("0", 5-len(strconv.Itoa(i)))+strconv.Itoa(i), "prov"+strconv.Itoa(i)))
	}
	code, out, errs := runD(t, "", "-f", logFile(t, b.String()), "--summary")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	t.Logf("a log of %d bytes printed a summary of %d bytes", b.Len(), len(out))
	if len(out) > 2*b.Len() {
		t.Errorf("--summary of a %d-byte log is %d bytes (%.0fx): one long provider name pads every row", b.Len(), len(out), float64(len(out))/float64(b.Len()))
	}
}

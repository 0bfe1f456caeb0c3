package app

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/limit"
)

// restoreBudgets reads what each budgeted client key spent this UTC month
// and day back from the decision log at path, and gives it to limits:
// with state memory the counters live in this process alone, and a
// restart gave every key a fresh budget (operator review 50). Only the
// records from the month's start are read: the log is searched for them,
// not read whole; the files rotation moved it to are read too (logFiles).
// A log that cannot be read restores nothing of its own (logged). With
// state redis it is called when Redis holds none of Detour's state
// (epoch.go). It reports how many keys it gave spend to.
func (a *App) restoreBudgets(cfg *config.Config, limits *limit.Limiter, now time.Time) int {
	spent, files := a.logSpent(cfg, now)
	n := 0
	for i := range cfg.Clients {
		k := &cfg.Clients[i]
		if s, ok := spent[k.Name]; ok && k.Budget != (config.Budget{}) {
			limits.Restore(context.Background(), k, s[0], s[1])
			n++
		}
	}
	if files > 0 {
		a.log.Info("client budgets: this month's spend restored from the decision log", "keys", n, "files", files)
	}
	return n
}

// logSpent is what the decision log of cfg (and its rotations) says each
// client spent this UTC month and day ([0] the day's, [1] the month's),
// and how many files it read; nothing when no key has a budget or there
// is no log file.
func (a *App) logSpent(cfg *config.Config, now time.Time) (map[string][2]float64, int) {
	budgeted := false
	for i := range cfg.Clients {
		budgeted = budgeted || cfg.Clients[i].Budget != (config.Budget{})
	}
	if !budgeted || cfg.Decisions.Path == "" || cfg.Decisions.Path == "-" {
		return nil, 0
	}
	st := limit.Starts(now)
	day, month := st[0], st[1]
	spent := map[string][2]float64{}
	files := 0
	paths := logFiles(cfg.Decisions.Path, month)
	a.spent.keep(paths)
	for _, path := range paths {
		if err := a.spent.add(spent, path, month, day); err != nil {
			if !os.IsNotExist(err) {
				a.log.Warn("client budgets: a decision log could not be read; its spend is not restored", "path", path, "err", err)
			}
			continue
		}
		files++
	}
	return spent, files
}

// logSpentBefore is logSpent of the requests that ended before until (the
// windows are now's), read anew, apart from logSpent's cache: what a Redis
// marker written at until is compared with (epoch.go).
func (a *App) logSpentBefore(cfg *config.Config, until time.Time) map[string][2]float64 {
	spent := map[string][2]float64{}
	if cfg.Decisions.Path == "" || cfg.Decisions.Path == "-" {
		return spent
	}
	st := limit.Starts(a.limits.Now())
	c := &spentCache{until: until}
	for _, path := range logFiles(cfg.Decisions.Path, st[1]) {
		_ = c.add(spent, path, st[1], st[0]) // unreadable: logSpent has said so
	}
	return spent
}

// logFiles are the decision log at path and the files rotation moved it
// to that may hold records of the month from month on: the files of its
// directory that logrotate names so — path's name, then "." and a number
// (decisions.jsonl.1, .2.gz) or "-" and a date's digits (dateext:
// decisions.jsonl-20261205) — or that an operator's move names so, the
// number before the extension (decisions.1.jsonl), last written at or
// after month; each file once, whatever names lead to it (a hard link).
// Operator review 51: after a rotation a restart read the live file
// alone, and every key had its budget back; review 51a: a backup copy
// (decisions.jsonl.bak) or another deployment's log
// (decisions.jsonl-staging) is no rotation, and was added in.
func logFiles(path string, month time.Time) []string {
	out := []string{path}
	var seen []os.FileInfo
	if st, err := os.Stat(path); err == nil {
		seen = append(seen, st)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return out
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !rotatedName(e.Name(), base) {
			continue
		}
		info, err := e.Info()
		if err != nil || info.ModTime().Before(month) || slices.ContainsFunc(seen, func(o os.FileInfo) bool { return os.SameFile(o, info) }) {
			continue
		}
		seen = append(seen, info)
		out = append(out, filepath.Join(dir, e.Name()))
	}
	return out
}

// rotatedName reports a name rotation gives the log named base:
// base.N or base-DIGITS, or, for base stem.ext, stem.N.ext or
// stem-DIGITS.ext (logrotate's dateext with "extension .jsonl"), each
// optionally with .gz.
func rotatedName(name, base string) bool {
	name = strings.TrimSuffix(name, ".gz")
	if rest, ok := strings.CutPrefix(name, base); ok && len(rest) > 1 && (rest[0] == '.' || rest[0] == '-') {
		return digits(rest[1:])
	}
	if ext := filepath.Ext(base); ext != "" {
		stem := strings.TrimSuffix(base, ext)
		for _, sep := range [...]string{".", "-"} {
			if mid, ok := strings.CutPrefix(name, stem+sep); ok {
				if n, ok := strings.CutSuffix(mid, ext); ok && digits(n) {
					return true
				}
			}
		}
	}
	return false
}

// digits reports a non-empty run of ASCII digits, dashes allowed after
// the first (a dateext with the hour: 20261205-14).
func digits(s string) bool {
	if s == "" || s[0] < '0' || s[0] > '9' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if (s[i] < '0' || s[i] > '9') && s[i] != '-' {
			return false
		}
	}
	return true
}

// addSpent adds to spent what the log file at path says each client spent
// from month on, read whole (no cache).
func addSpent(spent map[string][2]float64, path string, month, day time.Time) error {
	return new(spentCache).add(spent, path, month, day)
}

// spentSince sums, per client, the spend of the records of r from month
// on (and, of those, from day on), found by bisection: see spentFrom.
func spentSince(r io.ReadSeeker, month, day time.Time) map[string][2]float64 {
	start := seekTime(r, month.Add(-24*time.Hour)) // records are appended nearly in time order
	if _, err := r.Seek(start, io.SeekStart); err != nil {
		return nil
	}
	got, _ := spentFrom(r, month, day, time.Time{}, false)
	return got
}

// spentFrom sums, per client, the spend of the records r reads from month
// on (and, of those, from day on): each attempt's BudgetUSD, as the limits
// counted it. [0] is the day's, [1] the month's. A record of a request
// that ended at or after until, when until is not zero, is left out.
// It also returns how many bytes of r it read up to the end of the last
// whole line: a record still being written is read again next time.
//
// A last line without its newline is counted only where the input is
// whole (done: a compressed rotation); in a live log it is a record still
// being written, counted once its newline is there (review 58: counted
// then and again once whole).
func spentFrom(r io.Reader, month, day, until time.Time, done bool) (map[string][2]float64, int64) {
	out := map[string][2]float64{}
	cr := &countingReader{r: r}
	br := bufio.NewReaderSize(cr, maxLine)
	var whole int64
	for {
		line, err := readLine(br)
		if err == nil {
			whole = cr.n - int64(br.Buffered())
		} else if !done {
			line = nil
		}
		if rec, ok := budgetLine(line); ok && !rec.end().Before(month) && (until.IsZero() || rec.end().Before(until)) {
			usd := 0.0
			for i := range rec.Attempts {
				usd += rec.Attempts[i].BudgetUSD()
			}
			s := out[rec.Client]
			if !rec.end().Before(day) {
				s[0] += usd
			}
			s[1] += usd
			out[rec.Client] = s
		}
		if err != nil {
			return out, whole
		}
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// budgetRecord is what spentSince reads of a record.
type budgetRecord struct {
	Time     time.Time          `json:"time"`
	MS       float64            `json:"ms"`
	Client   string             `json:"client"`
	Attempts []decision.Attempt `json:"attempts"`
}

// end is when the request ended, the instant the limits charged its
// spend to (limit.Spend runs after the answer): a request begun before
// midnight and ended after it counts in the new day, after a restart as
// before it (hostile review 51).
func (r *budgetRecord) end() time.Time {
	return r.Time.Add(time.Duration(r.MS * float64(time.Millisecond)))
}

// budgetLine decodes one line with a client: a record without one (no
// client keys) is skipped before it is decoded.
func budgetLine(line []byte) (budgetRecord, bool) {
	var rec budgetRecord
	if !bytes.Contains(line, []byte(`"client":`)) || json.Unmarshal(line, &rec) != nil || rec.Client == "" {
		return rec, false
	}
	return rec, true
}

// seekTime is an offset of r at or before the first whole line whose
// record's time is not before t, found by bisection over the file (a line
// whose time does not read moves the search later).
func seekTime(r io.ReadSeeker, t time.Time) int64 {
	size, err := r.Seek(0, io.SeekEnd)
	if err != nil {
		return 0
	}
	lo, hi := int64(0), size
	for hi-lo > 64<<10 {
		mid := lo + (hi-lo)/2
		if lineTimeAfter(r, mid, t) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return lo
}

// lineTimeAfter reports whether the first whole line after offset off
// holds a record whose time is not before t.
func lineTimeAfter(r io.ReadSeeker, off int64, t time.Time) bool {
	if _, err := r.Seek(off, io.SeekStart); err != nil {
		return true
	}
	br := bufio.NewReaderSize(r, maxLine)
	if _, err := readLine(br); err != nil { // the rest of the line off falls in
		return true
	}
	line, _ := readLine(br)
	var rec struct {
		Time time.Time `json:"time"`
	}
	if json.Unmarshal(line, &rec) != nil {
		return false
	}
	return !rec.Time.Before(t)
}

// maxLine bounds a line the budget restore reads: a record is a few KiB,
// and a log a crash filled with bytes that hold no newline is skipped
// past, never held whole.
const maxLine = 1 << 20

// readLine is br's next line, nil for one longer than maxLine (skipped to
// its end); err as bufio's at the end of the input.
func readLine(br *bufio.Reader) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return line, err
	}
	for err == bufio.ErrBufferFull {
		_, err = br.ReadSlice('\n')
	}
	return nil, err
}

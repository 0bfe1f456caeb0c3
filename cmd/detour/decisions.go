package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/query"
	"github.com/detour-llm/detour/internal/rawjson"
)

// runDecisions implements `detour decisions`: read a decision log (the JSON
// lines of decisions.path), filter it, and print one line per request, a
// route × class table (--summary), or follow the file as it grows.
func runDecisions(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runDecisionsContext(context.Background(), args, stdin, stdout, stderr)
}

func runDecisionsContext(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("decisions", flag.ContinueOnError)
	fs.SetOutput(stderr)
	files := logFiles{paths: []string{"decisions.jsonl"}}
	fs.Var(&files, "f", "decision log `FILE` (JSON lines, or gzip-compressed); - reads stdin; repeat it to read rotations together, oldest first")
	var f query.Filter
	fs.StringVar(&f.Route, "route", "", "only requests to this route")
	fs.StringVar(&f.Target, "target", "", "only requests with an attempt at this target")
	fs.StringVar(&f.Class, "class", "", "only requests that ended with, or had an attempt of, this class (ok and canceled too)")
	fs.StringVar(&f.Outcome, "outcome", "", "only requests with this outcome: "+strings.Join(query.Outcomes(), ", "))
	fs.StringVar(&f.API, "api", "", "only requests that came through this door: "+strings.Join(query.APIs(), ", "))
	fs.StringVar(&f.Client, "client", "", "only requests of this client key label (key:…)")
	fs.StringVar(&f.ID, "id", "", "only the request of this decision id (the X-Detour-Decision header)")
	since := fs.String("since", "", "only requests from this long ago (`15m`, 2h), since this time (RFC 3339), or since the UTC day's or month's start (today, month)")
	summary := fs.Bool("summary", false, "print route × class and provider × class tables (and api × class, where the requests came through several doors) instead of the requests")
	follow := fs.Bool("follow", false, "keep printing requests as they are appended (Ctrl-C ends)")
	asJSON := fs.Bool("json", false, "print the selected records as they are in the file (JSON lines)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: detour decisions [-f decisions.jsonl] [--route R] [--target T] [--class C] [--outcome O] [--api A] [--client K] [--id ID] [--since 15m] [--summary | --follow] [--json]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 {
		return strayArgument(stderr, "decisions", fs.Arg(0), "-f")
	}
	if err := f.Check(); err != nil {
		fmt.Fprintln(stderr, "detour decisions:", err)
		return 2
	}
	if *since != "" {
		t, err := parseSince(*since, time.Now())
		if err != nil {
			fmt.Fprintln(stderr, "detour decisions:", err)
			return 2
		}
		f.Since = t
	}
	if *summary && (*follow || *asJSON) {
		fmt.Fprintln(stderr, "detour decisions: --summary prints one table; it cannot be combined with --follow or --json")
		return 2
	}
	if *follow && (len(files.paths) != 1 || files.paths[0] == "-") {
		fmt.Fprintln(stderr, "detour decisions: --follow needs a file (-f, one), not stdin")
		return 2
	}

	out := bufio.NewWriter(stdout)
	defer out.Flush()
	var sum query.Summary
	read, matched, seenID := 0, 0, false
	visit := func(d *decision.Decision, line []byte) error {
		read++
		seenID = seenID || f.ID != "" && d.ID == f.ID
		if !f.Match(d) {
			return nil
		}
		matched++
		switch {
		case *summary:
			sum.Add(d)
			return nil
		case *asJSON:
			out.Write(line)
			out.WriteByte('\n')
		default:
			out.WriteString(formatRecord(d))
			out.WriteByte('\n')
		}
		if *follow {
			return out.Flush()
		}
		return nil
	}
	badLines := 0
	where := "" // the log being read, named on a bad line when there are several
	bad := func(b *query.BadLine) {
		badLines++
		out.Flush()
		fmt.Fprintln(stderr, "detour decisions:", where+b.Error())
	}

	var err error
	switch {
	case *follow:
		ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
		defer stop()
		err = query.Follow(ctx, files.paths[0], visit, bad)
	default:
		err = eachLog(files.paths, stdin, func(name string, in io.Reader) error {
			if len(files.paths) > 1 {
				where = name + ": "
			}
			return query.Scan(in, visit, bad)
		})
	}
	if err != nil {
		out.Flush()
		fmt.Fprintln(stderr, "detour decisions:", err)
		return 1
	}
	if *summary {
		sum.WriteTable(out)
	}
	if f.ID != "" && matched == 0 && !*follow {
		// Nothing printed reads as nothing wrong (operator review 52b).
		out.Flush()
		if seenID {
			fmt.Fprintf(stderr, "detour decisions: the record with id %s does not match the other filters\n", f.ID)
		} else {
			fmt.Fprintf(stderr, "detour decisions: no record with id %s in %s (%d records read): it may be in a rotated file (give each with -f) or another replica's log\n",
				f.ID, files.String(), read)
		}
		return 1
	}
	if badLines > 0 {
		return 1
	}
	return 0
}

// parseSince reads --since: a duration back from now, an RFC 3339 time,
// or "today" or "month": the UTC day's or month's start, the windows a
// client key's usd_per_day and usd_per_month count in.
func parseSince(s string, now time.Time) (time.Time, error) { return parseWhen("--since", s, now) }

// parseWhen reads flag's value s as parseSince does.
func parseWhen(flag, s string, now time.Time) (time.Time, error) {
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		if d == 0 {
			return time.Time{}, nil // 0: every record, as usage's --since 0 meant
		}
		return now.Add(-d), nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	now = now.UTC()
	switch s {
	case "today":
		return time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC), nil
	case "month":
		return time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC), nil
	}
	return time.Time{}, fmt.Errorf("%s %q: want a duration such as 15m or 2h, a time such as 2026-11-30T09:00:00Z, today or month (UTC)", flag, s)
}

// formatRecord is one request on one line: when, id, the door it came
// through (its api: which clients a failure hit), route, outcome, status,
// time, client, then each attempt in order with its class, evidence and
// what happened next.
func formatRecord(d *decision.Decision) string {
	var b strings.Builder
	b.WriteString(d.Time.UTC().Format("2006-01-02T15:04:05.000Z"))
	b.WriteString("  " + d.ID + "  " + query.API(d) + "  " + d.Route + "  " + d.Outcome + " " + strconv.Itoa(d.Status))
	if d.Class != "" {
		b.WriteString(" " + d.Class)
	}
	b.WriteString("  " + strconv.FormatFloat(d.MS, 'f', 1, 64) + "ms")
	if d.Client != "" {
		b.WriteString("  " + d.Client)
	}
	for _, a := range d.Attempts {
		b.WriteString("  | ")
		if c := a.Continuation; c != nil {
			// A continuation is no failover before the answer: the client
			// had the first attempt's words already (operator review 48b).
			b.WriteString("continued by " + c.Mode + " after " + strconv.Itoa(c.OffsetChars) + " chars: ")
		}
		b.WriteString(a.Target + "/" + a.Provider + " " + strconv.Itoa(a.Status) + " " + query.AttemptClass(a))
		if a.Evidence != "" && a.Class != "" {
			b.WriteString(" (" + a.Evidence + ")")
		}
		if a.Billable && a.Class != "" {
			// A failure the upstream may have run, and bills: a request
			// with one besides its answer paid twice (operator review 52b).
			b.WriteString(" billable")
		}
		if a.Message != "" { // the upstream's words (operator review 50), or Detour's reason for an attempt it did not send
			b.WriteString(" " + strconv.QuoteToGraphic(a.Message))
		}
		b.WriteString(" " + string(a.Action))
	}
	if len(d.Transitions) > 0 {
		b.WriteString("  |")
		for _, t := range d.Transitions {
			b.WriteString(" " + t.Scope + " " + t.Name + " " + t.From + "→" + t.To)
			if !t.Until.IsZero() {
				b.WriteString(" until " + t.Until.UTC().Format(time.RFC3339))
			}
			if !t.Since.IsZero() {
				b.WriteString(" (out since " + t.Since.UTC().Format(time.RFC3339) + ")")
			}
		}
	}
	// Invisible characters an upstream or a client wrote (a code, a model
	// name, a message) are shown as escapes (hostile 57b).
	return string(rawjson.AppendVisible(nil, []byte(b.String())))
}

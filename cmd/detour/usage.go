package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/query"
)

// `detour usage` sums a decision log into a bill (docs/config.md, "Usage
// and cost"):
//
//	detour usage -f decisions.jsonl [--by client|route|target|provider|day] [--since 24h]
//
// By client, route or day each request counts once, with its own usage and
// cost; by target or provider each attempt counts where it was made (a
// request that failed over appears under both). FAILOVERS counts the moves
// to another endpoint or target (next_endpoint, next_target, tail); by
// target or provider, the moves away from it. COST_USD sums the known
// costs ("-" where no attempt had a price); UNKNOWN counts billable attempts
// whose cost is unknown, so a bill with unknowns is a lower bound, never a
// silent zero; EST_USD is what client budgets counted for them beyond
// COST_USD (their recorded estimate), so a key refused for its budget can
// be told why. INPUT is the input neither read from the prompt cache
// (CACHED) nor written to it (CACHE_WRITE); each is in COST_USD at its own
// price.

const usageHelp = `usage: detour usage -f decisions.jsonl [--by client|route|target|provider|day] [--since 24h|RFC3339|today|month]`

func runUsage(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("usage", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var files logFiles
	fs.Var(&files, "f", "a decision log `FILE` (JSON lines, or gzip-compressed; - for stdin); repeat it to read rotations together, oldest first")
	by := fs.String("by", "client", "group by client, route, target, provider or day (UTC)")
	since := fs.String("since", "", "only records from this long ago (24h), since this time (RFC 3339), or since the UTC day's or month's start (today, month); all when not given")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if len(files.paths) == 0 || fs.NArg() > 0 {
		fmt.Fprintln(stderr, usageHelp)
		return 2
	}
	b, err := query.ParseBy(*by)
	if err != nil {
		fmt.Fprintf(stderr, "detour usage: --by %v\n", err)
		return 2
	}
	var from time.Time
	if *since != "" {
		t, err := parseSince(*since, time.Now())
		if err != nil {
			fmt.Fprintf(stderr, "detour usage: %v\n", err)
			return 2
		}
		from = t
	}
	in, closeLogs, err := openLogs(files.paths, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "detour usage: %v\n", err)
		return 1
	}
	defer closeLogs()
	rows, bad, err := sumUsage(in, b, from)
	if err != nil {
		fmt.Fprintf(stderr, "detour usage: %s: %v\n", files.String(), err)
		return 1
	}
	if bad > 0 {
		fmt.Fprintf(stderr, "detour usage: skipped %d line(s) that are not decision records\n", bad)
	}
	printUsage(stdout, b, rows)
	return 0
}

// sumUsage reads records and sums them by group.
func sumUsage(in io.Reader, by query.By, from time.Time) ([]query.Usage, int, error) {
	sums := query.NewSums(by)
	bad := 0
	err := query.Scan(in, func(d *decision.Decision, _ []byte) error {
		if from.IsZero() || !query.End(d).Before(from) { // the window budgets count in: a request's end
			sums.Add(d)
		}
		return nil
	}, func(*query.BadLine) { bad++ })
	if err != nil {
		return nil, bad, err
	}
	return sums.Rows(), bad, nil
}

func printUsage(w io.Writer, by query.By, rows []query.Usage) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\tREQUESTS\tINPUT\tCACHED\tCACHE_WRITE\tOUTPUT\tCOST_USD\tUNKNOWN\tEST_USD\tFAILOVERS\t\n", upper(string(by)))
	for i := range rows {
		writeRow(tw, &rows[i])
	}
	total := query.Total(by, rows)
	writeRow(tw, &total)
	tw.Flush()
}

func writeRow(w io.Writer, r *query.Usage) {
	req := strconv.Itoa(r.Requests)
	if r.Requests < 0 {
		req = "-"
	}
	cost, est := "-", "-" // no price configured for anything here: not a cost of 0
	if r.Priced {
		cost, est = strconv.FormatFloat(r.CostUSD, 'f', 6, 64), strconv.FormatFloat(r.EstimatedUSD, 'f', 6, 64)
	}
	fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%d\t%d\t%s\t%d\t%s\t%d\t\n", r.Key, req, r.Input, r.Cached, r.CacheWrite, r.Output, cost, r.Unknown, est, r.Failovers)
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 32
		}
	}
	return string(b)
}

package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/query"
)

// `detour usage` sums a decision log into a bill (docs/config.md, "Usage
// and cost"):
//
//	detour usage -f decisions.jsonl [--by client|route|target|provider|day[,…]] [--since 24h] [--until today] [--client team-a]
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

const usageHelp = `usage: detour usage -f decisions.jsonl [--by client|route|target|provider|day[,…]] [--since 24h|RFC3339|today|month] [--until 24h|RFC3339|today|month] [--client NAME]…`

func runUsage(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("usage", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var files logFiles
	fs.Var(&files, "f", "a decision log `FILE` (JSON lines, or gzip-compressed; - for stdin); repeat it to read rotations together, oldest first")
	by := fs.String("by", "client", "group by client, route, target, provider or day (UTC), or several joined by commas (client,target: each client's spend by target)")
	since := fs.String("since", "", "only records from this long ago (24h), since this time (RFC 3339), or since the UTC day's or month's start (today, month); all when not given")
	until := fs.String("until", "", "only records before this long ago (24h), this time (RFC 3339), or the UTC day's or month's start (today, month); all when not given")
	var clients names
	fs.Var(&clients, "client", "only the requests of the client key `NAME` (its name whole, commas and all); repeat it for several")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if len(files.paths) == 0 || fs.NArg() > 0 {
		fmt.Fprintln(stderr, usageHelp)
		return 2
	}
	b, err := query.ParseGroups(*by)
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
	var to time.Time
	if *until != "" {
		t, err := parseWhen("--until", *until, time.Now())
		if err != nil {
			fmt.Fprintf(stderr, "detour usage: %v\n", err)
			return 2
		}
		to = t
	}
	only := clients.list
	in, closeLogs, err := openLogs(files.paths, stdin)
	if err != nil {
		fmt.Fprintf(stderr, "detour usage: %v\n", err)
		return 1
	}
	defer closeLogs()
	rows, bad, err := sumUsage(in, b, window{from, to, only})
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

// names collects a repeated flag's values, each whole (a client key's
// name may hold a comma: hostile 58b).
type names struct{ list []string }

func (n *names) String() string     { return strings.Join(n.list, " ") }
func (n *names) Set(v string) error { n.list = append(n.list, v); return nil }

// window is which records usage sums: those that ended from from (zero:
// any) and before to (zero: any) — the window budgets count a request in
// is its end's — of the clients named in only (nil: every one).
type window struct {
	from, to time.Time
	only     []string
}

func (w window) holds(d *decision.Decision) bool {
	end := query.End(d)
	return (w.from.IsZero() || !end.Before(w.from)) && (w.to.IsZero() || end.Before(w.to)) &&
		(w.only == nil || slices.Contains(w.only, d.Client))
}

// sumUsage reads records and sums those of w by group.
func sumUsage(in io.Reader, by query.By, w window) ([]query.Usage, int, error) {
	sums := query.NewSums(by)
	bad := 0
	err := query.Scan(in, func(d *decision.Decision, _ []byte) error {
		if w.holds(d) {
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
	groups := by.Groups()
	for _, g := range groups {
		fmt.Fprintf(tw, "%s\t", upper(string(g)))
	}
	fmt.Fprintf(tw, "REQUESTS\tINPUT\tCACHED\tCACHE_WRITE\tOUTPUT\tCOST_USD\tUNKNOWN\tEST_USD\tFAILOVERS\t\n")
	for i := range rows {
		writeRow(tw, &rows[i], len(groups))
	}
	total := query.Total(by, rows)
	writeRow(tw, &total, len(groups))
	tw.Flush()
}

// writeRow writes r, its key in n columns (one per grouping joined).
func writeRow(w io.Writer, r *query.Usage, n int) {
	keys := strings.SplitN(r.Key, query.KeySep, n)
	for len(keys) < n {
		keys = append(keys, "")
	}
	for _, k := range keys[:n-1] {
		fmt.Fprintf(w, "%s\t", query.Shown(k))
	}
	// Names as the log holds them, escaped and cut: a name is the
	// operator's or, in a log from elsewhere, anyone's (hostile 58b: a
	// terminal escape reached the terminal, a newline or a NUL forged a
	// row or a column, as in --summary's tables: hostile 57c).
	r.Key = query.Shown(keys[n-1])
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

package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/detour-llm/detour/internal/decision"
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

// usageRow is one line of the table.
type usageRow struct {
	key                            string
	requests                       int
	input, cached, written, output int
	cost, estimated                float64
	priced                         bool // an attempt had a price (a cost, known or not); else COST_USD is "-"
	unknown, failovers             int
}

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
	switch *by {
	case "client", "route", "target", "provider", "day":
	default:
		fmt.Fprintf(stderr, "detour usage: --by must be client, route, target, provider or day, not %q\n", *by)
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
	rows, bad, err := sumUsage(in, *by, from)
	if err != nil {
		fmt.Fprintf(stderr, "detour usage: %s: %v\n", files.String(), err)
		return 1
	}
	if bad > 0 {
		fmt.Fprintf(stderr, "detour usage: skipped %d line(s) that are not decision records\n", bad)
	}
	printUsage(stdout, *by, rows)
	return 0
}

// sumUsage reads records and sums them by group.
func sumUsage(in io.Reader, by string, from time.Time) ([]*usageRow, int, error) {
	rows := map[string]*usageRow{}
	row := func(k string) *usageRow {
		if k == "" {
			k = "-"
		}
		r := rows[k]
		if r == nil {
			r = &usageRow{key: k}
			rows[k] = r
		}
		return r
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	bad := 0
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			continue
		}
		var d decision.Decision
		if err := json.Unmarshal(line, &d); err != nil || d.ID == "" {
			bad++
			continue
		}
		if !from.IsZero() && d.Time.Before(from) {
			continue
		}
		switch by {
		case "target", "provider":
			// A request counts once per row its attempts reached: its
			// attempts are all in its record, so no id is kept past it
			// (hostile 52c: a month of ids held grew with the log).
			var counted []*usageRow
			for _, a := range d.Attempts {
				k := a.Target
				if by == "provider" {
					k = a.Provider
				}
				r := row(k)
				if !slices.Contains(counted, r) {
					counted = append(counted, r)
					r.requests++
				}
				addAttempt(r, &a)
				if failover(a.Action) {
					r.failovers++
				}
			}
		default:
			k := d.Client
			switch by {
			case "route":
				k = d.Route
			case "day":
				k = d.Time.UTC().Format("2006-01-02")
			}
			r := row(k)
			r.requests++
			for i := range d.Attempts {
				addAttempt(r, &d.Attempts[i])
				if failover(d.Attempts[i].Action) {
					r.failovers++
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, bad, err
	}
	out := make([]*usageRow, 0, len(rows))
	for _, r := range rows {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if by != "day" && out[i].cost != out[j].cost {
			return out[i].cost > out[j].cost
		}
		return out[i].key < out[j].key
	})
	return out, bad, nil
}

// addAttempt adds one attempt's tokens and cost to r.
func addAttempt(r *usageRow, a *decision.Attempt) {
	if u := a.Usage; u != nil {
		in, cached, written := u.Input()
		r.input += in
		r.cached += cached
		r.written += written
		r.output += u.CompletionTokens
	}
	if a.CostUnknown || a.CostUSD != nil {
		r.priced = true
		if a.CostUSD.Known() {
			r.cost += float64(*a.CostUSD) // a cut stream's lower bound too
		}
		if !a.CostInFull() {
			r.unknown++
			if e := a.Estimate; e != nil {
				known := 0.0
				if a.CostUSD.Known() {
					known = float64(*a.CostUSD)
				}
				r.estimated += max(float64(e.USD)-known, 0) // what a budget counted beyond the lower bound
			}
		}
	}
}

func failover(action decision.Action) bool {
	return action == decision.ActionNextEndpoint || action == decision.ActionNextTarget || action == decision.ActionTail
}

func printUsage(w io.Writer, by string, rows []*usageRow) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s\tREQUESTS\tINPUT\tCACHED\tCACHE_WRITE\tOUTPUT\tCOST_USD\tUNKNOWN\tEST_USD\tFAILOVERS\t\n", upper(by))
	var total usageRow
	total.key = "TOTAL"
	for _, r := range rows {
		writeRow(tw, r)
		total.requests += r.requests
		total.input += r.input
		total.cached += r.cached
		total.written += r.written
		total.output += r.output
		total.cost += r.cost
		total.estimated += r.estimated
		total.priced = total.priced || r.priced
		total.unknown += r.unknown
		total.failovers += r.failovers
	}
	if by == "target" || by == "provider" {
		total.requests = -1 // a request may count under several rows
	}
	writeRow(tw, &total)
	tw.Flush()
}

func writeRow(w io.Writer, r *usageRow) {
	req := strconv.Itoa(r.requests)
	if r.requests < 0 {
		req = "-"
	}
	cost, est := "-", "-" // no price configured for anything here: not a cost of 0
	if r.priced {
		cost, est = strconv.FormatFloat(r.cost, 'f', 6, 64), strconv.FormatFloat(r.estimated, 'f', 6, 64)
	}
	fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%d\t%d\t%s\t%d\t%s\t%d\t\n", r.key, req, r.input, r.cached, r.written, r.output, cost, r.unknown, est, r.failovers)
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

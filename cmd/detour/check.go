package main

import (
	"flag"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/policy"
)

func runCheck(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := fs.String("c", "detour.yaml", "configuration file")
	fs.StringVar(path, "config", "detour.yaml", "the same as -c")
	if fs.Parse(args) != nil {
		return 2
	}
	if fs.NArg() > 0 {
		return strayArgument(stderr, "check", fs.Arg(0), "-c")
	}
	cfg, err := config.Load(*path)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	fmt.Fprintf(stdout, "%s: ok (%s, %s, %s, %s)\n", cfg.File, count(len(cfg.Providers), "provider"),
		count(len(cfg.Targets), "target"), count(len(cfg.Routes), "route"), count(len(cfg.Rules), "classify rule"))
	for _, msg := range configWarnings(cfg) {
		fmt.Fprintf(stdout, "warning: %s\n", msg)
	}
	fmt.Fprintf(stdout, "state: %s\n", stateLine(cfg.State))
	fmt.Fprintf(stdout, "listen: %s; operator endpoints: %s\n", cfg.Listen, operatorLine(cfg))
	fmt.Fprintf(stdout, "tracing: %s\n\n", tracingLine(cfg.Tracing))
	printClients(stdout, cfg)
	for i := range cfg.Routes {
		printRoute(stdout, cfg, &cfg.Routes[i])
	}
	var direct []string
	for _, t := range cfg.Targets {
		if _, isRoute := cfg.Route(t.Name); !isRoute {
			direct = append(direct, t.Name)
		}
	}
	fmt.Fprintf(stdout, "targets a client may also name directly (ordered, default limits): %s\n", strings.Join(direct, ", "))
	return 0
}

// printRoute prints a route's plan and what each class does in it.
func printRoute(w io.Writer, cfg *config.Config, r *config.Route) {
	bill := "no cap"
	if r.MaxBillableAttempts > 0 {
		bill = fmt.Sprint(r.MaxBillableAttempts)
	}
	streamMax := ""
	if r.MaxStreamDuration > 0 {
		streamMax = fmt.Sprintf(", max_stream_duration %s", r.MaxStreamDuration)
	}
	if r.OnStreamCut == config.OnCutContinue {
		streamMax += fmt.Sprintf(", on_stream_cut continue (max_continuations %d)", r.MaxContinuations)
	}
	fmt.Fprintf(w, "route %s (%s): max_attempts %d, max_billable_attempts %s, deadline %s%s\n",
		r.Name, r.Strategy, r.MaxAttempts, bill, r.Deadline, streamMax)
	for _, list := range []struct {
		label string
		names []string
	}{{"target", r.Targets}, {"tail", r.Tail}} {
		for _, n := range list.names {
			t, _ := cfg.Target(n)
			win := ""
			if t.ContextWindow > 0 {
				win = fmt.Sprintf(", context_window %d", t.ContextWindow)
			}
			fmt.Fprintf(w, "  %s %s: model %s via %s%s%s\n", list.label, n, t.Model, strings.Join(t.Providers, " → "), win, priceText(t.Price))
		}
	}
	printTable(w, r.Table, len(r.Tail) > 0)
	fmt.Fprintln(w)
}

// priceText is a target's price as check prints it, with its tiers (a
// mistyped threshold or fast price is seen here: operator review 53b);
// "" for none.
func priceText(p *config.Price) string {
	if p == nil {
		return ""
	}
	pair := func(in, out float64) string {
		return "$" + strconv.FormatFloat(in, 'f', -1, 64) + "/$" + strconv.FormatFloat(out, 'f', -1, 64)
	}
	usd := func(q *config.Price) string {
		out := pair(q.Input, q.Output)
		if q.AudioInput != nil || q.AudioOutput != nil { // audio priced apart; a side it does not name is at the text price
			in, o := q.Input, q.Output
			if q.AudioInput != nil {
				in = *q.AudioInput
			}
			if q.AudioOutput != nil {
				o = *q.AudioOutput
			}
			out += ", audio " + pair(in, o)
		}
		return out
	}
	out := ", price " + usd(p) + " per million tokens in/out"
	if lc := p.LongContext; lc != nil {
		out += fmt.Sprintf(" (%s above %d input tokens)", usd(&lc.Price), lc.Above)
	}
	if f := p.Fast; f != nil {
		out += ", fast mode " + usd(f)
		if lc := f.LongContext; lc != nil {
			out += fmt.Sprintf(" (%s above %d)", usd(&lc.Price), lc.Above)
		}
	}
	if p.WebSearch != nil {
		out += ", web search $" + strconv.FormatFloat(*p.WebSearch, 'f', -1, 64) + " per 1,000"
	}
	if p.WebFetch != nil {
		out += ", web fetch $" + strconv.FormatFloat(*p.WebFetch, 'f', -1, 64) + " per 1,000"
	}
	return out
}

// tableHeader heads the per-class table printTable writes.
var tableHeader = []string{"class", "same endpoint", "next endpoint", "next target", "tail", "cools", "pages"}

// printTable prints what each class does in a route, from the route's
// policy.Table: the same value dispatch reads (docs/design.md).
func printTable(w io.Writer, t *policy.Table, hasTail bool) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  "+strings.Join(tableHeader, "\t"))
	for _, row := range t.Rows() {
		fmt.Fprintln(tw, "  "+strings.Join(rowCells(row, t.Cooling), "\t"))
	}
	tw.Flush()
}

// rowCells are one class's cells, in tableHeader's order.
func rowCells(row policy.Row, h policy.Cooling) []string {
	next := "no"
	switch {
	case row.NextTarget && row.LargerWindow:
		next = "only to a larger context_window"
	case row.NextTarget:
		next = "yes"
	}
	tail := "-"
	switch row.Tail {
	case policy.TailYes:
		tail = "yes"
	case policy.TailNo:
		tail = "no"
	case policy.TailNone:
	}
	return []string{row.Class.String(), retry(row.Retry), yesNo(row.NextEndpoint), next, tail, cools(row.Cool, row.Retry, h), yesNo(row.Page)}
}

func retry(r policy.Retry) string {
	switch r {
	case policy.RetryOnce:
		return "retry once (after a 503/529/429's Retry-After, if ≤ max_wait)"
	case policy.RetryAfterWait:
		return "retry if Retry-After ≤ max_wait"
	case policy.RetryNever:
	}
	return "no"
}

// cools says what a failure cools; a class retried once (server errors)
// also cools at once for a wait a 503, 529 or 429 names that the request
// does not wait out itself.
func cools(c policy.Cool, r policy.Retry, h policy.Cooling) string {
	switch c {
	case policy.CoolThreshold:
		s := fmt.Sprintf("endpoint after %d in a row, %s doubling to %s", h.FailureThreshold, h.Cooldown, h.MaxCooldown)
		if r == policy.RetryOnce {
			s += " (at once for a 503/529/429's Retry-After not waited out)"
		}
		return s
	case policy.CoolRetryAfter:
		return "endpoint for Retry-After (else " + h.Cooldown.String() + ")"
	case policy.CoolUnavailable:
		return "endpoint for " + h.UnavailableCooldown.String()
	case policy.CoolAccount:
		return "provider account for " + h.AccountCooldown.String()
	case policy.CoolNone:
	}
	return "nothing"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// stateLine says which state store the file asks for, without its URLs
// (they may hold a password).
func stateLine(s config.State) string {
	switch {
	case len(s.Cluster) > 0:
		return fmt.Sprintf("%s, %d seed nodes", s.Form(), len(s.Cluster))
	case s.Sentinel.Master != "":
		return fmt.Sprintf("%s, master %q, %d sentinels", s.Form(), s.Sentinel.Master, len(s.Sentinel.Addrs))
	}
	return s.Form()
}

// operatorLine says where /metrics, /v1/health, its reset and the console
// are served, and who may read them. Without admin_keys a reset is refused
// to everyone (it ends cooldowns, which no client may do): the rest are
// open (review r50b).
func operatorLine(cfg *config.Config) string {
	paths := []string{"/metrics", "/v1/health"}
	if len(cfg.AdminKeys) > 0 {
		paths = append(paths, "/v1/health/reset")
	}
	if !cfg.Console.Disabled {
		paths = append(paths, "/ui")
	}
	where := "on the main listener"
	if cfg.AdminListen != "" {
		where = "on admin_listen " + cfg.AdminListen
	}
	line := strings.Join(paths, ", ") + " " + where
	if cfg.Console.Disabled {
		line += " (console off)"
	}
	if n := len(cfg.AdminKeys); n > 0 {
		return line + ", for " + count(n, "admin key")
	}
	return line + ", open to anyone who reaches them (no admin_keys; /v1/health/reset refused to all)"
}

// tracingLine says whether spans are exported, and where: a collector
// URL's credentials, if written in it, are not shown.
func tracingLine(t config.Tracing) string {
	if t.OTLPEndpoint == "" {
		return "off (no otlp_endpoint)"
	}
	shown := "(an unreadable URL)"
	if u, err := url.Parse(t.OTLPEndpoint); err == nil {
		if u.User != nil { // a user alone may be the token (review r50): nothing of it is shown
			u.User = url.User("xxxxx")
		}
		shown = u.String()
	}
	return fmt.Sprintf("OTLP/HTTP to %s, service %s", shown, t.Service())
}

// strayArgument refuses an argument a command takes no place for: `detour
// check bad.yaml` checked ./detour.yaml and said ok (review 32f). flag
// names the flag that takes a file, if any. The argument is named only
// where it cannot be a secret (config.ShownArg).
func strayArgument(stderr io.Writer, cmd, arg, flag string) int {
	if flag != "" {
		fmt.Fprintf(stderr, "detour %s: unexpected argument %s (the file is given with %s FILE)\n", cmd, config.ShownArg(arg), flag)
	} else {
		fmt.Fprintf(stderr, "detour %s: unexpected argument %s\n", cmd, config.ShownArg(arg))
	}
	return 2
}

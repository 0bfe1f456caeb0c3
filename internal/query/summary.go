package query

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode"
	"unicode/utf8"

	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/rawjson"
)

// Summary counts requests and attempts by route and class, and attempts
// by provider and class. The zero value is empty and ready.
type Summary struct {
	routes map[string]*row
	total  row
	// providers counts each provider's attempts by class: which provider
	// the timeouts and overloads were (operator review 57: the route ×
	// class table did not say, and DetourRequestsFailing sends you here).
	providers map[string]map[string]int
	// apis counts requests by the door they came through, shown when
	// there were several: which clients the failures hit (operator
	// review 69l: OpenAI, Anthropic, Responses and Gemini clients share
	// a route).
	apis map[string]*row
}

type row struct {
	requests, failed int
	classes          map[string]int
}

func (r *row) add(d *decision.Decision) {
	if r.classes == nil {
		r.classes = map[string]int{}
	}
	r.requests++
	if d.Outcome != decision.OutcomeOK {
		r.failed++
	}
	for _, a := range d.Attempts {
		r.classes[AttemptClass(a)]++
	}
}

// Add counts d.
func (s *Summary) Add(d *decision.Decision) {
	if s.routes == nil {
		s.routes = map[string]*row{}
	}
	r := s.routes[d.Route]
	if r == nil {
		r = &row{}
		s.routes[d.Route] = r
	}
	r.add(d)
	s.total.add(d)
	if s.apis == nil {
		s.apis = map[string]*row{}
	}
	a := s.apis[API(d)]
	if a == nil {
		a = &row{}
		s.apis[API(d)] = a
	}
	a.add(d)
	if s.providers == nil {
		s.providers = map[string]map[string]int{}
	}
	for _, a := range d.Attempts {
		p := s.providers[a.Provider]
		if p == nil {
			p = map[string]int{}
			s.providers[a.Provider] = p
		}
		p[AttemptClass(a)]++
	}
}

// WriteTable writes a route × class table: one line per route (sorted) and
// a total, with the requests, how many did not end ok, and the attempts of
// each class that occurred (ok first, then the twelve, then canceled); then,
// after a blank line, a provider × class table of the attempts (sorted);
// then, where the requests came through more than one door, an api ×
// class table like the route one (in the order of APIs).
func (s *Summary) WriteTable(w io.Writer) error {
	if s.total.requests == 0 {
		_, err := fmt.Fprintln(w, "no records")
		return err
	}
	var cols []string
	for _, c := range Classes() {
		if s.total.classes[c] > 0 {
			cols = append(cols, c)
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	line := func(cells ...string) {
		for _, c := range cells {
			fmt.Fprint(tw, c, "\t")
		}
		fmt.Fprintln(tw)
	}
	// The class columns count attempts, a request that failed over once
	// in each class it met (operator review 61f: read beside a request
	// count, "cheap 5 requests, rate_limited 4" looked like four of five).
	fmt.Fprintln(tw, "requests by route; each class column counts attempts")
	head := append([]string{"route", "requests", "not ok"}, cols...)
	line(head...)
	cells := func(name string, r *row) []string {
		out := []string{Shown(name), strconv.Itoa(r.requests), strconv.Itoa(r.failed)}
		for _, c := range cols {
			out = append(out, strconv.Itoa(r.classes[c]))
		}
		return out
	}
	names := make([]string, 0, len(s.routes))
	for n := range s.routes {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		line(cells(n, s.routes[n])...)
	}
	if len(names) > 1 {
		line(cells("total", &s.total)...)
	}
	line()
	line(append([]string{"provider", "attempts", "not ok"}, cols...)...)
	names = names[:0]
	for n := range s.providers {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		p, all := s.providers[n], 0
		for _, k := range p {
			all += k
		}
		out := []string{Shown(n), strconv.Itoa(all), strconv.Itoa(all - p["ok"])}
		for _, c := range cols {
			out = append(out, strconv.Itoa(p[c]))
		}
		line(out...)
	}
	if len(s.apis) > 1 {
		line()
		line(append([]string{"api", "requests", "not ok"}, cols...)...)
		for _, a := range APIs() {
			if r := s.apis[a]; r != nil {
				line(cells(a, r)...)
			}
		}
		for _, a := range sortedKeys(s.apis) { // a door this build does not know (a newer replica's log)
			if !slices.Contains(APIs(), a) {
				line(cells(a, s.apis[a])...)
			}
		}
	}
	return tw.Flush()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// maxShown is the most of a name a table shows: one long name (a log line
// may be 16 MiB) padded every row to its width (hostile 57c: a 250 KB log
// printed 51 MB).
const maxShown = 64

// Shown is name as a table cell: quoted with escapes where it holds a
// control or invisible character (a newline forged a row, a terminal
// escape reached the terminal: hostile 57c), cut to maxShown runes.
func Shown(name string) string {
	if strings.IndexFunc(name, hidden) >= 0 {
		name = strconv.QuoteToGraphic(name)
		var b strings.Builder
		for _, r := range name {
			if hidden(r) {
				fmt.Fprintf(&b, "\\u%04x", r)
				continue
			}
			b.WriteRune(r)
		}
		name = b.String()
	}
	if utf8.RuneCountInString(name) > maxShown {
		name = string([]rune(name)[:maxShown-1]) + "…"
	}
	return name
}

// hidden reports a rune a terminal does not show as itself: not graphic,
// or one the logs escape (rawjson.Invisible).
func hidden(r rune) bool { return !unicode.IsGraphic(r) || rawjson.Invisible(r) }

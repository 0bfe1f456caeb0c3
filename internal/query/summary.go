package query

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"text/tabwriter"

	"github.com/detour-llm/detour/internal/decision"
)

// Summary counts requests and attempts by route and class. The zero value
// is empty and ready.
type Summary struct {
	routes map[string]*row
	total  row
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
}

// WriteTable writes a route × class table: one line per route (sorted) and
// a total, with the requests, how many did not end ok, and the attempts of
// each class that occurred (ok first, then the twelve, then canceled).
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
	head := append([]string{"route", "requests", "not ok"}, cols...)
	line(head...)
	cells := func(name string, r *row) []string {
		out := []string{name, strconv.Itoa(r.requests), strconv.Itoa(r.failed)}
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
	return tw.Flush()
}

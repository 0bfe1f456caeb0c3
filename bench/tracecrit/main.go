package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"golang.org/x/exp/trace"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: tracecrit TRACE...")
		os.Exit(2)
	}
	for _, name := range os.Args[1:] {
		s, err := read(name)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", name, err)
			os.Exit(1)
		}
		s.print(name)
	}
}

// request is one request's marks on its connection goroutine's timeline.
type request struct {
	wake, run, create, headers, headersRun, write trace.Time
}

// goroutine is what is known of one goroutine so far.
type goroutine struct {
	wake, run trace.Time
	req       *request
}

// summary is one trace's requests and counts.
type summary struct {
	secs              float64
	reqs              []*request
	creates, unblocks int
}

func read(name string) (*summary, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := trace.NewReader(f)
	if err != nil {
		return nil, err
	}
	gs := map[trace.GoID]*goroutine{}
	get := func(id trace.GoID) *goroutine {
		if gs[id] == nil {
			gs[id] = &goroutine{}
		}
		return gs[id]
	}
	s := &summary{}
	var first, last trace.Time
	for {
		ev, err := r.ReadEvent()
		if err != nil {
			break // io.EOF, or a trace cut short: what was read counts
		}
		if first == 0 {
			first = ev.Time()
		}
		last = ev.Time()
		if ev.Kind() != trace.EventStateTransition {
			continue
		}
		st := ev.StateTransition()
		if st.Resource.Kind != trace.ResourceGoroutine {
			continue
		}
		from, to := st.Goroutine()
		t, g := ev.Time(), get(st.Resource.Goroutine())
		switch {
		case from == trace.GoNotExist && to == trace.GoRunnable:
			s.creates++
			if top(st.Stack) == "net/http.(*http2clientStream).doRequest" {
				e := get(ev.Goroutine())
				e.req = &request{wake: e.wake, run: e.run, create: t}
			}
		case from == trace.GoWaiting && to == trace.GoRunnable:
			s.unblocks++
			g.wake = t
			if q := g.req; q != nil && q.headers == 0 && has(ev.Stack(), "processHeaders") {
				q.headers = t
			}
		case from == trace.GoRunnable && to == trace.GoRunning:
			g.run = t
			if q := g.req; q != nil && q.headers != 0 && q.headersRun == 0 {
				q.headersRun = t
			}
		case to == trace.GoSyscall:
			if q := g.req; q != nil && q.headers != 0 && has(ev.Stack(), "syscall.write") {
				q.write = t
				s.reqs = append(s.reqs, q)
				g.req = nil
			}
		}
	}
	s.secs = float64(last-first) / 1e9
	return s, nil
}

func (s *summary) print(name string) {
	fmt.Printf("%s: %d requests in %.1fs; %.0f goroutines created, %.0f woken a second\n",
		name, len(s.reqs), s.secs, float64(s.creates)/s.secs, float64(s.unblocks)/s.secs)
	s.segment("own work (start → upstream stream)", func(q *request) (trace.Time, bool) { return q.create - q.run, q.run != 0 && q.run <= q.create })
	s.segment("upstream (→ response headers)", func(q *request) (trace.Time, bool) { return q.headers - q.create, true })
	s.segment("wake-up on the headers", func(q *request) (trace.Time, bool) { return q.headersRun - q.headers, q.headersRun != 0 })
	s.segment("answer (headers → first write)", func(q *request) (trace.Time, bool) { return q.write - q.headers, true })
	s.segment("whole (woken → first write)", func(q *request) (trace.Time, bool) { return q.write - q.wake, q.wake != 0 && q.wake <= q.create })
}

// segment prints the quartiles of one segment over the requests where ok.
func (s *summary) segment(label string, d func(*request) (trace.Time, bool)) {
	var us []float64
	for _, q := range s.reqs {
		if v, ok := d(q); ok {
			us = append(us, float64(v)/1e3)
		}
	}
	if len(us) == 0 {
		fmt.Printf("  %-36s no requests\n", label)
		return
	}
	slices.Sort(us)
	q := func(p float64) float64 { return us[int(p*float64(len(us)-1))] }
	fmt.Printf("  %-36s p25 %6.1f  p50 %6.1f  p75 %6.1f µs\n", label, q(.25), q(.5), q(.75))
}

func top(s trace.Stack) string {
	for f := range s.Frames() {
		return f.Func
	}
	return ""
}

func has(s trace.Stack, fn string) bool {
	for f := range s.Frames() {
		if strings.Contains(f.Func, fn) {
			return true
		}
	}
	return false
}

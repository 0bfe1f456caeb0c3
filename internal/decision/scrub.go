package decision

import "context"

// Scrubbed returns a Sink that hands s every decision with its free text
// (each attempt's evidence, upstream message and upstream request id, each skip's reason) passed through scrub, so a
// record never carries a secret even if an evidence string one day quotes
// an upstream. Other fields are configured names, classes and numbers. A
// record that needs no change is passed on as it is; one that does is
// copied, never changed in place. It is a ContextSink: a sink under it that
// reads the request's context (the tracer) still gets it.
func Scrubbed(s Sink, scrub func(string) string) Sink {
	return scrubbed{s: s, scrub: scrub}
}

type scrubbed struct {
	s     Sink
	scrub func(string) string
}

func (x scrubbed) Write(d *Decision) { x.WriteContext(context.Background(), d) }

func (x scrubbed) WriteContext(ctx context.Context, d *Decision) {
	out := d
	for i := range d.Attempts {
		a := &d.Attempts[i] // not a copy of the whole attempt
		if ev := x.scrub(a.Evidence); ev != a.Evidence {
			if out == d {
				out = clone(d)
			}
			out.Attempts[i].Evidence = ev
		}
		if m := x.scrub(a.Message); m != a.Message {
			if out == d {
				out = clone(d)
			}
			out.Attempts[i].Message = m
		}
		if id := x.scrub(a.UpstreamRequestID); id != a.UpstreamRequestID {
			if out == d {
				out = clone(d)
			}
			out.Attempts[i].UpstreamRequestID = id
		}
	}
	for i := range d.Skipped {
		sk := &d.Skipped[i]
		if r := x.scrub(sk.Reason); r != sk.Reason {
			if out == d {
				out = clone(d)
			}
			out.Skipped[i].Reason = r
		}
	}
	Emit(ctx, x.s, out)
}

func clone(d *Decision) *Decision {
	c := *d
	c.Attempts = append(make([]Attempt, 0, len(d.Attempts)), d.Attempts...)
	if d.Skipped != nil {
		c.Skipped = append(make([]Skip, 0, len(d.Skipped)), d.Skipped...)
	}
	return &c
}

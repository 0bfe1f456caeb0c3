package decision

import "context"

// ContextSink is a Sink that also wants the request's context with each
// record: what the HTTP front put there (an incoming trace context, say).
// The context may already be canceled; only its values are meant.
type ContextSink interface {
	Sink
	WriteContext(ctx context.Context, d *Decision)
}

// Emit hands d to s, with ctx when s is a ContextSink.
func Emit(ctx context.Context, s Sink, d *Decision) {
	if cs, ok := s.(ContextSink); ok {
		cs.WriteContext(ctx, d)
		return
	}
	s.Write(d)
}

// Tee returns a Sink that hands every record to each of sinks, in order
// (nil entries are left out). A record must not be changed after it is
// written: every sink sees the same one. One sink is returned as is.
func Tee(sinks ...Sink) Sink {
	var t tee
	for _, s := range sinks {
		if s != nil {
			t = append(t, s)
		}
	}
	switch len(t) {
	case 0:
		return Discard
	case 1:
		return t[0]
	}
	return t
}

type tee []Sink

func (t tee) Write(d *Decision) { t.WriteContext(context.Background(), d) }

func (t tee) WriteContext(ctx context.Context, d *Decision) {
	for _, s := range t {
		Emit(ctx, s, d)
	}
}

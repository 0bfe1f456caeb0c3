package redact

import (
	"context"
	"fmt"
	"log/slog"
)

// Handler returns a slog.Handler that scrubs every record with the current
// Scrubber of c (Scrubber.String) before h formats it: the message, every
// string attribute, and errors and other values (logged as their scrubbed
// text). Scrubbing happens before h quotes or JSON-escapes anything.
func Handler(h slog.Handler, c *Current) slog.Handler { return handler{h: h, c: c} }

type handler struct {
	h slog.Handler
	c *Current
}

func (x handler) Enabled(ctx context.Context, l slog.Level) bool { return x.h.Enabled(ctx, l) }

func (x handler) Handle(ctx context.Context, r slog.Record) error {
	s := x.c.Get()
	out := slog.NewRecord(r.Time, r.Level, s.String(r.Message), r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(scrubAttr(s, a))
		return true
	})
	return x.h.Handle(ctx, out)
}

func (x handler) WithAttrs(as []slog.Attr) slog.Handler {
	s := x.c.Get()
	out := make([]slog.Attr, len(as))
	for i, a := range as {
		out[i] = scrubAttr(s, a)
	}
	return handler{h: x.h.WithAttrs(out), c: x.c}
}

func (x handler) WithGroup(name string) slog.Handler {
	return handler{h: x.h.WithGroup(name), c: x.c}
}

func scrubAttr(s *Scrubber, a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, s.String(v.String()))
	case slog.KindGroup:
		g := v.Group()
		out := make([]slog.Attr, len(g))
		for i, ga := range g {
			out[i] = scrubAttr(s, ga)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(out...)}
	case slog.KindAny:
		switch x := v.Any().(type) {
		case nil:
		case error:
			return slog.String(a.Key, s.String(x.Error()))
		case fmt.Stringer:
			return slog.String(a.Key, s.String(x.String()))
		case []byte:
			return slog.String(a.Key, s.String(string(x)))
		default:
			return slog.String(a.Key, s.String(fmt.Sprint(x)))
		}
	case slog.KindBool, slog.KindDuration, slog.KindFloat64, slog.KindInt64, slog.KindTime,
		slog.KindUint64, slog.KindLogValuer:
	}
	return slog.Attr{Key: a.Key, Value: v}
}

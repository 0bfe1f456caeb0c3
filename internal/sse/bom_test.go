package sse

import (
	"strings"
	"testing"
)

// A stream may open with a UTF-8 byte order mark (.NET's and some Java
// servers' writers add one); the event-stream format ignores one there, as
// browsers' EventSource does. Read as a field name, it lost the stream's
// first event.
func TestLeadingByteOrderMarkIsIgnored(t *testing.T) {
	r := NewReader(strings.NewReader("\ufeffdata: first\n\ndata: \ufeffsecond\n\n"), 0)
	for _, want := range []string{"first", "\ufeffsecond"} {
		ev, err := r.Next()
		if err != nil || string(ev.Data) != want {
			t.Fatalf("event %q, %v; want %q", ev.Data, err, want)
		}
	}
	// Only one, only at the start: a second mark is the field name's.
	r = NewReader(strings.NewReader("\ufeff\ufeffdata: x\n\ndata: y\n\n"), 0)
	if ev, err := r.Next(); err != nil || string(ev.Data) != "y" {
		t.Fatalf("event %q, %v; want y (the first line's field is \\ufeffdata)", ev.Data, err)
	}
}

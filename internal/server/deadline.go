package server

import (
	"net/http"
	"time"
)

// deadlineWriter gives every answer a write deadline: the first write of
// the header or the body sets it clientWriteTimeout ahead, so a client that
// asks and never reads cannot hold a handler and its connection, whoever
// writes the answer — the front's own refusals, /v1/models, the operator
// endpoints — (docs/security.md). A proxied answer moves the deadline on
// itself before each batch it writes (sseOutput, finishWhole), which this
// first one does not disturb: it is set once. The zero value wraps nothing;
// ResponseWriter must be set.
type deadlineWriter struct {
	http.ResponseWriter
	armed bool
}

func (d *deadlineWriter) arm() {
	if !d.armed {
		d.armed = true
		_ = http.NewResponseController(d.ResponseWriter).SetWriteDeadline(time.Now().Add(clientWriteTimeout))
	}
}

func (d *deadlineWriter) WriteHeader(code int) {
	d.arm()
	d.ResponseWriter.WriteHeader(code)
}

func (d *deadlineWriter) Write(b []byte) (int, error) {
	d.arm()
	return d.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (flushes, the
// proxied answers' own deadlines).
func (d *deadlineWriter) Unwrap() http.ResponseWriter { return d.ResponseWriter }

// writeDeadline gives w a write deadline clientWriteTimeout from now, as a
// proxied whole answer does before it is written. On a deadlineWriter it is
// that writer's own deadline, set now: the answer's first write then sets
// none of its own (one deadline an answer, not two: each is a trip through
// the runtime's poller and timers; docs/benchmarks.md, "Round 23").
func writeDeadline(w http.ResponseWriter) {
	if d, ok := w.(*deadlineWriter); ok {
		d.armed = false
		d.arm()
		return
	}
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(clientWriteTimeout))
}

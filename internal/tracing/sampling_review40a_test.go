package tracing

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
)

// Review 40a: a client's traceparent decides whether its request is traced
// under the default sampler (the caller's decision is followed); an operator
// who must see every request sets OTEL_TRACES_SAMPLER=always_on and relies
// on a client's "not sampled" flag hiding nothing, the request's span still
// continuing the caller's trace (docs/tracing.md, docs/security.md).
func TestReview40aClientSamplingFlag(t *testing.T) {
	flagged := func(tr *Tracer) context.Context {
		var ctx context.Context
		h := Extract(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { ctx = r.Context() }))
		req := httptest.NewRequest("POST", "/v1/chat/completions", nil)
		req.Header.Set("traceparent", "00-"+incomingTrace+"-"+incomingSpan+"-00") // "do not sample me"
		req.Header.Set("tracestate", "evil=x")
		h.ServeHTTP(httptest.NewRecorder(), req)
		return ctx
	}
	t.Run("default", func(t *testing.T) {
		t.Setenv("OTEL_TRACES_SAMPLER", "")
		tr, exp := newTest(t)
		tr.WriteContext(flagged(tr), failover())
		if n := len(exp.GetSpans()); n != 0 {
			t.Errorf("default sampler: %d spans for a caller that asked not to be sampled; the docs say its decision is followed", n)
		}
	})
	t.Run("always_on", func(t *testing.T) {
		t.Setenv("OTEL_TRACES_SAMPLER", "always_on")
		tr, exp := newTest(t)
		tr.WriteContext(flagged(tr), failover())
		spans := exp.GetSpans()
		if len(spans) != 4 {
			t.Fatalf("always_on: %d spans, want 4: a client's flag must hide nothing", len(spans))
		}
		for _, s := range spans {
			if s.SpanContext.TraceID().String() != incomingTrace {
				t.Errorf("span %q is in trace %s, want the caller's %s", s.Name, s.SpanContext.TraceID(), incomingTrace)
			}
			if ts := s.SpanContext.TraceState().String(); ts != "evil=x" {
				t.Errorf("span %q tracestate %q, want the caller's as parsed", s.Name, ts)
			}
		}
	})
}

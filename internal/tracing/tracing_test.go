package tracing

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/detour-llm/detour/internal/decision"
)

const (
	incomingTrace = "4bf92f3577b34da6a3ce929d0e0e4736"
	incomingSpan  = "00f067aa0ba902b7"
)

var t0 = time.Date(2026, 11, 30, 9, 12, 3, 0, time.UTC)

// failover is a request that met a spend cap at anthropic, was retried on
// openai after a server error, and answered there.
func failover() *decision.Decision {
	return &decision.Decision{ID: "5f0c000000000001", Time: t0, Route: "deep", Strategy: "ordered", Outcome: "ok",
		Status: 200, MS: 100, Client: "key:01020304",
		Attempts: []decision.Attempt{
			{Target: "claude", Provider: "anthropic", Model: "claude-sonnet-4-5", Status: 400, Class: "quota",
				Evidence: "phrase:workspace api usage limits", Action: "next_target", Counted: true, StartMS: 0.5, MS: 10, TTFBMS: 9},
			{Target: "gpt", Provider: "openai", Model: "gpt-4o", Status: 500, Class: "server_error",
				Evidence: "status:500", Action: "retry", Counted: true, StartMS: 11, MS: 20},
			{Target: "gpt", Provider: "openai", Model: "gpt-4o", Status: 200, Action: "done", Billable: true,
				StartMS: 250, MS: 40, Usage: &decision.Usage{PromptTokens: 12, CompletionTokens: 5, TotalTokens: 17}}},
		Skipped:     []decision.Skip{{Target: "flash", Provider: "gemini", Reason: "not needed"}},
		Transitions: []decision.Transition{{Scope: "account", Name: "anthropic", From: "healthy", To: "cooling", Class: "quota"}}}
}

func newTest(t *testing.T) (*Tracer, *tracetest.InMemoryExporter) {
	exp := tracetest.NewInMemoryExporter()
	dialects := map[string]string{"anthropic": "anthropic", "openai": "openai", "gemini": "gemini"}
	tr, err := New(Options{Exporter: exp, Dialect: func(p string) string { return dialects[p] }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tr.Shutdown(context.Background()) })
	return tr, exp
}

func attrs(kv []attribute.KeyValue) map[string]any {
	m := map[string]any{}
	for _, a := range kv {
		m[string(a.Key)] = a.Value.AsInterface()
	}
	return m
}

// One server span per request continuing the caller's trace, one client
// span per attempt at its own start, with the GenAI attributes and the
// class, evidence and action of each attempt.
func TestRequestAndAttemptSpansContinueTheCallersTrace(t *testing.T) {
	tr, exp := newTest(t)
	var ctx context.Context
	h := Extract(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { ctx = r.Context() }))
	req := httptest.NewRequest("POST", "/v1/chat/completions", nil)
	req.Header.Set("traceparent", "00-"+incomingTrace+"-"+incomingSpan+"-01")
	h.ServeHTTP(httptest.NewRecorder(), req)
	tr.WriteContext(ctx, failover())

	spans := exp.GetSpans()
	if len(spans) != 4 {
		t.Fatalf("%d spans, want 4 (request + 3 attempts)", len(spans))
	}
	var root tracetest.SpanStub
	var kids []tracetest.SpanStub
	for _, s := range spans {
		if s.SpanKind == trace.SpanKindServer {
			root = s
		} else {
			kids = append(kids, s)
		}
	}
	if root.SpanContext.TraceID().String() != incomingTrace || root.Parent.SpanID().String() != incomingSpan || !root.Parent.IsRemote() {
		t.Errorf("request span: trace %s parent %s (remote %v), want the caller's %s/%s",
			root.SpanContext.TraceID(), root.Parent.SpanID(), root.Parent.IsRemote(), incomingTrace, incomingSpan)
	}
	ra := attrs(root.Attributes)
	for k, v := range map[string]any{"gen_ai.operation.name": "chat", "gen_ai.request.model": "deep", "gen_ai.response.model": "gpt-4o",
		"gen_ai.provider.name": "openai", "gen_ai.usage.input_tokens": int64(12), "gen_ai.usage.output_tokens": int64(5),
		"detour.decision.id": "5f0c000000000001", "detour.outcome": "ok", "detour.attempts": int64(3), "detour.client": "key:01020304",
		"http.response.status_code": int64(200)} {
		if ra[k] != v {
			t.Errorf("request span %s = %v, want %v", k, ra[k], v)
		}
	}
	if root.Name != "chat deep" || !root.StartTime.Equal(t0) || !root.EndTime.Equal(t0.Add(100*time.Millisecond)) {
		t.Errorf("request span %q %v–%v", root.Name, root.StartTime, root.EndTime)
	}
	if len(root.Events) != 2 || root.Events[0].Name != "detour.skipped" || root.Events[1].Name != "detour.health_transition" {
		t.Errorf("request span events %+v", root.Events)
	}

	want := []struct {
		name, provider, class, evidence, action string
		start, end                              time.Duration
		status                                  codes.Code
	}{
		{"chat claude-sonnet-4-5", "anthropic", "quota", "phrase:workspace api usage limits", "next_target", 500 * time.Microsecond, 10500 * time.Microsecond, codes.Error},
		{"chat gpt-4o", "openai", "server_error", "status:500", "retry", 11 * time.Millisecond, 31 * time.Millisecond, codes.Error},
		{"chat gpt-4o", "openai", "ok", "", "done", 250 * time.Millisecond, 290 * time.Millisecond, codes.Unset},
	}
	for i, w := range want {
		s := kids[i]
		a := attrs(s.Attributes)
		if s.Parent.SpanID() != root.SpanContext.SpanID() || s.SpanContext.TraceID().String() != incomingTrace {
			t.Errorf("attempt %d is not a child of the request span", i+1)
		}
		if s.Name != w.name || s.SpanKind != trace.SpanKindClient || !s.StartTime.Equal(t0.Add(w.start)) || !s.EndTime.Equal(t0.Add(w.end)) || s.Status.Code != w.status {
			t.Errorf("attempt %d: %q kind %v %v–%v status %v", i+1, s.Name, s.SpanKind, s.StartTime.Sub(t0), s.EndTime.Sub(t0), s.Status)
		}
		if a["gen_ai.provider.name"] != w.provider || a["detour.class"] != w.class || a["detour.action"] != w.action ||
			a["gen_ai.operation.name"] != "chat" || a["gen_ai.request.model"] == nil {
			t.Errorf("attempt %d attributes %v", i+1, a)
		}
		if w.evidence != "" && a["detour.evidence"] != w.evidence || w.class != "ok" && a["error.type"] != w.class {
			t.Errorf("attempt %d evidence/error.type %v", i+1, a)
		}
	}
	if a := attrs(kids[2].Attributes); a["gen_ai.usage.input_tokens"] != int64(12) || a["gen_ai.response.model"] != "gpt-4o" {
		t.Errorf("answering attempt: %v", a)
	}
}

// Without a traceparent each request starts its own trace; a failed one is
// an error span carrying its class.
func TestRequestWithoutTraceparentStartsATraceAndFailuresAreErrors(t *testing.T) {
	tr, exp := newTest(t)
	d := failover()
	d.Outcome, d.Status, d.Class = "error", 429, "rate_limited"
	d.Attempts = d.Attempts[:1]
	d.Attempts[0].Class, d.Attempts[0].Action = "rate_limited", "stop"
	tr.Write(d)
	tr.Write(failover())
	spans := exp.GetSpans()
	if len(spans) != 6 { // 1 + 1 attempt, 1 + 3 attempts
		t.Fatalf("%d spans", len(spans))
	}
	var roots []tracetest.SpanStub
	for _, s := range spans {
		if s.SpanKind == trace.SpanKindServer {
			roots = append(roots, s)
		}
	}
	if len(roots) != 2 || roots[0].Parent.IsValid() || roots[0].SpanContext.TraceID() == roots[1].SpanContext.TraceID() {
		t.Fatalf("roots %+v", roots)
	}
	a := attrs(roots[0].Attributes)
	if roots[0].Status.Code != codes.Error || a["detour.class"] != "rate_limited" || a["error.type"] != "rate_limited" {
		t.Errorf("failed request span: %v %v", roots[0].Status, a)
	}
}

func TestNewRejectsABadEndpoint(t *testing.T) {
	if _, err := New(Options{Endpoint: "::nope"}); err == nil {
		t.Error("no error")
	}
}

// The record's cost goes on the spans (operator review 50: traces carried
// tokens but not what they cost): known, and a stream cut before its count
// as unknown; an unpriced target's attempt carries neither.
func TestSpansCarryTheCost(t *testing.T) {
	tr, exp := newTest(t)
	known, unknown := decision.USD(0.0105), decision.Unknown()
	d := &decision.Decision{ID: "c1", Time: t0, Route: "deep", Outcome: decision.OutcomeOK, Status: 200, MS: 10, CostUSD: &known,
		Attempts: []decision.Attempt{
			{Target: "claude", Provider: "anthropic", Model: "m", Action: decision.ActionDone, Billable: true, MS: 5, CostUSD: &known},
			{Target: "gpt", Provider: "openai", Model: "m", Class: "timeout", Action: decision.ActionNextTarget, Billable: true, MS: 1, CostUSD: unknown, CostUnknown: true},
			{Target: "local", Provider: "openai", Model: "m", Class: "timeout", Action: decision.ActionStop, MS: 1}}}
	tr.WriteContext(context.Background(), d)
	got := map[string]map[string]any{}
	for _, s := range exp.GetSpans() {
		got[s.Name+"/"+attrs(s.Attributes)["detour.target"].(string)] = attrs(s.Attributes)
	}
	if a := got["chat m/claude"]; a["detour.cost_usd"] != 0.0105 || a["detour.cost_unknown"] != nil {
		t.Errorf("priced attempt: %v", a)
	}
	if a := got["chat m/gpt"]; a["detour.cost_usd"] != nil || a["detour.cost_unknown"] != true {
		t.Errorf("unknown cost: %v", a)
	}
	if a := got["chat m/local"]; a["detour.cost_usd"] != nil || a["detour.cost_unknown"] != nil {
		t.Errorf("unpriced: %v", a)
	}
}

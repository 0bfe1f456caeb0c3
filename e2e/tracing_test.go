package e2e

import (
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpReceiver is an OTLP/HTTP trace collector on loopback that keeps what
// it is sent.
type otlpReceiver struct {
	*httptest.Server
	mu       sync.Mutex
	spans    []*tracepb.Span
	service  string
	instance string // service.instance.id
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	r := &otlpReceiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		var ex coltrace.ExportTraceServiceRequest
		if req.URL.Path != "/v1/traces" || req.Header.Get("Content-Type") != "application/x-protobuf" || proto.Unmarshal(body, &ex) != nil {
			t.Errorf("collector got %s %s (%s), not an OTLP/HTTP protobuf export", req.Method, req.URL.Path, req.Header.Get("Content-Type"))
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		for _, rs := range ex.ResourceSpans {
			for _, a := range rs.GetResource().GetAttributes() {
				switch a.Key {
				case "service.name":
					r.service = a.Value.GetStringValue()
				case "service.instance.id":
					r.instance = a.Value.GetStringValue()
				}
			}
			for _, ss := range rs.ScopeSpans {
				r.spans = append(r.spans, ss.Spans...)
			}
		}
		r.mu.Unlock()
		out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
	}))
	t.Cleanup(r.Close)
	return r
}

// waitSpans waits (up to 10s) for n spans.
func (r *otlpReceiver) waitSpans(t *testing.T, n int) []*tracepb.Span {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; { // a failure guard, not a timing assertion
		r.mu.Lock()
		got := append([]*tracepb.Span(nil), r.spans...)
		r.mu.Unlock()
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("collector has %d spans, want %d", len(got), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func spanAttrs(kv []*commonpb.KeyValue) map[string]any {
	m := map[string]any{}
	for _, a := range kv {
		switch v := a.Value.Value.(type) {
		case *commonpb.AnyValue_StringValue:
			m[a.Key] = v.StringValue
		case *commonpb.AnyValue_IntValue:
			m[a.Key] = v.IntValue
		case *commonpb.AnyValue_BoolValue:
			m[a.Key] = v.BoolValue
		case *commonpb.AnyValue_DoubleValue:
			m[a.Key] = v.DoubleValue
		}
	}
	return m
}

// A request that fails over is followed in the operator's tracing system:
// the gateway exports, over OTLP/HTTP, one span for the request continuing
// the caller's traceparent and one per attempt with its class, evidence and
// action and the GenAI attributes.
func TestTracesReachAnOTLPCollector(t *testing.T) {
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50") // export every 50ms instead of 5s
	col := newOTLPReceiver(t)
	g := startQuotaThenOK(t, `tracing: {otlp_endpoint: "`+col.URL+`", service_name: detour-e2e}`)
	const traceID, parentID = "0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331"
	res := g.post(t, "deep", "", "traceparent", "00-"+traceID+"-"+parentID+"-01")
	res.wantStatus(t, 200)
	id := res.Header.Get("X-Detour-Decision")

	spans := col.waitSpans(t, 3)
	var root *tracepb.Span
	var attempts []*tracepb.Span
	for _, s := range spans {
		if s.Kind == tracepb.Span_SPAN_KIND_SERVER {
			root = s
		} else {
			attempts = append(attempts, s)
		}
	}
	if root == nil || len(attempts) != 2 {
		t.Fatalf("spans: %v", spans)
	}
	if hex.EncodeToString(root.TraceId) != traceID || hex.EncodeToString(root.ParentSpanId) != parentID {
		t.Errorf("request span trace %x parent %x, want the caller's %s/%s", root.TraceId, root.ParentSpanId, traceID, parentID)
	}
	if a := spanAttrs(root.Attributes); root.Name != "chat deep" || a["detour.decision.id"] != id || a["gen_ai.request.model"] != "deep" ||
		a["gen_ai.response.model"] != "gpt-4o" || a["gen_ai.provider.name"] != "openai" || a["gen_ai.usage.input_tokens"] != int64(5) {
		t.Errorf("request span %q: %v", root.Name, a)
	}
	if col.service != "detour-e2e" {
		t.Errorf("service.name %q", col.service)
	}
	// The replica, as pages and the console name it: host and port.
	if host, _ := os.Hostname(); !strings.HasPrefix(col.instance, host+":") {
		t.Errorf("service.instance.id %q, want the replica (%s:port)", col.instance, host)
	}
	want := []map[string]any{
		{"detour.class": "quota", "detour.evidence": "phrase:workspace api usage limits", "detour.action": "next_target",
			"gen_ai.provider.name": "anthropic", "gen_ai.request.model": "claude-sonnet-4-5", "http.response.status_code": int64(400)},
		{"detour.class": "ok", "detour.action": "done", "gen_ai.provider.name": "openai", "gen_ai.request.model": "gpt-4o",
			"gen_ai.response.model": "gpt-4o", "gen_ai.usage.output_tokens": int64(2)},
	}
	if attempts[0].StartTimeUnixNano > attempts[1].StartTimeUnixNano {
		attempts[0], attempts[1] = attempts[1], attempts[0]
	}
	for i, w := range want {
		s := attempts[i]
		a := spanAttrs(s.Attributes)
		if string(s.ParentSpanId) != string(root.SpanId) || string(s.TraceId) != string(root.TraceId) || s.Kind != tracepb.Span_SPAN_KIND_CLIENT {
			t.Errorf("attempt %d is not a client span under the request span", i+1)
		}
		for k, v := range w {
			if a[k] != v {
				t.Errorf("attempt %d %s = %v, want %v", i+1, k, a[k], v)
			}
		}
		if a["gen_ai.operation.name"] != "chat" {
			t.Errorf("attempt %d operation %v", i+1, a["gen_ai.operation.name"])
		}
		if s.StartTimeUnixNano < root.StartTimeUnixNano || s.EndTimeUnixNano > root.EndTimeUnixNano+uint64(time.Millisecond) {
			t.Errorf("attempt %d lies outside the request span", i+1)
		}
	}
	if attempts[0].Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR || attempts[1].Status.GetCode() == tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("span statuses: %v, %v", attempts[0].Status, attempts[1].Status)
	}
}

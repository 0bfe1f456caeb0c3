package tracing

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/detour-llm/detour/internal/decision"
)

// Options configure a Tracer.
type Options struct {
	// Endpoint is the OTLP/HTTP collector URL; without a path, spans go to
	// its /v1/traces. Ignored when Exporter is set.
	Endpoint string
	// ServiceName is the service.name resource attribute ("" = "detour").
	ServiceName string
	// Instance is the service.instance.id resource attribute: the replica,
	// named as pages and the console name it ("" leaves it out;
	// OTEL_RESOURCE_ATTRIBUTES overrides it).
	Instance string
	// Dialect names a configured provider's dialect (openai, anthropic,
	// gemini), for gen_ai.provider.name; nil or "" leaves it out.
	Dialect func(provider string) string
	// Exporter replaces the OTLP exporter, e.g. the SDK's in-memory test
	// exporter; spans are then exported as they end.
	Exporter sdktrace.SpanExporter
	// Logger receives export failures (at most one line a minute); nil
	// means slog.Default().
	Logger *slog.Logger
}

// Tracer is a decision sink that exports each record as a trace. Create it
// with New; Shutdown flushes it.
type Tracer struct {
	tp      *sdktrace.TracerProvider
	tr      trace.Tracer
	dialect func(string) string
}

// New builds a Tracer. The sampler follows the standard OTEL_TRACES_SAMPLER
// variables (default: keep every new trace, follow the caller's decision
// for a continued one); OTEL_EXPORTER_OTLP_HEADERS adds export headers.
func New(o Options) (*Tracer, error) {
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	name := o.ServiceName
	if name == "" {
		name = "detour"
	}
	var proc sdktrace.SpanProcessor
	if o.Exporter != nil {
		proc = sdktrace.NewSimpleSpanProcessor(o.Exporter)
	} else {
		u, err := url.Parse(o.Endpoint)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("tracing: bad otlp_endpoint")
		}
		if u.Path == "" || u.Path == "/" {
			u.Path = "/v1/traces"
		}
		exp, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(u.String()))
		if err != nil {
			return nil, fmt.Errorf("tracing: %v", err)
		}
		proc = sdktrace.NewBatchSpanProcessor(exp)
	}
	var own []attribute.KeyValue
	if o.Instance != "" {
		// Which replica served a trace, as its pages and console say
		// (operator review 63e: only OTEL_RESOURCE_ATTRIBUTES told).
		own = append(own, attribute.String("service.instance.id", o.Instance))
	}
	res, err := resource.New(context.Background(), resource.WithAttributes(own...), resource.WithFromEnv(), resource.WithTelemetrySDK(),
		resource.WithAttributes(attribute.String("service.name", name)))
	if err != nil {
		log.Warn("tracing: resource attributes from the environment", "err", err)
	}
	setErrorHandler(log)
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(proc), sdktrace.WithResource(res))
	return &Tracer{tp: tp, tr: tp.Tracer("github.com/detour-llm/detour"), dialect: o.Dialect}, nil
}

var lastExportWarn atomic.Int64

// setErrorHandler logs the SDK's own errors (a collector that cannot be
// reached, say) through log, at most once a minute. The SDK has one
// handler per process.
func setErrorHandler(log *slog.Logger) {
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		now := time.Now().UnixNano()
		last := lastExportWarn.Load()
		if now-last >= int64(time.Minute) && lastExportWarn.CompareAndSwap(last, now) {
			log.Warn("tracing: spans could not be exported", "err", err)
		}
	}))
}

// Shutdown exports what is queued and stops the Tracer.
func (t *Tracer) Shutdown(ctx context.Context) error { return t.tp.Shutdown(ctx) }

// Extract serves next with the incoming W3C trace context (traceparent,
// tracestate) in the request's context, so the request's trace continues
// the caller's.
func Extract(next http.Handler) http.Handler {
	prop := propagation.TraceContext{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("traceparent") == "" {
			next.ServeHTTP(w, r)
			return
		}
		next.ServeHTTP(w, r.WithContext(prop.Extract(r.Context(), propagation.HeaderCarrier(r.Header))))
	})
}

// Write exports d as a new trace.
func (t *Tracer) Write(d *decision.Decision) { t.WriteContext(context.Background(), d) }

// WriteContext exports d, continuing the trace ctx carries (see Extract).
func (t *Tracer) WriteContext(ctx context.Context, d *decision.Decision) {
	ctx = context.WithoutCancel(ctx)
	start := d.Time
	end := start.Add(ms(d.MS))
	var answered *decision.Attempt
	for i := range d.Attempts {
		if d.Attempts[i].Action == decision.ActionDone {
			answered = &d.Attempts[i]
		}
	}
	op := operation(d)
	attrs := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", op),
		attribute.String("gen_ai.request.model", d.Route),
		attribute.Int("http.response.status_code", d.Status),
		attribute.String("detour.decision.id", d.ID),
		attribute.String("detour.route", d.Route),
		attribute.String("detour.strategy", d.Strategy),
		attribute.String("detour.outcome", d.Outcome),
		attribute.Bool("detour.stream", d.Stream),
		attribute.Int("detour.attempts", len(d.Attempts)),
	}
	if d.Client != "" {
		attrs = append(attrs, attribute.String("detour.client", d.Client))
	}
	if answered != nil {
		attrs = append(attrs, attribute.String("gen_ai.response.model", answered.Model),
			attribute.String("detour.target", answered.Target), attribute.String("detour.provider", answered.Provider))
		attrs = append(attrs, t.providerName(answered.Provider)...)
		attrs = append(attrs, usage(answered.Usage)...)
	}
	attrs = append(attrs, cost(d.CostUSD, d.CostUnknown)...)
	if d.Class != "" {
		attrs = append(attrs, attribute.String("detour.class", d.Class), attribute.String("error.type", d.Class))
	} else if d.Outcome == decision.OutcomeCanceled {
		attrs = append(attrs, attribute.String("error.type", "canceled"))
	}
	ctx, root := t.tr.Start(ctx, op+" "+d.Route, trace.WithSpanKind(trace.SpanKindServer),
		trace.WithTimestamp(start), trace.WithAttributes(attrs...))
	if d.Outcome == decision.OutcomeError {
		root.SetStatus(codes.Error, "no attempt answered: "+d.Class)
	}
	for _, a := range d.Attempts {
		t.attempt(ctx, op, start, a)
	}
	for _, s := range d.Skipped {
		root.AddEvent("detour.skipped", trace.WithTimestamp(end), trace.WithAttributes(
			attribute.String("detour.target", s.Target), attribute.String("detour.provider", s.Provider),
			attribute.String("detour.reason", s.Reason)))
	}
	for _, tr := range d.Transitions {
		attrs := []attribute.KeyValue{attribute.String("detour.scope", tr.Scope), attribute.String("detour.name", tr.Name),
			attribute.String("detour.from", tr.From), attribute.String("detour.to", tr.To),
			attribute.String("detour.class", tr.Class)}
		if !tr.Until.IsZero() {
			attrs = append(attrs, attribute.String("detour.until", tr.Until.UTC().Format(time.RFC3339)))
		}
		if !tr.Since.IsZero() {
			attrs = append(attrs, attribute.String("detour.since", tr.Since.UTC().Format(time.RFC3339)))
		}
		root.AddEvent("detour.health_transition", trace.WithTimestamp(end), trace.WithAttributes(attrs...))
	}
	root.End(trace.WithTimestamp(end))
}

// attempt exports one attempt as a client span of the request's span.
func (t *Tracer) attempt(ctx context.Context, op string, reqStart time.Time, a decision.Attempt) {
	class := a.Class
	switch {
	case class != "":
	case a.Action == decision.ActionDone:
		class = "ok"
	default:
		class = "canceled"
	}
	start := reqStart.Add(ms(a.StartMS))
	attrs := []attribute.KeyValue{
		attribute.String("gen_ai.operation.name", op),
		attribute.String("gen_ai.request.model", a.Model),
		attribute.String("detour.target", a.Target),
		attribute.String("detour.provider", a.Provider),
		attribute.String("detour.class", class),
		attribute.String("detour.action", string(a.Action)),
		attribute.Bool("detour.billable", a.Billable),
		attribute.Bool("detour.counted", a.Counted),
	}
	attrs = append(attrs, t.providerName(a.Provider)...)
	if a.Evidence != "" {
		attrs = append(attrs, attribute.String("detour.evidence", a.Evidence))
	}
	if a.Status > 0 {
		attrs = append(attrs, attribute.Int("http.response.status_code", a.Status))
	}
	if a.TTFBMS > 0 {
		attrs = append(attrs, attribute.Float64("detour.ttfb_ms", a.TTFBMS))
	}
	if a.Probe {
		attrs = append(attrs, attribute.Bool("detour.probe", true))
	}
	if a.RetryAfterMS > 0 {
		attrs = append(attrs, attribute.Int64("detour.retry_after_ms", a.RetryAfterMS))
	}
	if class == "ok" {
		attrs = append(attrs, attribute.String("gen_ai.response.model", a.Model))
	} else {
		attrs = append(attrs, attribute.String("error.type", class))
	}
	attrs = append(attrs, usage(a.Usage)...)
	attrs = append(attrs, cost(a.CostUSD, a.CostUnknown || !a.CostInFull())...)
	_, sp := t.tr.Start(ctx, op+" "+a.Model, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithTimestamp(start), trace.WithAttributes(attrs...))
	if class != "ok" {
		sp.SetStatus(codes.Error, class+" ("+a.Evidence+")")
	}
	sp.End(trace.WithTimestamp(start.Add(ms(a.MS))))
}

// operation is the request's gen_ai.operation.name, in the GenAI
// conventions' well-known values: "embeddings" for the embeddings door,
// "text_completion" for the legacy Completions door, "chat" for the chat,
// Messages and Responses doors (a count_tokens call comes in by the
// Messages door).
func operation(d *decision.Decision) string {
	switch d.API {
	case "embeddings":
		return "embeddings"
	case "completions":
		return "text_completion"
	}
	return "chat"
}

// providerName is gen_ai.provider.name: the API the provider speaks, in the
// convention's well-known values.
func (t *Tracer) providerName(provider string) []attribute.KeyValue {
	if t.dialect == nil {
		return nil
	}
	var name string
	switch d := t.dialect(provider); d {
	case "":
		return nil
	case "gemini":
		name = "gcp.gemini"
	default:
		name = strings.ToLower(d)
	}
	return []attribute.KeyValue{attribute.String("gen_ai.provider.name", name)}
}

func usage(u *decision.Usage) []attribute.KeyValue {
	if u == nil {
		return nil
	}
	return []attribute.KeyValue{attribute.Int("gen_ai.usage.input_tokens", u.PromptTokens),
		attribute.Int("gen_ai.usage.output_tokens", u.CompletionTokens)}
}

// cost is detour.cost_usd, the record's cost at the target's price
// (operator review 50: traces carried tokens, not what they cost, which
// backends that sum spend per team read), and detour.cost_unknown when it
// is not known in full (a lower bound, or none); nothing at an unpriced
// target.
func cost(c *decision.USD, unknown bool) []attribute.KeyValue {
	var out []attribute.KeyValue
	if c.Known() {
		out = append(out, attribute.Float64("detour.cost_usd", float64(*c)))
	}
	if unknown && (c != nil) {
		out = append(out, attribute.Bool("detour.cost_unknown", true))
	}
	return out
}

func ms(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

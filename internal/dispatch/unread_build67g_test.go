package dispatch_test

import (
	"context"
	"math"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/dispatch"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Build 67g (review 67d): a whole answer's attempt of a limited key that
// was sent and ended billable with no answer read (Detour's timeout after
// the send, a gateway's 504) counts the most output its request allowed,
// at the target's price, marked output_ceiling; one never sent counts
// nothing; an unlimited key's counts its input alone, as before; a stream's
// is unchanged.
func TestUnreadWholeAnswerCountsItsCeiling(t *testing.T) {
	slow := upstreamtest.Step{Delay: 400 * time.Millisecond, Body: upstreamtest.ChatJSON("ma", "late")}
	gw := upstreamtest.Step{Status: 504, Body: `<html><body><h1>504 Gateway Time-out</h1></body></html>`}
	// A 200 whose body the upstream cut: it most likely failed, so its
	// input alone, not the ceiling (one flaky provider would spend every
	// tenant's budget).
	lost := upstreamtest.Step{Body: `{"id":"c1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"par`, Cut: true}
	closed := upstreamtest.New(upstreamtest.Steps(slow))
	closed.Close() // nothing listens: the request is never sent
	cases := []struct {
		name            string
		step            *upstreamtest.Step // nil: the closed server
		limited, stream bool
		extra, window   string
		wantBillable    bool
		wantOut         int // estimate's output tokens; -1: no estimate
		wantCeiling     bool
		partOnly        bool // what arrived counts (a few tokens), not the ceiling
	}{
		{name: "timeout after send, limited", step: &slow, limited: true, extra: `,"max_tokens":100000`, wantBillable: true, wantOut: 100000, wantCeiling: true},
		{name: "timeout, n choices", step: &slow, limited: true, extra: `,"max_completion_tokens":1000,"n":3`, wantBillable: true, wantOut: 3000, wantCeiling: true},
		{name: "timeout, no limit set, context_window", step: &slow, limited: true, window: ", context_window: 32000", wantBillable: true, wantOut: 32000, wantCeiling: true},
		{name: "timeout, no limit set anywhere", step: &slow, limited: true, wantBillable: true, wantOut: 128000, wantCeiling: true},
		{name: "gateway 504, limited", step: &gw, limited: true, extra: `,"max_tokens":2000`, wantBillable: true, wantOut: 2000, wantCeiling: true},
		{name: "connection lost after send, limited", step: &lost, limited: true, extra: `,"max_tokens":100000`, wantBillable: true, partOnly: true},
		{name: "not sent, limited", limited: true, extra: `,"max_tokens":100000`, wantOut: -1},
		{name: "timeout after send, unlimited", step: &slow, extra: `,"max_tokens":100000`, wantBillable: true, wantOut: 0},
		{name: "stream, limited", step: &slow, limited: true, stream: true, extra: `,"max_tokens":100000`, wantBillable: true, wantOut: 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			url := closed.URL
			if c.step != nil {
				u := upstreamtest.New(upstreamtest.Steps(*c.step))
				t.Cleanup(u.Close)
				url = u.URL
			}
			d := abDispatcher(t, `providers:
  - {name: pa, dialect: openai, base_url: "`+url+`/v1", api_key: sk-test, timeout: 150ms}
targets:
  - {name: a, model: ma, providers: [pa], price: {input: 1, output: 10}`+c.window+`}
routes:
  - {name: r, targets: [a], max_attempts: 1}
`)
			call := &dispatch.Call{Model: "r", ID: "id", Metered: true, Limited: c.limited,
				Body: []byte(`{"model":"r","messages":[{"role":"user","content":"hi"}]` + c.extra + `}`)}
			if c.stream {
				call.Stream, call.Out = true, &client{}
				call.Body = []byte(`{"model":"r","stream":true,"messages":[{"role":"user","content":"hi"}]` + c.extra + `}`)
			}
			res := d.Do(context.Background(), call)
			a := res.Decision.Attempts
			if len(a) != 1 {
				t.Fatalf("attempts %+v, want one", a)
			}
			if a[0].Billable != c.wantBillable {
				t.Errorf("billable %v, want %v (%s %s)", a[0].Billable, c.wantBillable, a[0].Class, a[0].Evidence)
			}
			e := a[0].Estimate
			if c.wantOut < 0 {
				if e != nil || a[0].BudgetUSD() != 0 {
					t.Errorf("estimate %+v, budget $%v: an attempt never sent spends nothing", e, a[0].BudgetUSD())
				}
				return
			}
			if e == nil {
				t.Fatalf("no estimate (class %s, evidence %s)", a[0].Class, a[0].Evidence)
			}
			if c.partOnly {
				if e.OutputCeiling || e.OutputTokens >= 1000 {
					t.Errorf("estimate %+v: a body the upstream cut counts what arrived, not the ceiling", e)
				}
				return
			}
			if e.OutputTokens != c.wantOut || e.OutputCeiling != c.wantCeiling {
				t.Errorf("estimate %+v, want %d output tokens, output_ceiling %v", e, c.wantOut, c.wantCeiling)
			}
			want := (float64(e.InputTokens)*1 + float64(c.wantOut)*10) / 1e6
			if got := a[0].BudgetUSD(); math.Abs(got-want) > 1e-9 || !a[0].CostUnknown {
				t.Errorf("budget $%v (cost_unknown %v), want $%v and the cost unknown", got, a[0].CostUnknown, want)
			}
		})
	}
}

// Review 67i: a limited key's whole answer is read on after its client
// leaves (attemptContext), so a timeout that then ends the read leaves it
// as unread as one whose client stayed: the ceiling counts. Before, the
// attempt was filed canceled at its input alone, and a key that closed
// each request just after sending it escaped the ceiling. The route's
// deadline after the send counts it too, as docs/behaviour.md says.
func TestReview67iUnreadAnswerCountsItsCeilingAfterTheClientLeft(t *testing.T) {
	slow := upstreamtest.Step{Delay: 600 * time.Millisecond, Body: upstreamtest.ChatJSON("ma", "late")}
	for _, c := range []struct {
		name, prov, route string
		leave             time.Duration // the client leaves this long after the request began
	}{
		{"client left, then the provider's timeout", "timeout: 300ms", "", 50 * time.Millisecond},
		{"client left, then the route's deadline", "timeout: 5s", ", deadline: 300ms", 50 * time.Millisecond},
		{"the route's deadline", "timeout: 5s", ", deadline: 300ms", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			u := upstreamtest.New(upstreamtest.Steps(slow))
			t.Cleanup(u.Close)
			d := abDispatcher(t, `providers:
  - {name: pa, dialect: openai, base_url: "`+u.URL+`/v1", api_key: sk-test, `+c.prov+`}
targets:
  - {name: a, model: ma, providers: [pa], price: {input: 1, output: 10}}
routes:
  - {name: r, targets: [a], max_attempts: 1`+c.route+`}
`)
			ctx := context.Background()
			if c.leave > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				defer cancel()
				time.AfterFunc(c.leave, cancel)
			}
			call := &dispatch.Call{Model: "r", ID: "id", Metered: true, Limited: true,
				Body: []byte(`{"model":"r","messages":[{"role":"user","content":"hi"}],"max_tokens":100000}`)}
			a := d.Do(ctx, call).Decision.Attempts
			if len(a) != 1 {
				t.Fatalf("attempts %+v, want one", a)
			}
			if e := a[0].Estimate; !a[0].Billable || e == nil || e.OutputTokens != 100000 || !e.OutputCeiling {
				t.Errorf("billable %v, estimate %+v (%s): want the request's max_tokens, 100000, marked output_ceiling", a[0].Billable, e, a[0].Evidence)
			}
		})
	}
}

// A chat request translated for Claude goes with the max_tokens the
// translation writes: the client's limit no more than the model's maximum
// (Sonnet 4.5: 64,000), or, where it set none, the model's own maximum. An
// answer Detour stopped waiting for counts that, not the client's 100,000
// or the 128,000 of a request with no limit (last look 67i: $1.92 counted
// for an answer Claude could not make past $0.96).
func TestUnreadClaudeAnswerCountsWhatTheTranslationSent(t *testing.T) {
	slow := upstreamtest.Step{Delay: 400 * time.Millisecond, Body: `{"id":"m","type":"message","role":"assistant","content":[{"type":"text","text":"late"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`}
	for _, c := range []struct {
		name, model, extra string
		want               int
	}{
		{"no limit, Sonnet 4.5", "claude-sonnet-4-5", ``, 64000},
		{"a limit past the model's", "claude-sonnet-4-5", `,"max_tokens":100000`, 64000},
		{"a limit within it", "claude-sonnet-4-5", `,"max_completion_tokens":1000`, 1000},
		{"no limit, Opus 4.1", "claude-opus-4-1", ``, 32000},
	} {
		t.Run(c.name, func(t *testing.T) {
			u := upstreamtest.New(upstreamtest.Steps(slow))
			t.Cleanup(u.Close)
			d := abDispatcher(t, `providers:
  - {name: pa, dialect: anthropic, base_url: "`+u.URL+`", api_key: sk-test, timeout: 150ms}
targets:
  - {name: a, model: `+c.model+`, providers: [pa], price: {input: 1, output: 10}}
routes:
  - {name: r, targets: [a], max_attempts: 1}
`)
			call := &dispatch.Call{Model: "r", ID: "id", Metered: true, Limited: true,
				Body: []byte(`{"model":"r","messages":[{"role":"user","content":"hi"}]` + c.extra + `}`)}
			res := d.Do(context.Background(), call)
			a := res.Decision.Attempts
			if len(a) != 1 || a[0].Estimate == nil {
				t.Fatalf("attempts %+v, want one with an estimate", a)
			}
			if e := a[0].Estimate; e.OutputTokens != c.want || !e.OutputCeiling {
				t.Errorf("estimate %+v, want %d output tokens (what the translation sent), output_ceiling", e, c.want)
			}
		})
	}
}

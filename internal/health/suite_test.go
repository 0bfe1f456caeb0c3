package health

import (
	"context"
	"encoding/json"
	"github.com/detour-llm/detour/internal/testutil"
	"reflect"
	"sync"
	"testing"
	"time"
)

// clock is an injected clock tests advance by hand.
type clock = testutil.Clock

func newClock() *clock { return testutil.NewClock(time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)) }

var (
	epA  = Key{"claude", "anthropic"}
	epB  = Key{"haiku", "anthropic"}
	epC  = Key{"gpt", "openai"}
	all3 = []Key{epA, epB, epC}
)

// storeFactory returns a fresh, empty store whose own clock (if any) is now.
type storeFactory func(t *testing.T, now func() time.Time) Store

// runSuite runs the state-machine tests against one kind of store.
func runSuite(t *testing.T, newStore storeFactory) {
	tests := []struct {
		name string
		fn   func(t *testing.T, tr *Tracker, c *clock)
	}{
		{"threshold", testThreshold},
		{"success resets count", testSuccessResets},
		{"whole success leaves stream failures", testWholeLeavesStreamFailures},
		{"immediate endpoint cool", testImmediateCool},
		{"account scope covers provider", testAccountScope},
		{"never shorten", testNeverShorten},
		{"upstream hint capped", testHintCapped},
		{"probe lease single winner", testProbeLease},
		{"probe success closes", testProbeSuccess},
		{"probe failure doubles up to cap", testProbeDoubles},
		{"base longer than max kept", testLongBase},
		{"inconclusive failure while probing", testInconclusive},
		{"account probe", testAccountProbe},
		{"held probe shows in view", testProbeHeldView},
		{"inconclusive probe releases its slot", testProbeRelease},
		{"success begun while cooling closes", testServedWhileCooling},
		{"hinted probe failure does not double", testHintedProbeNoDouble},
		{"success before an extending failure closes nothing", testServedAfterExtension},
		{"latency ewma", testLatency},
		{"transitions edge triggered", testEdgeTriggered},
		{"snapshot json", testSnapshotJSON},
		{"down since the first cooldown", testDownSince},
		{"a report sees a cooldown it did not start", testReportSeen},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := newClock()
			s := Settings{FailureThreshold: 3, Cooldown: 10 * time.Second, MaxCooldown: 35 * time.Second, ProbeLease: 30 * time.Second}
			tc.fn(t, New(newStore(t, c.Now), s, all3, c.Now), c)
		})
	}
	t.Run("concurrent updates are atomic", func(t *testing.T) {
		st := newStore(t, time.Now)
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() {
				for range 10 {
					if err := st.Update(context.Background(), "ep:x/y", func(r *Record) { r.Failures++ }, nil); err != nil {
						t.Error(err)
					}
				}
			})
		}
		wg.Wait()
		recs, err := st.Load(context.Background(), []string{"ep:x/y", "missing"})
		if err != nil || len(recs) != 2 || recs[0].Failures != 200 || recs[1] != (Record{}) {
			t.Fatalf("got %+v, %v; want 200 failures and a zero record", recs, err)
		}
	})
}

var ctx = context.Background()

func view1(tr *Tracker, k Key) Status { return tr.View(ctx, []Key{k})[0] }

func fail(class string) Report { return Report{Class: class, Count: true} }

func wantPhase(t *testing.T, tr *Tracker, k Key, p Phase) Status {
	t.Helper()
	st := view1(tr, k)
	if st.Phase != p {
		t.Fatalf("%v: phase %v, want %v (%+v)", k, st.Phase, p, st)
	}
	return st
}

func wantTr(t *testing.T, got []Transition, want ...Transition) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	for i := range got { // compare instants, not locations
		if i < len(want) && got[i].Until.Equal(want[i].Until) {
			got[i].Until = want[i].Until
		}
		if i < len(want) && got[i].Since.Equal(want[i].Since) {
			got[i].Since = want[i].Since
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("transitions\n got %+v\nwant %+v", got, want)
	}
}

func testThreshold(t *testing.T, tr *Tracker, c *clock) {
	for i := 1; i <= 2; i++ {
		wantTr(t, tr.Report(ctx, epA, fail("server_error")))
		if st := wantPhase(t, tr, epA, Healthy); st.Failures != i || st.LastClass != "server_error" {
			t.Fatalf("after %d failures: %+v", i, st)
		}
	}
	until := c.Now().Add(10 * time.Second)
	wantTr(t, tr.Report(ctx, epA, fail("timeout")),
		Transition{Scope: ScopeEndpoint, Name: "claude/anthropic", From: Healthy, To: Cooling, Class: "timeout", Until: until})
	if st := wantPhase(t, tr, epA, Cooling); !st.Until.Equal(until) || st.Failures != 3 {
		t.Fatalf("%+v", st)
	}
	wantPhase(t, tr, epB, Healthy)
	c.Advance(10 * time.Second)
	wantPhase(t, tr, epA, Probing)
}

func testSuccessResets(t *testing.T, tr *Tracker, c *clock) {
	tr.Report(ctx, epA, fail("server_error"))
	tr.Report(ctx, epA, fail("server_error"))
	tr.Report(ctx, epA, Report{OK: true})
	if st := wantPhase(t, tr, epA, Healthy); st.Failures != 0 || st.LastClass != "server_error" {
		t.Fatalf("success should reset the count and keep last_class: %+v", st)
	}
	tr.Report(ctx, epA, fail("server_error"))
	tr.Report(ctx, epA, fail("server_error"))
	wantPhase(t, tr, epA, Healthy)
	// Failures that do not count never cool.
	for range 10 {
		tr.Report(ctx, epA, Report{Class: "bad_request"})
	}
	if st := wantPhase(t, tr, epA, Healthy); st.Failures != 2 || st.LastClass != "bad_request" {
		t.Fatalf("%+v", st)
	}
}

func testImmediateCool(t *testing.T, tr *Tracker, c *clock) {
	until := c.Now().Add(24 * time.Hour)
	wantTr(t, tr.Report(ctx, epA, Report{Class: "unavailable", Count: true, Cool: ScopeEndpoint, CoolFor: 24 * time.Hour}),
		Transition{Scope: ScopeEndpoint, Name: "claude/anthropic", From: Healthy, To: Cooling, Class: "unavailable", Until: until})
	if st := wantPhase(t, tr, epA, Cooling); !st.Until.Equal(until) {
		t.Fatalf("until %v, want %v", st.Until, until)
	}
	wantPhase(t, tr, epB, Healthy) // same provider, other endpoint: untouched
	// A rate limit cools for Retry-After without counting.
	tr.Report(ctx, epC, Report{Class: "rate_limited", Cool: ScopeEndpoint, CoolFor: 7 * time.Second})
	if st := wantPhase(t, tr, epC, Cooling); st.Failures != 0 || !st.Until.Equal(c.Now().Add(7*time.Second)) {
		t.Fatalf("%+v", st)
	}
}

// An upstream's hint (Retry-After) cools for at most MaxCooldown (35s
// here); the same duration from configuration is not capped.
func testHintCapped(t *testing.T, tr *Tracker, c *clock) {
	tr.Report(ctx, epA, Report{Class: "rate_limited", Cool: ScopeEndpoint, CoolFor: 30 * time.Minute, Hinted: true})
	if st := wantPhase(t, tr, epA, Cooling); !st.Until.Equal(c.Now().Add(35 * time.Second)) {
		t.Fatalf("hinted: until %v, want now+35s", st.Until)
	}
	tr.Report(ctx, epC, Report{Class: "rate_limited", Cool: ScopeEndpoint, CoolFor: 20 * time.Second, Hinted: true})
	if st := wantPhase(t, tr, epC, Cooling); !st.Until.Equal(c.Now().Add(20 * time.Second)) {
		t.Fatalf("hinted within the cap: until %v, want now+20s", st.Until)
	}
	tr.Report(ctx, epB, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: 30 * time.Minute})
	if st := wantPhase(t, tr, epB, Cooling); !st.Until.Equal(c.Now().Add(30 * time.Minute)) {
		t.Fatalf("configured: until %v, want now+30m", st.Until)
	}
}

func testAccountScope(t *testing.T, tr *Tracker, c *clock) {
	until := c.Now().Add(time.Hour)
	got := tr.Report(ctx, epA, Report{Class: "quota", Count: true, Cool: ScopeAccount, CoolFor: time.Hour})
	wantTr(t, got, Transition{Scope: ScopeAccount, Name: "anthropic", From: Healthy, To: Cooling, Class: "quota", Until: until})
	for _, k := range []Key{epA, epB} {
		if st := wantPhase(t, tr, k, Cooling); !st.Until.Equal(until) || st.LastClass != "quota" {
			t.Fatalf("%v: %+v", k, st)
		}
	}
	wantPhase(t, tr, epC, Healthy)
	// An endpoint cooldown ending later wins the effective Until.
	later := c.Now().Add(2 * time.Hour)
	tr.Report(ctx, epB, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: 2 * time.Hour})
	if st := wantPhase(t, tr, epB, Cooling); !st.Until.Equal(later) {
		t.Fatalf("until %v, want %v", st.Until, later)
	}
	_, accts := tr.Snapshot(ctx)
	if accts[0].Name != "anthropic" || accts[0].State != "cooling" || accts[1].State != "healthy" {
		t.Fatalf("accounts %+v", accts)
	}
	c.Advance(time.Hour)
	wantPhase(t, tr, epA, Probing)
	wantPhase(t, tr, epB, Cooling)
}

func testNeverShorten(t *testing.T, tr *Tracker, c *clock) {
	until := c.Now().Add(time.Hour)
	tr.Report(ctx, epA, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: time.Hour})
	wantTr(t, tr.Report(ctx, epA, Report{Class: "rate_limited", Cool: ScopeEndpoint, CoolFor: 2 * time.Second}))
	for range 5 {
		wantTr(t, tr.Report(ctx, epA, fail("server_error")))
	}
	if st := wantPhase(t, tr, epA, Cooling); !st.Until.Equal(until) {
		t.Fatalf("until %v, want %v (never shortened)", st.Until, until)
	}
	// The account too.
	tr.Report(ctx, epC, Report{Class: "auth", Cool: ScopeAccount, CoolFor: time.Hour})
	tr.Report(ctx, epC, Report{Class: "quota", Cool: ScopeAccount, CoolFor: time.Minute})
	if st := wantPhase(t, tr, epC, Cooling); !st.Until.Equal(until) {
		t.Fatalf("account until %v, want %v", st.Until, until)
	}
	// A longer one does extend.
	tr.Report(ctx, epA, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: 3 * time.Hour})
	if st := wantPhase(t, tr, epA, Cooling); !st.Until.Equal(c.Now().Add(3 * time.Hour)) {
		t.Fatalf("until %v", st.Until)
	}
}

func testLatency(t *testing.T, tr *Tracker, c *clock) {
	if st := view1(tr, epA); st.Measured {
		t.Fatal("unmeasured endpoint reads measured")
	}
	tr.Report(ctx, epA, Report{OK: true}) // no sample
	if st := view1(tr, epA); st.Measured {
		t.Fatal("a success without latency is not a sample")
	}
	tr.Report(ctx, epA, Report{OK: true, Latency: 100 * time.Millisecond})
	tr.Report(ctx, epA, Report{OK: true, Latency: 200 * time.Millisecond})
	st := view1(tr, epA)
	if !st.Measured || st.Latency != 130*time.Millisecond {
		t.Fatalf("ewma %v, want 130ms", st.Latency)
	}
	tr.Report(ctx, epA, fail("timeout")) // failures do not move latency
	if st := view1(tr, epA); st.Latency != 130*time.Millisecond {
		t.Fatalf("ewma %v after failure", st.Latency)
	}
}

func testEdgeTriggered(t *testing.T, tr *Tracker, c *clock) {
	coolA(tr, c)
	c.Advance(time.Hour)
	// Nobody probed; a failure observes cooling→probing, then probing→cooling.
	got := tr.Report(ctx, epA, fail("timeout"))
	wantTr(t, got,
		Transition{Scope: ScopeEndpoint, Name: "claude/anthropic", From: Cooling, To: Probing, Class: "server_error"},
		Transition{Scope: ScopeEndpoint, Name: "claude/anthropic", From: Probing, To: Cooling, Class: "timeout", Until: c.Now().Add(20 * time.Second)})
	for range 3 {
		tr.View(ctx, all3)
		wantTr(t, tr.Report(ctx, epA, fail("timeout")))
	}
	c.Advance(20 * time.Second)
	ok, got := tr.TryProbe(ctx, epA)
	if !ok || len(got) != 1 {
		t.Fatalf("%v %v", ok, got)
	}
	wantTr(t, tr.Report(ctx, epA, Report{OK: true}),
		// It came back from the last cooldown's class, out since coolA's
		// failures: the failed probe an hour later kept the start.
		Transition{Scope: ScopeEndpoint, Name: "claude/anthropic", From: Probing, To: Healthy, Class: "timeout", Since: c.Now().Add(-(10*time.Second + time.Hour + 20*time.Second))})
	wantTr(t, tr.Report(ctx, epA, Report{OK: true}))
}

func testSnapshotJSON(t *testing.T, tr *Tracker, c *clock) {
	tr.Report(ctx, epA, Report{OK: true, Latency: 250 * time.Millisecond})
	tr.Report(ctx, epC, Report{Class: "quota", Count: true, Cool: ScopeAccount, CoolFor: time.Hour})
	eps, accts := tr.Snapshot(ctx)
	b, err := json.Marshal(map[string]any{"endpoints": eps, "accounts": accts})
	if err != nil {
		t.Fatal(err)
	}
	until := c.Now().Add(time.Hour).Format(time.RFC3339)
	since := c.Now().Format(time.RFC3339)
	want := `{"accounts":[` +
		`{"name":"anthropic","state":"healthy","last_class":"","cooldown_until":null,"cooling_class":"","cooling_message":"","down_since":null},` +
		`{"name":"openai","state":"cooling","last_class":"quota","cooldown_until":"` + until + `","cooling_class":"quota","cooling_message":"","down_since":"` + since + `"}],` +
		`"endpoints":[` +
		`{"target":"claude","provider":"anthropic","state":"healthy","failures":0,"last_class":"","cooldown_until":null,"latency_ms":250,"cooling_class":"","cooling_message":"","down_since":null},` +
		`{"target":"haiku","provider":"anthropic","state":"healthy","failures":0,"last_class":"","cooldown_until":null,"latency_ms":null,"cooling_class":"","cooling_message":"","down_since":null},` +
		`{"target":"gpt","provider":"openai","state":"cooling","failures":1,"last_class":"quota","cooldown_until":"` + until + `","latency_ms":null,"cooling_class":"quota","cooling_message":"","down_since":"` + since + `"}]}`
	if got := normalizeTimes(t, b); got != want {
		t.Fatalf("snapshot\n got %s\nwant %s", got, want)
	}
}

// normalizeTimes re-encodes so times read in UTC whatever store decoded them.
func normalizeTimes(t *testing.T, b []byte) string {
	var v struct {
		Endpoints []EndpointHealth `json:"endpoints"`
		Accounts  []AccountHealth  `json:"accounts"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	for i := range v.Endpoints {
		if u := v.Endpoints[i].CooldownUntil; u != nil {
			*u = u.UTC()
		}
	}
	for i := range v.Accounts {
		if u := v.Accounts[i].CooldownUntil; u != nil {
			*u = u.UTC()
		}
	}
	out, _ := json.Marshal(map[string]any{"endpoints": v.Endpoints, "accounts": v.Accounts})
	return string(out)
}

// An endpoint whose streams fail while its whole answers work still cools
// (docs/behaviour.md, "Health"): a whole answer's success neither resets
// the streams' failures nor closes the cooldown they began; a stream's
// success, or a probe's, does (operator review 50b: under mixed traffic
// every stream failed and /v1/health said healthy).
func testWholeLeavesStreamFailures(t *testing.T, tr *Tracker, c *clock) {
	streamFail := Report{Class: "server_error", Count: true, Stream: true}
	whole := Report{OK: true, Whole: true, Latency: time.Second, Took: time.Second}
	for i := 1; i <= 2; i++ {
		tr.Report(ctx, epA, streamFail)
		tr.Report(ctx, epA, whole)
		if st := wantPhase(t, tr, epA, Healthy); st.Failures != i {
			t.Fatalf("after %d stream failures, each followed by a whole answer: %+v", i, st)
		}
	}
	tr.Report(ctx, epA, streamFail) // the third: cools
	wantPhase(t, tr, epA, Cooling)
	c.Advance(time.Second)
	tr.Report(ctx, epA, whole) // begun after the cooldown: still proves nothing of streams
	wantPhase(t, tr, epA, Cooling)
	tr.Report(ctx, epA, Report{OK: true, Latency: time.Second, Took: time.Millisecond}) // a stream served
	if st := wantPhase(t, tr, epA, Healthy); st.Failures != 0 {
		t.Fatalf("a stream's success: %+v", st)
	}
	// Whole answers' own failures are reset by a whole answer, as before.
	tr.Report(ctx, epA, fail("server_error"))
	tr.Report(ctx, epA, whole)
	if st := wantPhase(t, tr, epA, Healthy); st.Failures != 0 {
		t.Fatalf("a whole failure, then a whole success: %+v", st)
	}
}

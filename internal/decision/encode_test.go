package decision

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"
)

// pieces of strings and numbers a record may hold, the awkward ones
// included: every escape encoding/json writes, invalid UTF-8, line
// separators, HTML characters.
var (
	strPieces = []string{"", "gpt", "claude-sonnet-4-5", "phrase:credit balance is too low", `"q"`, `back\slash`,
		"<b>&amp;</b>", "\n\r\t\b\f", "\x00\x01\x1f\x7f", "é", "日本", "\u2028\u2029", "\xff", "\xe2\x82", "🙂", "key:1a2b3c4d"}
	floatPieces = []float64{0, 1, -1, 0.5, 12.345, 1e-7, 1e-6, 9.99e-7, 1e20, 1e21, 123456789.125, -2.5e-9, math.MaxFloat64,
		math.SmallestNonzeroFloat64, 0.001, 1.5e300}
)

func randString(r *rand.Rand) string {
	s := ""
	for range r.IntN(3) {
		s += strPieces[r.IntN(len(strPieces))]
	}
	return s
}

func randFloat(r *rand.Rand) float64 {
	if r.IntN(3) == 0 {
		return r.NormFloat64() * math.Pow(10, float64(r.IntN(40)-20))
	}
	return floatPieces[r.IntN(len(floatPieces))]
}

func randUSD(r *rand.Rand) *USD {
	switch r.IntN(4) {
	case 0:
		return nil
	case 1:
		return Unknown()
	}
	u := USD(randFloat(r))
	return &u
}

func randUsage(r *rand.Rand) *Usage {
	if r.IntN(2) == 0 {
		return nil
	}
	return &Usage{PromptTokens: r.IntN(1e6) - 10, CompletionTokens: r.IntN(1e4), TotalTokens: r.IntN(1e6), CachedTokens: r.IntN(3) * r.IntN(1e5),
		CacheWriteTokens: r.IntN(3) * r.IntN(1e5), CacheWrite1hTokens: r.IntN(3) * r.IntN(1e5), ReasoningTokens: r.IntN(3) * r.IntN(1e4),
		AudioInputTokens: r.IntN(3) * r.IntN(1e5), AudioOutputTokens: r.IntN(3) * r.IntN(1e4), WebSearchRequests: r.IntN(3) * r.IntN(20), WebFetchRequests: r.IntN(3) * r.IntN(20), Incomplete: r.IntN(3) == 0, Capped: r.IntN(3) == 0}
}

func randContinuation(r *rand.Rand) *Continuation {
	if r.IntN(2) == 0 {
		return nil
	}
	return &Continuation{N: r.IntN(4), Mode: randString(r), OffsetChars: r.IntN(3) * r.IntN(1e5), CutClass: randString(r)}
}

func randEstimate(r *rand.Rand) *Estimate {
	if r.IntN(2) == 0 {
		return nil
	}
	e := &Estimate{InputTokens: r.IntN(1e6), OutputTokens: r.IntN(3) * r.IntN(1e4), OutputCeiling: r.IntN(2) == 0}
	if u := randUSD(r); u != nil {
		e.USD = *u
	}
	return e
}

func randBatches(r *rand.Rand) *Batches {
	if r.IntN(2) == 0 {
		return nil
	}
	return &Batches{Of: r.IntN(30), Reused: r.IntN(3) * r.IntN(30), Answered: r.IntN(30)}
}

func randDecision(r *rand.Rand) *Decision {
	zones := []*time.Location{time.UTC, time.FixedZone("x", 5*3600+30*60), time.FixedZone("y", -8*3600), time.FixedZone("s", 3600+17)}
	d := &Decision{ID: randString(r), Time: time.Unix(r.Int64N(1<<34), r.Int64N(1e9)*int64(r.IntN(2))).In(zones[r.IntN(len(zones))]),
		Route: randString(r), Strategy: randString(r), API: randString(r), Stream: r.IntN(2) == 0, Outcome: randString(r),
		Status: r.IntN(600) - 1, Class: randString(r), MS: randFloat(r), Client: randString(r), ClientKey: r.IntN(3), Usage: randUsage(r),
		CostUSD: randUSD(r), CostUnknown: r.IntN(2) == 0}
	if n := r.IntN(4); n > 0 || r.IntN(2) == 0 {
		d.Attempts = make([]Attempt, n)
	}
	for i := range d.Attempts {
		d.Attempts[i] = Attempt{Target: randString(r), Provider: randString(r), Model: randString(r), Status: r.IntN(600), UpstreamRequestID: randString(r),
			Class: randString(r), Evidence: randString(r), Action: Action(randString(r)), Counted: r.IntN(2) == 0,
			Billable: r.IntN(2) == 0, Probe: r.IntN(2) == 0, MS: randFloat(r), TTFBMS: randFloat(r), FirstTokenMS: randFloat(r),
			RetryAfterMS: int64(r.IntN(3) * r.IntN(1e6)), Malformed: r.IntN(3) * r.IntN(10), Usage: randUsage(r),
			CostUSD: randUSD(r), CostUnknown: r.IntN(2) == 0, PriceTier: randString(r), StartMS: randFloat(r), Message: randString(r),
			Continuation: randContinuation(r), Batches: randBatches(r), Estimate: randEstimate(r), ResentWithout: randString(r)}
	}
	if n := r.IntN(3); n > 0 || r.IntN(2) == 0 {
		d.Skipped = make([]Skip, n)
	}
	for i := range d.Skipped {
		d.Skipped[i] = Skip{Target: randString(r), Provider: randString(r), Reason: randString(r)}
	}
	if n := r.IntN(3); n > 0 || r.IntN(2) == 0 {
		d.Transitions = make([]Transition, n)
	}
	for i := range d.Transitions {
		d.Transitions[i] = Transition{Scope: randString(r), Name: randString(r), From: randString(r), To: randString(r), Class: randString(r)}
		if r.IntN(2) == 0 {
			d.Transitions[i].Until = time.Unix(r.Int64N(1<<34), r.Int64N(1e9)).In(time.FixedZone("", (r.IntN(49)-24)*1800))
		}
		if r.IntN(2) == 0 {
			d.Transitions[i].Since = time.Unix(r.Int64N(1<<34), r.Int64N(1e9)).In(time.FixedZone("", (r.IntN(49)-24)*1800))
		}
	}
	return d
}

func checkAppendJSON(t *testing.T, d *Decision) {
	t.Helper()
	want, err := json.Marshal(d)
	got, ok := appendJSON(nil, d)
	if !ok {
		return // json.Marshal is used instead
	}
	if err != nil {
		t.Fatalf("appendJSON wrote a record json.Marshal refuses (%v): %s", err, got)
	}
	if string(got) != string(want) {
		t.Fatalf("appendJSON differs from json.Marshal:\n got %s\nwant %s", got, want)
	}
}

// TestAppendJSONIsMarshal: the decision log's bytes are json.Marshal's,
// whatever a record holds (docs/behaviour.md#decision-record).
func TestAppendJSONIsMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	set := map[string]bool{}
	for range 5000 {
		d := randDecision(r)
		checkAppendJSON(t, d)
		markSet(reflect.ValueOf(d), set)
	}
	// The records compared must fill every field the record has: a field
	// the generator never sets is a field the encoder is never held to.
	for _, typ := range []reflect.Type{reflect.TypeFor[Decision](), reflect.TypeFor[Attempt](), reflect.TypeFor[Usage](),
		reflect.TypeFor[Continuation](), reflect.TypeFor[Batches](), reflect.TypeFor[Estimate](), reflect.TypeFor[Skip](), reflect.TypeFor[Transition]()} {
		for f := range typ.Fields() {
			if tag := f.Tag.Get("json"); tag != "-" && !set[typ.Name()+"."+f.Name] {
				t.Errorf("no random record sets %s.%s: the encoder is not compared on it", typ.Name(), f.Name)
			}
		}
	}
	checkAppendJSON(t, &Decision{})
	// What it leaves to json.Marshal.
	for _, d := range []*Decision{{MS: math.NaN()}, {Time: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)},
		{Time: time.Date(2026, 1, 1, 0, 0, 0, 0, time.FixedZone("z", 24*3600))}, {Attempts: []Attempt{{MS: math.Inf(1)}}}} {
		if _, ok := appendJSON(nil, d); ok {
			t.Errorf("appendJSON took %+v", d)
		}
	}
}

func FuzzAppendJSON(f *testing.F) {
	f.Add("gpt", "<&>\u2028", 1.5, uint64(1))
	f.Fuzz(func(t *testing.T, s1, s2 string, x float64, seed uint64) {
		d := randDecision(rand.New(rand.NewPCG(seed, 7)))
		d.Route, d.Client, d.MS = s1, s2, x
		if len(d.Attempts) > 0 {
			d.Attempts[0].Message, d.Attempts[0].StartMS = s2+s1, x/3
		}
		checkAppendJSON(t, d)
	})
}

func BenchmarkAppendJSON(b *testing.B) {
	d := randDecision(rand.New(rand.NewPCG(3, 4)))
	b.Run("appendJSON", func(b *testing.B) {
		var buf []byte
		for b.Loop() {
			buf, _ = appendJSON(buf[:0], d)
		}
	})
	b.Run("json.Marshal", func(b *testing.B) {
		for b.Loop() {
			_, _ = json.Marshal(d)
		}
	})
}

// A record's durations (Millis: whole microseconds over 1000) take
// appendFloat's fast path; what it writes is json.Marshal's, for every
// size up to the path's bound and past it, and for the doubles next to
// them (which take the slow path).
func TestAppendFloatMillisIsMarshal(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	check := func(f float64) {
		t.Helper()
		want, err := json.Marshal(f)
		if err != nil {
			return
		}
		if got := appendFloat(nil, f); string(got) != string(want) {
			t.Fatalf("appendFloat(%v) = %s, json.Marshal %s", f, got, want)
		}
	}
	for k := int64(-2000); k <= 200000; k++ {
		check(float64(k) / 1000)
	}
	for range 200000 {
		k := r.Int64N(2e15) - 1e15
		if r.IntN(2) == 0 {
			k = r.Int64N(1e9)
		}
		f := float64(k) / 1000
		check(f)
		check(math.Nextafter(f, math.Inf(1)))
		check(math.Nextafter(f, math.Inf(-1)))
		check(Millis(time.Duration(r.Int64N(1 << 50))))
	}
	check(math.Copysign(0, -1))
}

// BenchmarkAppendJSONTypical: a one-attempt success as Dispatcher.Run
// records it (its durations from Millis).
func BenchmarkAppendJSONTypical(b *testing.B) {
	d := &Decision{ID: NewID(), Time: time.Date(2026, 12, 1, 9, 0, 0, 123456789, time.UTC), Route: "gpt", Strategy: "ordered",
		API: "chat", Outcome: OutcomeOK, Status: 200, MS: Millis(1234567 * time.Nanosecond), Attempts: []Attempt{{
			Target: "gpt", Provider: "openai", Model: "gpt-4o-mini", Status: 200, Action: ActionDone, Billable: true,
			MS: Millis(1187321 * time.Nanosecond), TTFBMS: Millis(391002 * time.Nanosecond), StartMS: Millis(21000 * time.Nanosecond),
			Usage: &Usage{PromptTokens: 5, CompletionTokens: 2, TotalTokens: 7}}}, Transitions: []Transition{}}
	var buf []byte
	for b.Loop() {
		buf, _ = appendJSON(buf[:0], d)
	}
}

// markSet records, as "Type.Field", every struct field that is not its
// zero value somewhere in v.
func markSet(v reflect.Value, set map[string]bool) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			markSet(v.Elem(), set)
		}
	case reflect.Slice:
		for i := range v.Len() {
			markSet(v.Index(i), set)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if !v.Field(i).IsZero() {
				set[v.Type().Name()+"."+v.Type().Field(i).Name] = true
			}
			markSet(v.Field(i), set)
		}
	}
}

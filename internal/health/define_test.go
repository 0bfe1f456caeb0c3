package health

import (
	"strings"
	"testing"
	"time"
)

// Define (review 33d): a record about another definition of the same name
// reads as empty and is overwritten; one written before definitions (no
// Def) is honoured, so a rolling upgrade keeps what the fleet learned.
func TestDefinedTrackersDoNotShareOtherDefinitionsVerdicts(t *testing.T) {
	store := NewMemory()
	c := newClock()
	oldDef, newDef := Digest("endpoint", "model-a"), Digest("endpoint", "model-a2")
	old := New(store, Settings{}, all3, c.Now)
	old.Define(map[Key]string{epA: oldDef}, map[string]string{"anthropic": Digest("account", "key-1")})
	next := New(store, Settings{}, all3, c.Now)
	next.Define(map[Key]string{epA: newDef}, map[string]string{"anthropic": Digest("account", "key-2")})

	old.Report(ctx, epA, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: 24 * time.Hour})
	old.Report(ctx, epB, Report{Class: "auth", Cool: ScopeAccount, CoolFor: time.Hour})
	if st := view1(old, epA); st.Phase != Cooling {
		t.Fatalf("the writer does not see its own cooldown: %+v", st)
	}
	for _, k := range []Key{epA, epB} {
		if st := view1(next, k); st.Phase != Healthy {
			t.Errorf("%v: another definition's verdict reads %s (%s)", k, st.Phase, st.LastClass)
		}
		if ok, _ := next.TryProbe(ctx, k); !ok {
			t.Errorf("%v: no probe for another definition's cooldown", k)
		}
	}
	if _, accts := next.Snapshot(ctx); accts[0].State != "healthy" {
		t.Errorf("/v1/health shows the other key's account: %+v", accts[0])
	}
	// The next write is the new definition's; the old one reads it as empty.
	next.Report(ctx, epA, fail("server_error"))
	if r := store.get(namesOf(epA).ep); r.Def != newDef || r.LastClass != "server_error" || r.LastCooldown != 0 {
		t.Errorf("after the new definition's report the record is %+v", r)
	}
	if st := view1(old, epA); st.Failures != 0 || st.LastClass == "server_error" {
		t.Errorf("the old definition reads the new one's record: %+v", st)
	}
}

// The new definition's success leaves the old one's cooldown as it is: an
// old replica still asking for the retired model keeps reading its own
// verdict, and no transition is reported to the new one (operator review
// 51b: every success of the new replicas sent the old ones back to the
// retired model).
func TestSuccessLeavesAnotherDefinitionsCooldown(t *testing.T) {
	store := NewMemory()
	c := newClock()
	old := New(store, Settings{}, all3, c.Now)
	old.Define(map[Key]string{epA: Digest("endpoint", "model-a")}, nil)
	next := New(store, Settings{}, all3, c.Now)
	next.Define(map[Key]string{epA: Digest("endpoint", "model-a2")}, nil)
	old.Report(ctx, epA, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: 24 * time.Hour})
	if trs := next.Report(ctx, epA, Report{OK: true, Latency: time.Millisecond}); len(trs) != 0 {
		t.Errorf("the new definition's success reported %+v", trs)
	}
	if st := view1(old, epA); st.Phase != Cooling || st.LastClass != "unavailable" {
		t.Errorf("after the new definition's success the old one reads %+v", st)
	}
	if st := view1(next, epA); st.Phase != Healthy {
		t.Errorf("the new definition reads %+v", st)
	}
	// Its failure is its own verdict, and takes the record.
	next.Report(ctx, epA, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: time.Hour})
	if st := view1(next, epA); st.Phase != Cooling {
		t.Errorf("the new definition's own failure reads %+v", st)
	}
}

func TestRecordWithoutDefinitionIsHonoured(t *testing.T) {
	store := NewMemory()
	c := newClock()
	legacy := New(store, Settings{}, all3, c.Now) // a replica of a version without definitions
	legacy.Report(ctx, epA, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: time.Hour})
	next := New(store, Settings{}, all3, c.Now)
	next.Define(map[Key]string{epA: Digest("endpoint", "model-a")}, nil)
	if st := view1(next, epA); st.Phase != Cooling {
		t.Errorf("a record written before definitions reads %s: the fleet forgot what it learned across the upgrade", st.Phase)
	}
}

func TestDigestHidesItsParts(t *testing.T) {
	const key = "sk-live-0123456789abcdef0123456789abcdef"
	d := Digest("account", "openai", key)
	if strings.Contains(d, key) || strings.Contains(d, key[len(key)-8:]) || len(d) != 16 {
		t.Errorf("digest %q", d)
	}
	if Digest("a", "bc") == Digest("ab", "c") {
		t.Error("parts are not delimited")
	}
}

// A write over another definition's record is that definition's first:
// no transition out of the other's phase is announced (review 35b: during a
// rolling deploy every write that flipped the record between the two
// definitions logged a cooling→healthy, and moved the state metrics).
func TestAnotherDefinitionsPhaseIsNoTransition(t *testing.T) {
	store := NewMemory()
	c := newClock()
	old := New(store, Settings{}, all3, c.Now)
	old.Define(map[Key]string{epA: Digest("endpoint", "model-a")}, map[string]string{"anthropic": Digest("account", "key-1")})
	next := New(store, Settings{}, all3, c.Now)
	next.Define(map[Key]string{epA: Digest("endpoint", "model-a2")}, map[string]string{"anthropic": Digest("account", "key-2")})
	old.Report(ctx, epA, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: 24 * time.Hour})
	old.Report(ctx, epA, Report{Class: "auth", Cool: ScopeAccount, CoolFor: time.Hour})
	if tr := next.Report(ctx, epA, Report{OK: true, Took: time.Second}); len(tr) != 0 {
		t.Errorf("the new definition's success announced %+v", tr)
	}
	if tr := next.Report(ctx, epA, Report{Class: "quota", Cool: ScopeAccount, CoolFor: time.Hour}); len(tr) != 1 || tr[0].From != Healthy {
		t.Errorf("the new definition's own cooldown announced %+v, want one transition from healthy", tr)
	}
}

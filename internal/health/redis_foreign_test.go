package health

import (
	"strings"
	"testing"
	"time"
)

// testRedisForeign: a health key that holds something Detour did not write
// (here a list, which GET refuses with WRONGTYPE) is read as a fresh
// record and overwritten by the next write; it is no outage, so sharing
// goes on for every other endpoint (review 33d: one such key stopped
// health sharing for the whole gateway). Run on every topology.
func testRedisForeign(t *testing.T, rc RedisConfig) {
	c := newClock()
	prefix := uniquePrefix("fx")
	var logA, logB logBuf
	sa := newStore(t, rc, prefix, c.Now, &logA)
	sb := newStore(t, rc, prefix, c.Now, &logB)
	a := New(sa, Settings{}, all3, c.Now)
	b := New(sb, Settings{}, all3, c.Now)

	a.Report(ctx, epA, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: time.Hour})
	ks := keys(t, rc, prefix+"*")
	if len(ks) != 1 {
		t.Fatalf("keys after one report: %v", ks)
	}
	rdb := newClient(t, rc)
	rdb.Del(ctx, ks[0])
	if err := rdb.LPush(ctx, ks[0], "not a record").Err(); err != nil {
		t.Fatal(err)
	}
	if st := view1(b, epA); st.Phase != Healthy {
		t.Errorf("a foreign record reads %+v, want a fresh one", st)
	}
	a.Report(ctx, epB, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: time.Hour})
	if st := view1(b, epB); st.Phase != Cooling {
		t.Errorf("another endpoint's cooldown is not shared beside a foreign key: %+v", st)
	}
	a.Report(ctx, epA, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: time.Hour})
	if st := view1(b, epA); st.Phase != Cooling {
		t.Errorf("the foreign key was not overwritten by the next report: %+v", st)
	}
	if typ, _ := rdb.Type(ctx, ks[0]).Result(); typ != "string" {
		t.Errorf("the key is a %s, want a record again", typ)
	}
	if !sa.Shared() || !sb.Shared() {
		t.Error("a store fell back to local state over a foreign key")
	}
	for _, l := range []*logBuf{&logA, &logB} {
		if strings.Contains(l.String(), "unreachable") {
			t.Errorf("a foreign key was taken for an outage:\n%s", l.String())
		}
	}
}

package decision

import (
	"encoding/json"
	"strings"
	"testing"
)

type keep struct{ got []*Decision }

func (k *keep) Write(d *Decision) { k.got = append(k.got, d) }

// Scrubbed passes the record's free text through the scrubber, copies a
// record it changes (the caller's stays as it was) and passes a clean one on
// untouched.
func TestScrubbedSink(t *testing.T) {
	k := &keep{}
	s := Scrubbed(k, func(s string) string { return strings.ReplaceAll(s, "SECRET", "[redacted]") })
	d := &Decision{ID: "a", Attempts: []Attempt{{Evidence: "status:401"}, {Evidence: "echo SECRET"}, {Class: "unknown", Message: "key SECRET rejected"}, {UpstreamRequestID: "req-SECRET"}},
		Skipped: []Skip{{Reason: "cooling until SECRET"}}, Transitions: []Transition{}}
	s.Write(d)
	clean := &Decision{ID: "b", Attempts: []Attempt{}, Transitions: []Transition{}}
	s.Write(clean)
	if len(k.got) != 2 {
		t.Fatalf("%d records", len(k.got))
	}
	b, _ := json.Marshal(k.got[0])
	if strings.Contains(string(b), "SECRET") || !strings.Contains(string(b), `"evidence":"echo [redacted]"`) ||
		!strings.Contains(string(b), `"message":"key [redacted] rejected"`) || !strings.Contains(string(b), `"upstream_request_id":"req-[redacted]"`) {
		t.Errorf("record: %s", b)
	}
	if d.Attempts[1].Evidence != "echo SECRET" || d.Skipped[0].Reason != "cooling until SECRET" {
		t.Errorf("the caller's record was changed: %+v", d)
	}
	if k.got[1] != clean {
		t.Errorf("a clean record was copied")
	}
	if b, _ := json.Marshal(k.got[1]); !strings.Contains(string(b), `"attempts":[]`) {
		t.Errorf("clean record: %s", b)
	}
}

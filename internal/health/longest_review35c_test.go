package health

import (
	"encoding/json"
	"testing"
	"time"
)

// TestALongestBoundKeepsARecordWithoutAnEndEncodable: the clock-free Longest bound
// shifts CoolUntil by the excess even when CoolUntil is zero (a record with
// last_cooldown but no cool_until, as anyone writing the store can leave):
// the zero time becomes a year before 1, which encoding/json refuses, so
// every write-back of that record fails ("redis refused a command") and it
// is never repaired in Redis.
func TestALongestBoundKeepsARecordWithoutAnEndEncodable(t *testing.T) {
	tr := New(NewMemory(), Settings{Longest: time.Minute}, nil, nil)
	r := Record{LastCooldown: time.Duration(1 << 62)}
	tr.sane(&r, time.Now())
	if !r.CoolUntil.IsZero() {
		t.Errorf("zero CoolUntil became %v", r.CoolUntil)
	}
	if _, err := json.Marshal(&r); err != nil {
		t.Errorf("bounded record does not encode: %v", err)
	}
}

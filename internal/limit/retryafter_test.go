package limit

import (
	"testing"
	"time"
)

// A wait is sent in whole seconds, rounded up: a client told 1 for 1.5s
// would come back before the limit lifts.
func TestRetryAfterSecondsRoundsUp(t *testing.T) {
	for d, want := range map[time.Duration]int64{
		time.Millisecond:                      1,
		time.Second:                           1,
		1500 * time.Millisecond:               2,
		20*time.Second - 3*time.Millisecond:   20,
		5 * time.Minute:                       300,
		24*time.Hour + time.Nanosecond:        86401,
		19*time.Second + 999*time.Millisecond: 20,
	} {
		if got := RetryAfterSeconds(d); got != want {
			t.Errorf("%v: Retry-After %d, want %d", d, got, want)
		}
	}
}

package policy

import (
	"testing"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/route"
)

// TestTableMatchesSpec pins every row of docs/behaviour.md#rules: whether it counts against health, whether it may move to the
// target's next endpoint, and its default next-target behaviour per strategy.
func TestTableMatchesSpec(t *testing.T) {
	type row struct {
		request               bool // the class is about the request (or cannot tell): it never cools or counts
		counted, nextEP       bool
		nextOrdered, nextFast bool
		page                  bool
		lasting, faulty       bool // docs/behaviour.md#api, "Whether to retry"
	}
	want := map[classify.Class]row{
		classify.Timeout:       {false, true, true, true, true, false, false, false},
		classify.RateLimited:   {false, false, true, true, true, false, false, false},
		classify.Quota:         {false, true, true, true, true, true, true, false},
		classify.ServerError:   {false, true, true, true, true, false, false, false},
		classify.Unavailable:   {false, true, true, false, true, false, true, false},
		classify.Auth:          {false, true, true, false, false, true, true, false},
		classify.Forbidden:     {false, true, false, false, false, false, true, false},
		classify.Overflow:      {true, false, true, true, true, false, true, false},
		classify.ContextLength: {true, false, false, true, true, false, true, true},
		classify.Refusal:       {true, false, false, false, false, false, true, true},
		classify.BadRequest:    {true, false, false, false, false, false, true, true},
		classify.Unknown:       {true, false, true, true, true, false, false, false},
	}
	if len(want) != len(classify.Classes()) {
		t.Fatalf("table covers %d classes, the set has %d", len(want), len(classify.Classes()))
	}
	for _, c := range classify.Classes() {
		r, w := For(c), want[c]
		got := row{w.request, r.Counted, r.NextEndpoint, DefaultNextTarget(route.Ordered, c), DefaultNextTarget(route.Fastest, c), r.Page, r.Lasting, r.Faulty}
		if got != w {
			t.Errorf("%s: got %+v, want %+v", c, got, w)
		}
		if DefaultNextTarget(route.Pool, c) != w.nextFast {
			t.Errorf("%s: pool next-target differs from fastest", c)
		}
		if r.Faulty && !r.Lasting {
			t.Errorf("%s: a request at fault is not served again anywhere soon, here included", c)
		}
		if w.request {
			if r.Cool != CoolNone || r.Counted {
				t.Errorf("%s describes the request but cools or counts: %+v", c, r)
			}
		}
	}
}

func TestTailIsGuarded(t *testing.T) {
	for _, c := range []classify.Class{classify.Auth, classify.Forbidden, classify.Refusal, classify.BadRequest, classify.ContextLength} {
		if DefaultTail(c) {
			t.Errorf("%s reaches the tail by default; docs/behaviour.md#routing guards it", c)
		}
	}
	for _, c := range []classify.Class{classify.Timeout, classify.ServerError, classify.Quota, classify.RateLimited} {
		if !DefaultTail(c) {
			t.Errorf("%s does not reach the tail by default", c)
		}
	}
}

func TestRetriesOnlyTransient(t *testing.T) {
	for _, c := range classify.Classes() {
		r := For(c).Retry
		want := RetryNever
		if c == classify.ServerError {
			want = RetryOnce
		} else if c == classify.RateLimited {
			want = RetryAfterWait
		}
		if r != want {
			t.Errorf("%s: same-endpoint retry %v, want %v", c, r, want)
		}
	}
}

func TestCoolFor(t *testing.T) {
	d := Durations{Cooldown: 10 * time.Second, UnavailableCooldown: 24 * time.Hour, AccountCooldown: time.Hour}
	cases := []struct {
		c    classify.Class
		ra   time.Duration
		want time.Duration
	}{
		{classify.RateLimited, 7 * time.Second, 7 * time.Second},
		{classify.RateLimited, 0, 10 * time.Second},
		{classify.Unavailable, 0, 24 * time.Hour},
		{classify.Quota, 0, time.Hour},
		{classify.Auth, 0, time.Hour},
		{classify.ServerError, 0, 0},
		{classify.ServerError, 30 * time.Second, 30 * time.Second}, // the wait a 503 named
		{classify.Timeout, 0, 0},
		{classify.BadRequest, 0, 0},
	}
	for _, tc := range cases {
		if got := For(tc.c).CoolFor(d, tc.ra); got != tc.want {
			t.Errorf("%s: cool %v, want %v", tc.c, got, tc.want)
		}
	}
}

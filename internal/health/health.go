package health

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

// Phase is the state of an endpoint or account record at a given instant.
type Phase uint8

const (
	// Healthy is the zero phase: nothing known against the record.
	Healthy Phase = iota
	// Cooling means a cooldown is running (now < CoolUntil).
	Cooling
	// Probing means a cooldown has ended but no success has closed the record
	// yet: it awaits (or holds) its single probe request.
	Probing
)

func (p Phase) String() string {
	switch p {
	case Healthy:
		return "healthy"
	case Cooling:
		return "cooling"
	case Probing:
		return "probing"
	}
	return "phase(" + strconv.Itoa(int(p)) + ")"
}

// Scope says which record a cooldown applies to.
type Scope uint8

const (
	// ScopeEndpoint is one (target, provider) pair.
	ScopeEndpoint Scope = iota
	// ScopeAccount is a provider account: every endpoint using the provider.
	ScopeAccount
)

func (s Scope) String() string {
	switch s {
	case ScopeEndpoint:
		return "endpoint"
	case ScopeAccount:
		return "account"
	}
	return "scope(" + strconv.Itoa(int(s)) + ")"
}

// MarshalText makes a Scope read as its name in JSON (decision records).
func (s Scope) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// MarshalText makes a Phase read as its name in JSON (decision records).
func (p Phase) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText reads a Phase name.
func (p *Phase) UnmarshalText(b []byte) error {
	for q := Healthy; q <= Probing; q++ {
		if string(b) == q.String() {
			*p = q
			return nil
		}
	}
	return fmt.Errorf("health: unknown phase %q", b)
}

// UnmarshalText reads a Scope name.
func (s *Scope) UnmarshalText(b []byte) error {
	for q := ScopeEndpoint; q <= ScopeAccount; q++ {
		if string(b) == q.String() {
			*s = q
			return nil
		}
	}
	return fmt.Errorf("health: unknown scope %q", b)
}

// Key names an endpoint. Its account is Provider.
type Key struct{ Target, Provider string }

func (k Key) String() string { return k.Target + "/" + k.Provider }

// Settings tune the state machine. Every zero value means the documented
// default.
type Settings struct {
	// FailureThreshold is the number of counted failures in a row before the
	// endpoint cools. 0 means 3.
	FailureThreshold int
	// Cooldown is the first cooldown after the threshold is reached. 0 means 10s.
	Cooldown time.Duration
	// MaxCooldown caps the doubling after failed probes. 0 means 5m. A base
	// cooldown longer than this (e.g. 24h for a retired model) is never
	// shortened by it: the cap is max(MaxCooldown, base).
	MaxCooldown time.Duration
	// ProbeLease is how long one probe holds the half-open slot before another
	// request (or replica) may probe. 0 means 30s.
	ProbeLease time.Duration
	// Longest bounds every cooldown a record read from the store can hold
	// (sanity.go): the longest this configuration can start. 0 means no
	// bound beyond the record's own.
	Longest time.Duration
	// RemeasureAfter is the age past which an endpoint's latency sample is
	// stale: a fastest route sends one request to measure it again
	// (ClaimMeasure), and the next sample replaces the old one instead of
	// being smoothed into it. 0 means 5m.
	RemeasureAfter time.Duration
}

func (s Settings) withDefaults() Settings {
	if s.FailureThreshold <= 0 {
		s.FailureThreshold = 3
	}
	if s.Cooldown <= 0 {
		s.Cooldown = 10 * time.Second
	}
	if s.MaxCooldown <= 0 {
		s.MaxCooldown = 5 * time.Minute
	}
	if s.ProbeLease <= 0 {
		s.ProbeLease = 30 * time.Second
	}
	if s.RemeasureAfter <= 0 {
		s.RemeasureAfter = 5 * time.Minute
	}
	return s
}

// Report is the outcome of one attempt, already translated by the caller
// (dispatch, through the policy table) into what health must do with it.
// Health does not know what classes mean.
type Report struct {
	// OK is a success: it resets the failure count and closes a probing
	// endpoint (and a probing account behind it), or a cooling endpoint
	// the attempt began after (Took).
	OK bool
	// Class is recorded as last_class, and as the cooldown's class when
	// this report starts a cooldown or makes the running one end later.
	// "" (e.g. on success) keeps the previous failure's class.
	Class string
	// Count marks a failure that counts toward FailureThreshold (endpoint).
	Count bool
	// Cool and CoolFor cool a scope at once (when CoolFor > 0) for at least
	// CoolFor. A running longer cooldown is never shortened.
	Cool    Scope
	CoolFor time.Duration
	// Hinted marks CoolFor as the upstream's own hint (Retry-After): it is
	// capped at MaxCooldown, so no header can cool a scope for longer than
	// the operator allows. Configured cooldowns (a 24h unavailable_cooldown)
	// are never capped.
	Hinted bool
	// Whole marks Latency as a whole (non-stream) answer's: its first byte
	// comes once the model has written all of it, so the client's prompt
	// and max_tokens decide it. It measures the endpoint only while no
	// stream's sample is recent (Record.WholeOnly). It sits in Hinted's
	// padding: Report, passed by value, keeps its size.
	Whole bool
	// Stream marks a failure as a stream's, after the upstream began
	// answering one (cut, or no first token in time): a whole answer's
	// success then proves nothing of it, so it neither resets the count
	// nor closes the cooldown it began (Record.StreamFails). In the same
	// padding.
	Stream bool
	// Latency is the time to first byte of a success (0 = not measured).
	Latency time.Duration
	// Took is how long the attempt ran, from its start to this report. A
	// success whose attempt began after the endpoint's running cooldown
	// did closes it (the endpoint serves: the verdict was wrong or no
	// longer holds); one that began before it (a stream started earlier)
	// closes nothing. 0 closes only a probing record.
	Took time.Duration
	// Release gives back the probe slot this attempt held when its outcome
	// says nothing about the endpoint (the request's own fault, or the
	// client left), so the next request may probe at once instead of
	// waiting out the lease.
	Release bool
	// Lease, with Release, is the probe lease TryProbeLease took: only a
	// slot that still holds it is given back (zero: whatever holds it).
	Lease time.Time
	// Words, when set, gives the upstream's own words for Class, already
	// made safe for anyone to read (no key, nothing the client sent, a
	// few hundred bytes at most). Tracker calls it only when this report
	// starts the cause (Record.CoolClass) of the cooldown of Cool, its
	// scope, and then once, outside the store's lock: the caller may
	// defer costly work to it.
	Words func() string
}

// Transition is a real phase change of one record, reported once (edge
// triggered) by the call that caused or first observed it.
type Transition struct {
	Scope Scope `json:"scope"`
	// Name is "target/provider" for an endpoint, the provider for an account.
	Name  string    `json:"name"`
	From  Phase     `json:"from"`
	To    Phase     `json:"to"`
	Class string    `json:"class,omitempty"`
	Until time.Time `json:"until,omitzero"` // end of the cooldown when To is Cooling
	// Since is, when To is Healthy, since when the record had been out
	// (Record.OpenSince); zero when unknown or for any other change.
	Since time.Time `json:"since,omitzero"`
}

// Status is the effective view of an endpoint, its account included.
type Status struct {
	Phase Phase
	// ProbeHeld is set while Phase is Probing and another request (or
	// replica) holds the probe: callers should treat the endpoint as cooling
	// until Until, the end of that lease.
	ProbeHeld bool
	// Until is when cooling ends: the later of the endpoint's and the
	// account's cooldowns; with ProbeHeld, the end of the probe lease. Zero
	// otherwise.
	Until time.Time
	// Measured is true once a latency sample exists; Latency is its EWMA.
	Measured bool
	Latency  time.Duration
	// Stale is set when the newest sample is older than RemeasureAfter and
	// no request is measuring it again: ClaimMeasure may win.
	Stale bool
	// Failures is the endpoint's count of counted failures in a row.
	Failures int
	// LastClass is the class behind the current phase (the account's when
	// the account is what holds the endpoint back), else the endpoint's last.
	LastClass string
	// CoolClass is the class that started the cooldown holding the
	// endpoint back (the record whose cooldown ends last, its own or its
	// account's; while probing, the probing one's), and CoolWords the
	// upstream's own words for it (Report.Words). Both "" while healthy.
	CoolClass, CoolWords string
}

// Record is the stored state of one endpoint or account. Stores persist it
// as is (JSON); only Tracker interprets it.
type Record struct {
	Failures int `json:"failures,omitempty"`
	// CoolUntil is when the current or last cooldown ends.
	CoolUntil time.Time `json:"cool_until,omitzero"`
	// CoolFrom is when the last failure that cooled the record came: a
	// success whose attempt began before it closes nothing.
	CoolFrom time.Time `json:"cool_from,omitzero"`
	// LastCooldown is the length of the last cooldown, the base for doubling.
	// Non-zero means the record is open: it cooled and no success closed it.
	LastCooldown time.Duration `json:"last_cooldown,omitempty"`
	// ProbeUntil is the end of the probe lease held by one request.
	ProbeUntil time.Time `json:"probe_until,omitzero"`
	// LastClass is the class of the last failure, whatever it was.
	LastClass string `json:"last_class,omitempty"`
	// CoolClass is the class of the failure that started the current (or,
	// while probing, the last) cooldown, or last made it end later: a
	// failure that neither starts nor lengthens it leaves it (a timeout
	// does not rename a retired model's day). CoolWords is the upstream's
	// own words for it (Report.Words), "" when none were given. A close
	// clears both.
	CoolClass string `json:"cool_class,omitempty"`
	CoolWords string `json:"cool_words,omitempty"`
	// Announced is the last phase a transition was reported for, so each
	// change is reported once across replicas.
	Announced Phase `json:"announced,omitempty"`
	// WholeOnly: the latency sample is whole answers' alone (Report.Whole);
	// the next stream's sample replaces it.
	WholeOnly bool `json:"whole_only,omitempty"`
	// StreamFails: a counted failure of the run (Failures), or the one
	// that began the cooldown, was a stream's (Report.Stream). Until a
	// stream's success or a probe closes the record, a whole answer's
	// success resets nothing: an endpoint whose streams fail while its
	// whole answers work still cools (operator review 50b). In
	// WholeOnly's padding: a record's size is on every handler's stack.
	StreamFails bool          `json:"stream_fails,omitempty"`
	LatencyEWMA time.Duration `json:"latency_ewma,omitempty"`
	Samples     int64         `json:"samples,omitempty"`
	// SampledAt is when the newest latency sample came (zero in a record
	// written before it was kept: stale). MeasureUntil is the end of the
	// lease of the request sent to measure a stale sample again
	// (ClaimMeasure): until then no other request is. Both in Unix
	// nanoseconds, not time.Time: View reads a route's records on the
	// handler's stack, and 48 bytes more a record grew every stream's
	// handler stack past 8 KiB (TestStreamHandlerStackStays8KiB).
	SampledAt    int64 `json:"sampled_at_ns,omitempty"`
	MeasureUntil int64 `json:"measure_until_ns,omitempty"`
	// OpenSince is when the record last opened: the failure that began
	// the first cooldown since a success closed it (Unix nanoseconds, as
	// SampledAt). Doubled cooldowns and failed probes keep it: it says
	// since when the endpoint or account has been out (GET /v1/health's
	// down_since; operator review 55: each short cooldown restarted every
	// clock an operator could read). Zero while closed, and in a record
	// opened before it was kept.
	OpenSince int64 `json:"open_since_ns,omitempty"`
	// Def is what the record is about (Tracker.Define): a digest of the
	// endpoint's model, URL and dialect, or of the account's credentials.
	// A tracker defined otherwise reads the record as empty. "" (a record
	// written before definitions, or by an undefined tracker) matches any.
	Def string `json:"def,omitempty"`
}

// PhaseAt is the record's own phase at now.
func (r *Record) PhaseAt(now time.Time) Phase {
	switch {
	case now.Before(r.CoolUntil):
		return Cooling
	case r.LastCooldown > 0:
		return Probing
	}
	return Healthy
}

// Store keeps records by key. It is small on purpose: the state machine lives
// in Tracker, so every store behaves the same and a store only has to be
// atomic.
type Store interface {
	// Load returns one record per key, in order; a missing key gives a zero
	// Record.
	Load(ctx context.Context, keys []string) ([]Record, error)
	// Update atomically applies fn to the record at key and, when ch is not
	// nil, writes the record before and after into it. fn may run more than
	// once (optimistic retries) and must not call the store.
	Update(ctx context.Context, key string, fn func(*Record), ch *Change) error
}

// Change is a record before and after an update (Store.Update). It is
// written through a pointer, not returned: two Records returned by value
// took a frame of 1.7 KiB on the request's goroutine, which a relayed
// stream keeps for its life (docs/benchmarks.md, "Round 6").
type Change struct{ Before, After Record }

// Once de-duplicates events (operator alerts): Claim is true for exactly one
// caller per key per ttl, across replicas when the store is shared. Release
// gives back a claim the caller won (e.g. an alert that could not be
// delivered), so the next Claim may win before ttl; Forget ends a claim
// whoever won it (an operator's reset: the next alert is due at once).
type Once interface {
	Claim(ctx context.Context, key string, ttl time.Duration) bool
	Release(ctx context.Context, key string)
	Forget(ctx context.Context, key string)
}

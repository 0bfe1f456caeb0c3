package policy

import (
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/route"
)

// Cool is how a failure cools.
type Cool uint8

// The ways a failure cools.
const (
	// CoolNone cools nothing (request-describing classes: no client can cool
	// a provider by sending bad requests).
	CoolNone Cool = iota
	// CoolThreshold counts toward health.failure_threshold; the endpoint
	// cools for health.cooldown once reached, and at once for the
	// upstream's Retry-After when its answer named one (a server error's).
	CoolThreshold
	// CoolRetryAfter cools the endpoint at once for the upstream's
	// Retry-After (health.cooldown when it gave none). Not counted.
	CoolRetryAfter
	// CoolUnavailable cools the endpoint at once for health.unavailable_cooldown.
	CoolUnavailable
	// CoolAccount cools the provider account at once for health.account_cooldown.
	CoolAccount
)

// Retry is whether the same endpoint is tried again before moving on.
type Retry uint8

// Same-endpoint retry kinds.
const (
	// RetryNever: move on at once.
	RetryNever Retry = iota
	// RetryOnce: once more after a short jittered backoff (server errors,
	// connection resets); when the upstream's answer named a wait
	// (Retry-After), after that wait instead, and only within
	// retry.max_wait.
	RetryOnce
	// RetryAfterWait: once more after the upstream's Retry-After, only when it
	// is within retry.max_wait; otherwise the endpoint cools and the request
	// moves on at once.
	RetryAfterWait
)

// Rule is everything Detour decides from one class.
type Rule struct {
	// Counted: the failure counts against the endpoint's or account's health.
	Counted bool
	Cool    Cool
	Retry   Retry
	// NextEndpoint: the request may move to the target's next endpoint.
	NextEndpoint bool
	// Page: the operator is alerted (webhook).
	Page bool
	// Lasting: the endpoint will not serve the same request again within a
	// client's retry, whatever the wait (a spent or rejected account, a
	// model gone, access denied, or a request it refuses as it is). A
	// client told a request failed is told not to retry it when every
	// endpoint it tried failed that way (docs/behaviour.md#api, "Whether
	// to retry").
	Lasting bool
	// Faulty: the request itself is at fault (bad input, too long, refused
	// content): sent again unchanged it fails again, so the client is told
	// not to retry it whatever else the walk met.
	Faulty bool
}

// For returns the rule of class c (docs/behaviour.md#rules).
func For(c classify.Class) Rule {
	switch c {
	case classify.Timeout:
		return Rule{Counted: true, Cool: CoolThreshold, NextEndpoint: true}
	case classify.RateLimited:
		return Rule{Cool: CoolRetryAfter, Retry: RetryAfterWait, NextEndpoint: true}
	case classify.Quota:
		return Rule{Counted: true, Cool: CoolAccount, NextEndpoint: true, Page: true, Lasting: true}
	case classify.ServerError:
		return Rule{Counted: true, Cool: CoolThreshold, Retry: RetryOnce, NextEndpoint: true}
	case classify.Unavailable:
		return Rule{Counted: true, Cool: CoolUnavailable, NextEndpoint: true, Lasting: true}
	case classify.Auth:
		return Rule{Counted: true, Cool: CoolAccount, NextEndpoint: true, Page: true, Lasting: true}
	case classify.Forbidden:
		return Rule{Counted: true, Cool: CoolThreshold, Lasting: true}
	case classify.Overflow:
		return Rule{NextEndpoint: true, Lasting: true} // too large here; another endpoint may take it
	case classify.ContextLength:
		return Rule{Lasting: true, Faulty: true}
	case classify.Refusal:
		return Rule{Lasting: true, Faulty: true}
	case classify.BadRequest:
		return Rule{Lasting: true, Faulty: true}
	case classify.Unknown:
		return Rule{NextEndpoint: true}
	}
	panic("policy: invalid class " + c.String())
}

// DefaultNextTarget reports whether class c moves a request of a route with
// strategy s to the next target when the route's fallback_on is not written.
// ContextLength also needs a larger declared context window (see the
// dispatcher); Unavailable moves on by default only in fastest and pool routes.
func DefaultNextTarget(s route.Strategy, c classify.Class) bool {
	switch c {
	case classify.Timeout, classify.RateLimited, classify.Quota, classify.ServerError,
		classify.Overflow, classify.ContextLength, classify.Unknown:
		return true
	case classify.Unavailable:
		return s == route.Fastest || s == route.Pool
	case classify.Auth, classify.Forbidden, classify.Refusal, classify.BadRequest:
		return false
	}
	panic("policy: invalid class " + c.String())
}

// DefaultTail reports whether class c may reach a route's guarded tail when
// tail_on is not written. The guarded classes (auth, forbidden, refusal,
// bad_request, context_length) reach the tail only when tail_on lists them.
func DefaultTail(c classify.Class) bool {
	switch c {
	case classify.Timeout, classify.RateLimited, classify.Quota, classify.ServerError,
		classify.Unavailable, classify.Overflow, classify.Unknown:
		return true
	case classify.Auth, classify.Forbidden, classify.Refusal, classify.BadRequest, classify.ContextLength:
		return false
	}
	panic("policy: invalid class " + c.String())
}

// Durations are the configured cooldowns a Rule refers to.
type Durations struct {
	Cooldown            time.Duration
	UnavailableCooldown time.Duration
	AccountCooldown     time.Duration
}

// CoolFor returns how long a failure of rule r cools at once (0 for none),
// given the upstream's Retry-After: threshold counting cools at once only
// for a wait the upstream named (a server error's), 0 without one; the
// walk applies it when the request does not wait it out on the same
// endpoint itself.
func (r Rule) CoolFor(d Durations, retryAfter time.Duration) time.Duration {
	switch r.Cool {
	case CoolRetryAfter:
		if retryAfter > 0 {
			return retryAfter
		}
		return d.Cooldown
	case CoolUnavailable:
		return d.UnavailableCooldown
	case CoolAccount:
		return d.AccountCooldown
	case CoolThreshold:
		return retryAfter
	case CoolNone:
		return 0
	}
	return 0
}

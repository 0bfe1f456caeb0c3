package classify

import (
	"fmt"
	"strings"
	"time"
)

// Class is one of the twelve closed failure classes of an upstream answer.
//
// The zero Class is Unknown: an answer that was never placed is never
// mistaken for a known cause. The set is closed on purpose: every package
// that decides something per class does so in one exhaustive switch, and the
// `exhaustive` linter run by CI fails the build until a new class is decided
// everywhere.
type Class uint8

// The twelve classes, in the order of docs/behaviour.md#classes but Unknown first, as the zero value.
const (
	// Unknown: the answer cannot be placed with evidence (e.g. a 400 in words
	// nobody taught the classifier). Fails over, cools nothing.
	Unknown Class = iota
	// Timeout: no answer in time (408, a passed deadline, an upstream 504/524
	// naming a deadline). Describes the endpoint.
	Timeout
	// RateLimited: a short-term limit (429 that is not a quota). Describes the
	// endpoint, which cools for Retry-After.
	RateLimited
	// Quota: the provider account cannot pay or its allowance is spent (402,
	// spend caps, insufficient credits or quota, daily quotas), whatever the
	// status it arrives with. Describes the account; pages the operator.
	Quota
	// ServerError: a provider-side failure (5xx, 529, connection refused or
	// reset, an unparseable 2xx). Describes the endpoint.
	ServerError
	// Unavailable: the model or endpoint is gone (404, 410, model_not_found,
	// decommissioned, "No endpoints found"). Describes the endpoint; long cooldown.
	Unavailable
	// Auth: the credential is rejected (401, invalid or revoked key in any
	// status). Describes the account; pages the operator.
	Auth
	// Forbidden: access not granted, neither a bad key nor a refusal (403).
	// Describes the endpoint.
	Forbidden
	// Overflow: this request is too large for this endpoint (413, a
	// tokens-per-minute cap a single request exceeds). Describes request × endpoint.
	Overflow
	// ContextLength: the prompt exceeds the model's context window. Describes
	// the request.
	ContextLength
	// Refusal: a content-policy or safety refusal, including a 2xx that carries
	// a block reason and no content. Describes the request.
	Refusal
	// BadRequest: the request is malformed, with positive evidence naming the
	// bad input (schema, parameter, tool call); 405, 407. Describes the request.
	BadRequest

	numClasses // unexported: the count, so arrays indexed by Class cannot miss one
)

var classNames = [numClasses]string{
	Unknown:       "unknown",
	Timeout:       "timeout",
	RateLimited:   "rate_limited",
	Quota:         "quota",
	ServerError:   "server_error",
	Unavailable:   "unavailable",
	Auth:          "auth",
	Forbidden:     "forbidden",
	Overflow:      "overflow",
	ContextLength: "context_length",
	Refusal:       "refusal",
	BadRequest:    "bad_request",
}

// Classes returns all twelve classes in the order of docs/behaviour.md#classes (timeout first, unknown last).
func Classes() []Class {
	return []Class{Timeout, RateLimited, Quota, ServerError, Unavailable, Auth,
		Forbidden, Overflow, ContextLength, Refusal, BadRequest, Unknown}
}

// String returns the wire name of c, e.g. "rate_limited".
func (c Class) String() string {
	if c < numClasses {
		return classNames[c]
	}
	return fmt.Sprintf("class(%d)", uint8(c))
}

// Valid reports whether c is one of the twelve classes.
func (c Class) Valid() bool { return c < numClasses }

// ParseClass returns the class named s (its wire name, case-insensitive).
func ParseClass(s string) (Class, error) {
	for i, n := range classNames {
		if strings.EqualFold(n, s) {
			return Class(i), nil
		}
	}
	return Unknown, fmt.Errorf("unknown class %q (want one of %s)", s, strings.Join(ClassNames(), ", "))
}

// ClassNames returns the twelve wire names in the order of Classes.
func ClassNames() []string {
	cs := Classes()
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.String()
	}
	return out
}

// MarshalText implements encoding.TextMarshaler.
func (c Class) MarshalText() ([]byte, error) {
	if !c.Valid() {
		return nil, fmt.Errorf("invalid class %d", uint8(c))
	}
	return []byte(c.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (c *Class) UnmarshalText(b []byte) error {
	v, err := ParseClass(string(b))
	if err != nil {
		return err
	}
	*c = v
	return nil
}

// Verdict is the classifier's answer about one upstream response.
//
// The zero Verdict means "not a failure": Class and Evidence describe a
// failure only when Failed is true. Evidence names the rule that decided, e.g.
// "status:429", "code:model_not_found", "phrase:credit balance is too low",
// "gemini:blockReason=SAFETY" or "rule:2" for an operator rule.
type Verdict struct {
	// Failed is true when the answer is a failure of Class.
	Failed bool
	// Class is the failure class; meaningful only when Failed.
	Class Class
	// Evidence is a short string naming the rule that decided.
	Evidence string
	// RetryAfter is how long the upstream asked us to wait, 0 when it gave no hint.
	RetryAfter time.Duration
	// Param is the top-level request member a bad_request answer names
	// in its structured param (OpenAI's error.param: "temperature";
	// "messages" for "messages[2].content"), one of the members of the
	// client APIs Detour serves (param.go); where the answer has no
	// structured param, the member its words call invalid ("service tier
	// provided is invalid": service_tier; memberInvalidPhrases, round 53);
	// "" when it names none of them,
	// or the verdict is another class. The upstream's word, not a fact the
	// gateway checked: a reader drops or fixes at most the client's own
	// member by it (docs/doors.md, "How the door is wired").
	Param string
}

// Dialect names a provider's wire protocol family.
type Dialect string

// The dialects the classifier knows. The empty Dialect means "not known":
// every dialect's shapes are tried.
const (
	OpenAI    Dialect = "openai"
	Anthropic Dialect = "anthropic"
	Gemini    Dialect = "gemini"
)

// MaxBody is how much of a body the classifier reads: the first 4 KiB.
const MaxBody = 4 << 10

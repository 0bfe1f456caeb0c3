package classify

import (
	"net/http"
	"regexp"
	"strconv"
)

// Response is one upstream answer to classify.
type Response struct {
	// Status is the HTTP status. An event inside a stream that began with a
	// 2xx is classified with its stream's status (200).
	Status int
	// Header holds the response headers; nil is fine.
	Header http.Header
	// Body is the answer's body; only its first MaxBody bytes are read. With
	// Stream set it is one SSE event's data, or a raw fragment of an SSE
	// stream (`event: error\ndata: {…}`).
	Body []byte
	// Dialect is the provider's dialect; "" tries every dialect's shapes.
	Dialect Dialect
	// Provider is the configured provider name, for operator rules narrowed
	// by provider; "" matches only rules that name none.
	Provider string
	// Stream is set when Body arrived inside an SSE stream.
	Stream bool
}

// Rule is an operator-taught rule, checked before the built-in rules.
// Empty Dialect, Provider and Status match anything; a nil Match matches
// every body.
type Rule struct {
	Dialect  Dialect
	Provider string
	Status   []int
	Match    *regexp.Regexp
	Class    Class
}

// Classifier classifies with operator rules first, then the built-in rules.
// The zero value (and a nil *Classifier) uses the built-in rules alone.
// It is safe for concurrent use.
type Classifier struct {
	// Rules are tried in order; the first match wins and its verdict's
	// evidence is "rule:<n>", n counting from 1.
	Rules []Rule
}

// Classify classifies r with the built-in rules alone.
func Classify(r Response) Verdict {
	return (*Classifier)(nil).Classify(r)
}

// Classify classifies r: operator rules first, then the built-in rules.
func (c *Classifier) Classify(r Response) Verdict {
	// Placeholder: status only. The full rule set replaces this.
	switch {
	case r.Status >= 200 && r.Status < 300:
		return Verdict{}
	case r.Status == 429:
		return Verdict{Failed: true, Class: RateLimited, Evidence: "status:429"}
	case r.Status >= 500:
		return Verdict{Failed: true, Class: ServerError, Evidence: "status:" + strconv.Itoa(r.Status)}
	}
	return Verdict{Failed: true, Class: Unknown, Evidence: "status:" + strconv.Itoa(r.Status)}
}

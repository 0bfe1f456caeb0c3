package classify

import (
	"bytes"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
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
	// The built-in rules read every dialect's shapes whatever its value
	// (OpenAI-compatible vendors mix them); it narrows operator rules.
	Dialect Dialect
	// Provider is the configured provider name, for operator rules narrowed
	// by provider; "" matches only rules that name none.
	Provider string
	// Stream is set when Body arrived inside an SSE stream.
	Stream bool
	// Request is the client's request body, as the client sent it: text
	// found in it is no evidence. A phrase or an operator rule whose
	// matched text also occurs in Request (case, runs of blanks and JSON
	// escapes aside) is discarded, since upstreams quote the client's
	// input back in their errors. It is read only when a phrase or rule
	// matched; nil checks nothing. After the body (its first JSON value,
	// which rules that read the request decode) may come, each after a
	// line break, more text the client chose that an upstream may quote:
	// the header values Detour forwarded, and the body Detour sent the
	// upstream (its translation of the client's).
	Request []byte
	// Model is the model Detour asked the upstream for (the endpoint's
	// model). With it and Request, a not-found answer that names something
	// the client's request names and that is not Model — a file, a
	// container, a tool, a tool's own model — is bad_request, not
	// unavailable: the client's resource is missing, not the endpoint
	// (docs/behaviour.md, "Not found: whose?"). "" keeps every not-found
	// answer as the status or code says.
	Model string
}

// Rule is an operator-taught rule, checked before the built-in rules.
// Empty Dialect, Provider and Status match anything; a nil Match matches
// every body. A rule that lists no status never matches a 2xx answer unless
// it has a Match (so a bare rule cannot turn every success into a failure).
// A Match whose matched text also occurs in the response's Request is no
// evidence: the rule matches only where some match of it is not echoed.
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

// byteOrderMark is the UTF-8 byte order mark.
var byteOrderMark = []byte("\xef\xbb\xbf")

// Classify classifies r with the built-in rules alone.
func Classify(r Response) Verdict {
	return (*Classifier)(nil).Classify(r)
}

// Classify classifies r: operator rules first, then the built-in rules. It
// reads at most the first MaxBody bytes of r.Body and never modifies them.
func (c *Classifier) Classify(r Response) Verdict {
	body := r.Body
	if len(body) > MaxBody {
		body = body[:MaxBody]
	}
	// A UTF-8 byte order mark before the answer (.NET's and some Java
	// servers' writers add one) is no part of it: as text, it hid a JSON
	// body's whole structure.
	body = bytes.TrimPrefix(body, byteOrderMark)
	if r.Status >= 200 && r.Status < 300 && (c == nil || !c.readsText()) {
		return c.classifyText(&r, body) // as it came: no rule reads its text
	}
	// An error's text is read with its escaped characters decoded
	// (unescape.go); a 2xx only where it carries an error (success), or
	// for a rule that reads its text, so a normal answer pays nothing.
	body, buf := decoded(body)
	v := c.classifyText(&r, body)
	if buf != nil {
		textBufs.Put(buf)
	}
	return v
}

// readsText reports whether a rule matches a body's text.
func (c *Classifier) readsText() bool {
	for i := range c.Rules {
		if c.Rules[i].Match != nil {
			return true
		}
	}
	return false
}

// classifyText classifies r, whose body is body: cut to MaxBody, and
// decoded where its text is read.
func (c *Classifier) classifyText(r *Response, body []byte) Verdict {
	if c != nil {
		for i := range c.Rules {
			if c.Rules[i].matches(r, body) {
				v := Verdict{Failed: true, Class: c.Rules[i].Class, Evidence: ruleEvidence(i + 1)}
				if v.Class == RateLimited {
					v.RetryAfter = ParseRetryAfter(r.Header, now())
				}
				return serverHint(v, r.Status, r.Header)
			}
		}
	}
	v := builtin(r.Status, r.Header, body, r.Stream, r.Request, r.Model)
	if v.Failed && v.Class == RateLimited && v.RetryAfter == 0 {
		// Azure's hyphenated reset, on a 429 alone: read where neither the
		// headers nor the body named a wait (hyphenReset). Here, where the
		// status is known, not in withRetry, which every 2xx's frame crosses
		// without one.
		v.RetryAfter = hyphenReset(r.Status, r.Header)
		v = spent(v)
	}
	if v.Failed && v.Class == BadRequest && r.Dialect == Anthropic && systemRoleRefused(body, r.Request) {
		// A message of role system inside messages: Anthropic's Messages
		// API takes it (Claude Code 2.1.154 and later send one), so a
		// server that emulates the API and refuses it lacks what the API
		// has; the request moves on to a target that serves it (role.go).
		return Verdict{Failed: true, Class: Unknown, Evidence: "anthropic:messages[].role=system"}
	}
	return v
}

func (ru *Rule) matches(r *Response, body []byte) bool {
	if ru.Dialect != "" && ru.Dialect != r.Dialect {
		return false
	}
	if ru.Provider != "" && ru.Provider != r.Provider {
		return false
	}
	if len(ru.Status) > 0 {
		found := false
		for _, st := range ru.Status {
			if st == r.Status {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	} else if r.Status >= 200 && r.Status < 300 && ru.Match == nil {
		return false
	}
	if ru.Match == nil {
		return true
	}
	if len(r.Request) == 0 {
		return ru.Match.Match(body)
	}
	return ru.unechoedMatch(body, r.Request)
}

// maxRuleMatches bounds the matches of one rule checked against the request.
const maxRuleMatches = 4

// unechoedMatch reports whether Match matches body somewhere its matched
// text is not also in the client's request.
func (ru *Rule) unechoedMatch(body, req []byte) bool {
	for from, tries := 0, 0; from <= len(body) && tries < maxRuleMatches; tries++ {
		loc := ru.Match.FindIndex(body[from:])
		if loc == nil {
			return false
		}
		s, e := from+loc[0], from+loc[1]
		if !echoed(req, body[s:e]) {
			return true
		}
		from = e
		if e == s {
			from++
		}
	}
	return false
}

var ruleEvidences [65]string

func init() {
	for i := range ruleEvidences {
		ruleEvidences[i] = "rule:" + strconv.Itoa(i)
	}
}

func ruleEvidence(n int) string {
	if n < len(ruleEvidences) {
		return ruleEvidences[n]
	}
	return "rule:" + strconv.Itoa(n)
}

// builtin applies the built-in rules to a body already cut to MaxBody.
func builtin(st int, h http.Header, body []byte, stream bool, req []byte, model string) Verdict {
	switch {
	case st >= 200 && st < 300:
		return success(h, body, stream, req, model)
	case st < 400 || st >= 600:
		return statusVerdict(st)
	case !statusFixed[st] && statusClass[st] != Timeout:
		if v, ok := relayedAnswer(st, h, body, req, model); ok { // inner.go
			return v
		}
	}
	return envelope(st, h, body, req, model)
}

// serverHint gives a server_error verdict the wait its answer's standard
// headers name (explicitRetryAfter) when its status is one whose
// Retry-After means "come back then": a 503 in maintenance or overloaded,
// Anthropic's overloaded 529, a 429 that speaks of the provider's load.
// Only the headers: the body's wording may echo the client's text. Not on
// a 500, 502 or 504, where a Retry-After is a proxy's boilerplate on every
// error and one request that made the upstream fail would cool it for
// everyone.
func serverHint(v Verdict, st int, h http.Header) Verdict {
	if v.Failed && v.Class == ServerError && v.RetryAfter == 0 && (st == 429 || st == 503 || st == 529) {
		v.RetryAfter = explicitRetryAfter(h, now())
	}
	return v
}

// clientAnswer classifies a 4xx answer. It is a function of its own so
// that builtin, whose frame every 2xx crosses (a stream's first events are
// classified deep in the handler's stack: docs/benchmarks.md, "Round 6"),
// holds no facts.
func clientAnswer(st int, h http.Header, body, req []byte, model string) Verdict {
	if statusFixed[st] || (len(body) == 0 && len(h["X-Amzn-Errortype"]) == 0) {
		return withRetry(fixedAnswer(st, body, req, model), h, nil, req)
	}
	var s scanner
	s.readAnswer(body)
	if v, ok := relayedByModel(h, body, &s.f, req, model); ok {
		return v
	}
	// The request's own principal or a parameter the relay requires, at
	// whatever status a relay gives it (probe 65b: LiteLLM's words at a 403
	// or a 422 read quota or auth, which cooled the account and paged).
	if v, ok := ownRequest(&s.f, body, req, model); ok { // budget.go
		return v
	}
	v := priced(decide(defaultClass(st), statusEvidence[st], h, body, &s.f, req, model), &s.f, body, req, model)
	if r, ok := relayKey(v.Class, &s.f); ok && v.Failed {
		v = r
	}
	if st == 424 && v.Failed && v.Class == Unknown && v.Evidence == statusEvidence[424] {
		v = failedDependency(v, &s.f, body, req, model)
	}
	if v.Failed && v.Class == BadRequest {
		v.Param = requestMember(s.f.param)
		if v.Param == "" {
			v.Param = memberInvalid(v.Evidence)
		}
	}
	return withRetry(v, h, &s.f, req)
}

// withRetry fills RetryAfter for a rate_limited verdict: from the headers
// (ParseRetryAfter, then a spent window's reset time: spentWindowReset),
// else from the body (Gemini RetryInfo, "try again in 17.3s"), never from
// wording the client's request req holds (an echoed "try again in 900m"
// would make the verdict quota: the account cooled, the operator paged).
// (A server_error's wait is the headers' alone: serverHint.)
func withRetry(v Verdict, h http.Header, f *facts, req []byte) Verdict {
	if !v.Failed || v.Class != RateLimited {
		return v
	}
	v.RetryAfter = ParseRetryAfter(h, now())
	if v.RetryAfter == 0 {
		v.RetryAfter = spentWindowReset(h, now())
	}
	if v.RetryAfter == 0 && f != nil {
		short := shortPeriod(v.Evidence)
		v.RetryAfter = bodyRetryAfter(f, req, !short)
		if short && v.RetryAfter >= longWait {
			// A minute's or a second's window decided the answer; an hour
			// or more named beside it ("… retry in 1 hour or upgrade") is
			// another window's, or advice: the throttle keeps its class.
			v.RetryAfter = 0
		}
	}
	return spent(v)
}

// spent is v, a rate_limited verdict with its wait, or quota when told to
// come back in an hour or more: not a short-term limit but an allowance
// spent (Azure's "retry after 86400 seconds").
func spent(v Verdict) Verdict {
	if v.RetryAfter >= longWait {
		return Verdict{Failed: true, Class: Quota, Evidence: "retry-after>=1h"}
	}
	return v
}

// shortPeriod reports evidence that named a window of minutes or seconds
// ("phrase:per minute", "phrase:rpm", "quota-metric:per_minute", 分钟,
// 流控): a limit that "resets in" some other time in the same answer is
// another window's (a week's cap beside the minute's throttle), not this
// one's wait.
func shortPeriod(ev string) bool {
	for _, w := range [...]string{"minute", "second", "per min", "rpm", "rps", "tpm", "qps", "分钟", "流控"} {
		if strings.Contains(ev, w) {
			return true
		}
	}
	return false
}

// longWait is the Retry-After from which a rate limit is a spent allowance.
const longWait = time.Hour

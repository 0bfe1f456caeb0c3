package classify

import (
	"bytes"
	"net/http"
	"strings"
)

// The codes in an answer, strong and weak, read in source order (codeScan).

// codeScan keeps the first strong and the first weak code seen, and the
// first bad-input code whether or not it may decide (badEv).
type codeScan struct {
	// req is the client's request: a code that would cool or page which
	// the request holds as a member's value is the client's, not the
	// upstream's (valueEchoed).
	req              []byte
	allowBad         bool
	strong, weak     Class
	strongEv, weakEv string
	badEv            string
}

// scan tries every code of h and f in source order.
func (cs *codeScan) scan(h http.Header, f *facts) {
	if vs := h["X-Amzn-Errortype"]; len(vs) > 0 {
		if len(h["X-Amz-Apigw-Id"]) > 0 && strings.HasPrefix(vs[0], "MissingAuthenticationToken") {
			// AWS API Gateway's answer for a path or method it does not
			// route, its most common cause: the door the client chose
			// (/v1/embeddings where only chat is routed), never a key it
			// checked. Not auth; the walk moves on and nothing cools.
			cs.strong, cs.strongEv = Unknown, "apigateway:MissingAuthenticationToken"
			return
		}
		cs.try(srcAmzHeader, []byte(vs[0]))
	}
	cs.try(srcAmzHeader, f.amzType)
	// Envoy AI Gateway relays Bedrock's x-amzn-errortype value, suffix
	// and all, as the error's type (its converse translator; hunt 62g).
	// Not its not-found: whose resource it is, "Not found: whose?" says
	// (review 62k: a file the client named cooled the endpoint).
	if bytes.Contains(f.errType, []byte("Exception")) && !bytes.HasPrefix(f.errType, []byte("ResourceNotFound")) {
		cs.try(srcAmzHeader, f.errType)
	}
	for i := 0; i < f.nReasons; i++ {
		cs.try(srcReason, f.reasons[i])
	}
	// Where an upstream's answer is known to carry the client's text — an
	// error's details, a router's annotations — a code is read only where
	// the request does not hold it as a value (tryUnechoed); at the top
	// level of the answer, only where the request's own top level does not
	// (tryTop: a server that answers {**request, "error": …}). The error
	// object's own code and type are the upstream's, and a flat envelope's
	// top-level code is too: an agent's earlier failure deep in its
	// history, the same code with other ids, must not hide a relay's quote
	// of the real one (review 46a).
	cs.tryUnechoed(srcDetail, f.detailCode)
	cs.tryUnechoed(srcRouterAvail, f.routerAvail)
	cs.tryUnechoed(srcRouterType, f.routerType)
	cs.try(srcCode, f.errCode)
	cs.try(srcType, f.errType)
	cs.try(srcInner, f.innerCode)
	cs.tryTop(srcCode, f.topCode, f.topCodeIn)
	cs.tryTop(srcType, f.topType, "type")
	cs.try(srcStatus, f.errStatus)
	cs.try(srcBaseResp, f.baseCode)
}

// try reads the code v, found in the body at src.
func (cs *codeScan) try(src codeSource, v []byte) {
	if cs.strongEv != "" || len(v) == 0 {
		return
	}
	cs.take(lookupCode(src, v))
}

// tryUnechoed is try for a code where upstreams are known to quote the
// client's request: one whose class would cool or page (codeEchoGuarded)
// is no evidence where the request holds it as a member's value
// (valueEchoed). Round 62 compared the request's raw bytes, so an escape
// (error\u005fcode), another letter case or a tool call's arguments (JSON
// in a string) got past it, and one client's text cooled an account for
// everyone (review 63a).
func (cs *codeScan) tryUnechoed(src codeSource, v []byte) {
	if cs.strongEv != "" || len(v) == 0 {
		return
	}
	r, ev, ok := lookupCode(src, v)
	if ok && codeEchoGuarded(r.class) && valueEchoed(cs.req, v) {
		return
	}
	cs.take(r, ev, ok)
}

// tryTop is try for a code read in the answer's top-level member name
// (the code itself, or an object or a list holding it: errors[].code,
// detail.code): one whose class would cool or page is no evidence where
// the request's own top-level member of that name holds it (topValueIs;
// review 63j: a guard on "code" alone left "error_code", "reason",
// "errors" and "detail" to the client). A Responses server
// that builds its answer from the request ({**request, "error": …}) wrote
// the client's "code": "insufficient_quota" where a flat envelope's code
// stands, and one client cooled the account for everyone (review 63a).
func (cs *codeScan) tryTop(src codeSource, v []byte, name string) {
	if cs.strongEv != "" || len(v) == 0 {
		return
	}
	r, ev, ok := lookupCode(src, v)
	if ok && codeEchoGuarded(r.class) && topValueIs(cs.req, name, v) {
		return
	}
	cs.take(r, ev, ok)
}

// take keeps the code rule r (found: ok) with evidence ev.
func (cs *codeScan) take(r codeRule, ev string, ok bool) {
	if ok && r.badInput && cs.badEv == "" {
		cs.badEv = ev
	}
	switch {
	case !ok, r.badInput && !cs.allowBad:
	case r.strong:
		cs.strong, cs.strongEv = r.class, ev
	case cs.weakEv == "":
		cs.weak, cs.weakEv = r.class, ev
	}
}

// namesRateLimit reports whether a weak code's evidence names a rate limit
// itself (rate_limit_error, rate_limit_exceeded, too_many_requests,
// ThrottlingException, Google's RATE_LIMIT_EXCEEDED reason), not a generic family that also covers the
// provider's own capacity (RESOURCE_EXHAUSTED).
func namesRateLimit(ev string) bool {
	for _, w := range [...]string{"rate_limit", "ratelimit", "too_many", "toomany", "throttl"} {
		if hasFold(ev, w) {
			return true
		}
	}
	return false
}

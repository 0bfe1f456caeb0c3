package classify

import "strconv"

// Status defaults (docs/behaviour.md#classes): the status gives the default class; the body
// refines it only where providers overload a status.
//
//	2xx                 success (unless the body carries an error or a block)
//	401                 auth
//	402                 quota
//	403                 forbidden  (body may say auth, quota, refusal, unavailable…)
//	404, 410            unavailable (a wrong URL is as gone for us as a retired model;
//	                    the body may say what the client sent, or, in a 410, a feature of it, is what is gone)
//	405, 407            bad_request
//	408                 timeout
//	413, 431            overflow   (body may say context_length; 431: the request's header fields, RFC 6585)
//	429                 rate_limited (body may say quota, overflow…)
//	451                 forbidden  (unavailable for legal reasons: access not granted)
//	499                 server_error (received, so not Detour closing: a hop behind gave up)
//	other 4xx           unknown    (400/422 become bad_request only with evidence)
//	504, 524, 598, 599  timeout    (explicit upstream timeouts; 598/599: the de-facto
//	                    network read/connect timeout statuses proxies send, Tornado's 599)
//	other 5xx           server_error (timeout when the body says deadline/timed out)
//	anything else       unknown
var statusClass [600]Class

// statusFixed marks statuses whose body is never read: the status alone is
// the whole answer.
var statusFixed [600]bool

// statusEvidence and codeStatusEvidence hold "status:N" and "code:N".
var statusEvidence, codeStatusEvidence [600]string

func init() {
	for st := range statusClass {
		statusEvidence[st] = "status:" + strconv.Itoa(st)
		codeStatusEvidence[st] = "code:" + strconv.Itoa(st)
		switch {
		case st >= 500:
			statusClass[st] = ServerError
		default:
			statusClass[st] = Unknown
		}
	}
	set := func(c Class, fixed bool, sts ...int) {
		for _, st := range sts {
			statusClass[st] = c
			statusFixed[st] = fixed
		}
	}
	set(Auth, true, 401)
	set(Quota, true, 402)
	set(Forbidden, false, 403, 451)
	set(Unavailable, false, 404)
	set(Unavailable, true, 410) // but for a feature of the request gone (fixedstatus.go, fixedVerdict)
	set(BadRequest, true, 405, 407)
	set(Timeout, true, 408, 504, 524, 598, 599)
	set(Overflow, false, 413, 431)
	set(RateLimited, false, 429)
	// nginx's "client closed request": an answer Detour receives with it
	// was not closed by Detour (a closed client reads nothing), so a hop
	// behind the endpoint gave up (Copilot's bare 499, Gemini's CANCELLED
	// backendError; round 57, hunt 57c). The body may still say more.
	set(ServerError, false, 499)
	// A 409, a 415 and a 501 keep their defaults (unknown, unknown,
	// server_error): round 58 made them bad_request, bad_request and
	// unknown at first, and its reviews put them back. The SDKs retry a
	// 409 as a lock timeout (OpenAI's 409 quota_accounting_blocked is the
	// account's for a while); Detour writes the upstream request's
	// Content-Type itself, so a 415 is never the client's; and a base_url
	// at a plain web server answers every POST 501 ("Unsupported method"),
	// which as unknown was never cooled and stayed first for ever (hostile
	// 58b). Words still decide: a 501 that says the API is missing for this
	// model ("does not support embeddings") is unknown.
}

// statusVerdict is the default verdict of a non-2xx status.
func statusVerdict(st int) Verdict {
	if st < 0 || st >= len(statusClass) {
		return Verdict{Failed: true, Class: Unknown, Evidence: "status:" + strconv.Itoa(st)}
	}
	if st >= 200 && st < 300 {
		return Verdict{}
	}
	return Verdict{Failed: true, Class: statusClass[st], Evidence: statusEvidence[st]}
}

// StatusClass is the class status gives an answer whose body says nothing
// more (the table above): unknown for a 2xx, a status outside 100-599, and
// a 4xx such as 400 that proves nothing by itself.
func StatusClass(status int) Class {
	if status >= 200 && status < 300 {
		return Unknown
	}
	return defaultClass(status)
}

// defaultClass is the class a status gives when the body says nothing;
// ok is false for 2xx and out-of-range statuses.
func defaultClass(st int) Class {
	if st < 0 || st >= len(statusClass) {
		return Unknown
	}
	return statusClass[st]
}

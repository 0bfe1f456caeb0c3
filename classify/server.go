package classify

import (
	"net/http"
	"strconv"
)

// A 5xx is server_error only where its body proves nothing else
// (docs/design.md, "A 5xx that proves the request"):
//
//   - 504 and 524 are timeout whatever the body says;
//   - a JSON body that proves a request-scoped class takes it: a strong
//     context_length or refusal code (context_length_exceeded,
//     exceed_context_size_error, content_filter, …), a bad-input code
//     together with the param it names, or a fiveXXPhrases wording (a
//     too-long prompt, TGI's input validation, a batch larger than the
//     server's configured one: overflow, a capability the server lacks:
//     unknown). Self-hosted servers (llama.cpp, LM Studio, Ollama, TGI)
//     send these as 500, and read as server_error one long prompt would
//     cool a healthy local server;
//   - a body that proves the account cannot pay (a strong quota code, or
//     "insufficient balance" and its siblings) is quota: MiniMax sends its
//     balance error as a 500;
//   - a strong rate-limit code (Apigee's policies.ratelimit.QuotaViolation
//     and SpikeArrestViolation, AWS's TooManyRequestsException) is
//     rate_limited: Apigee Edge answers its own policies with a 500;
//   - wording that can only be a refusal (OpenAI's "flagged for possible
//     cybersecurity risk", a provider's moderation) is refusal;
//   - a body that says nothing is served here (no model loaded, a relay with
//     no channel for the model, a model that does not exist; or, where the
//     words say nothing else, a strong not-found code such as
//     model_not_found) is unavailable: TabbyAPI and one-api send these as 503, LocalAI as 500,
//     and read as server_error they would be retried and counted like a
//     fault; where the model is one the client named in another member (a
//     tool's), it is the client's, bad_request;
//   - a timeout code (DEADLINE_EXCEEDED, timeout_error, ModelTimeoutException)
//     or timeout wording is timeout;
//   - anything else, including every weak hint (a param alone, bad-input
//     wording such as "must be", overload and quota words), is server_error.
//
// Overflow is read from a 5xx only where the wording names a limit of the
// server's own configuration (llama.cpp's physical batch size, KoboldCpp's
// max payload size): a generic
// body-size or per-minute cap sent as a 5xx cannot be told from the server
// failing under load. Wording the
// client sent (Response.Request) is no evidence here either, so no client can
// turn a provider's 500 into its own request's fault.

// htmlScan bounds the timeout-wording search in a 5xx page (an HTML page
// names its error in its head).
const htmlScan = 1 << 10

// serverAnswer classifies a 5xx answer.
func serverAnswer(st int, h http.Header, body, req []byte, model string) Verdict {
	if statusClass[st] == Timeout || len(body) == 0 {
		return Verdict{Failed: true, Class: statusClass[st], Evidence: statusEvidence[st]}
	}
	var s scanner
	s.readAnswer(body)
	if !s.f.parsed {
		return fiveXX(st, statusEvidence[st], h, body[:min(len(body), htmlScan)], nil, req, model)
	}
	return fiveXX(st, statusEvidence[st], h, body, &s.f, req, model)
}

// fiveXX classifies a 5xx status (or an error body whose numeric code is
// one, evidence ev) by what its body says; f is nil for a page (HTML) or
// another body neither JSON nor plain text, whose text is then searched for
// timeout wording only. A plain-text body is read as a JSON one's message
// (readAnswer).
func fiveXX(st int, ev string, h http.Header, body []byte, f *facts, req []byte, model string) Verdict {
	// Cannot-pay words beside this one request's price over a balance
	// still positive: the request's size, as at a 402 (priced).
	v := fiveXXRead(st, ev, h, body, f, req, model)
	if f != nil {
		if w := priced(v, f, body, req, model); w != v {
			return withRetry(w, h, f, req)
		}
	}
	return v
}

// fiveXXRead is fiveXX before a quota verdict is checked for a request's
// price (requestPrice).
func fiveXXRead(st int, ev string, h http.Header, body []byte, f *facts, req []byte, model string) Verdict {
	if statusClass[st] == Timeout {
		return Verdict{Failed: true, Class: Timeout, Evidence: ev}
	}
	if f != nil && !f.parsed {
		return Verdict{Failed: true, Class: statusClass[st], Evidence: ev} // an error event or body that says nothing readable: the status's default
	}
	ts := textScan{f: f, body: bodyText(f, body), req: req, model: model}
	if f != nil {
		// The request's own principal or a parameter a relay requires
		// (ownRequestPhrases), in the relay's own 5xx or in the answer it
		// quotes there: the request's, as at any 4xx (probe 65b).
		if v, ok := ownRequest(f, body, req, model); ok {
			return v
		}
		cs := codeScan{req: req}
		cs.allowBad = true
		cs.scan(h, f)
		switch {
		case cs.strongEv != "" && cs.strong == RateLimited:
			// Its wait kept (Retry-After, a hint in the words), and an hour
			// or more read as quota, as at a 429.
			return withRetry(Verdict{Failed: true, Class: RateLimited, Evidence: cs.strongEv}, h, f, req)
		case cs.strongEv != "" && (cs.strong == ContextLength || cs.strong == Refusal || cs.strong == Quota):
			return Verdict{Failed: true, Class: cs.strong, Evidence: cs.strongEv}
		case cs.badEv != "" && clientParam(f):
			return Verdict{Failed: true, Class: BadRequest, Evidence: cs.badEv}
		}
		if rs := ts.relayedStatus(); rs > 0 {
			// A proxy's 5xx that quotes its upstream's 4xx ("Error code: 429 -
			// {…}"): the upstream's answer, read as if it had come itself.
			if statusFixed[rs] {
				return withRetry(echoMark(fixedVerdict(rs, relayedEvidence[rs], f, body, req, model), ts.echo), h, f, req)
			}
			v := decide(statusClass[rs], relayedEvidence[rs], h, body, f, req, model)
			return withRetry(echoMark(v, ts.echo), h, f, req)
		}
		if v, ok := timeoutCode(h, f); ok {
			return v
		}
		// A request carrying a credential of its own (a connector's token):
		// credential and access wording may be about that one (decide.go).
		var skip classMask
		if carriesCredential(req) {
			skip = 1<<Auth | 1<<Forbidden
		}
		if i := ts.pick(fiveXXPhrases, skip); i < len(fiveXXPhrases.list) {
			p := &fiveXXPhrases.list[i]
			if p.class == Unavailable && ts.modelNamed() {
				// A model the client named elsewhere than the top-level model
				// (a tool's), gone: the client's, as in a 4xx (clientmodel.go).
				return echoMark(Verdict{Failed: true, Class: BadRequest, Evidence: notFoundEvidence}, ts.echo)
			}
			return echoMark(Verdict{Failed: true, Class: p.class, Evidence: p.evidence}, ts.echo)
		}
		if cs.strongEv != "" && cs.strong == Unavailable && ts.pick(timeoutPhrases, 0) >= len(timeoutPhrases.list) {
			// A strong not-found code with words that say nothing more, a
			// timeout included (new-api's no-channel 503, code
			// model_not_found, in whatever language the relay's user
			// chose): unavailable, as the words would be in English or
			// Chinese; a model the client named elsewhere, the client's.
			if ts.modelNamed() {
				return Verdict{Failed: true, Class: BadRequest, Evidence: notFoundEvidence}
			}
			return Verdict{Failed: true, Class: Unavailable, Evidence: cs.strongEv}
		}
	}
	if i := ts.pick(timeoutPhrases, 0); i < len(timeoutPhrases.list) {
		if ts.clientURL() {
			// A relay that fetched a URL the client sent (an image) and
			// timed out ("Get \"https://…\": net/http: TLS handshake
			// timeout"): the client's slow host, not the endpoint
			// (review 29d).
			return echoMark(Verdict{Failed: true, Class: Unknown, Evidence: timeoutPhrases.list[i].evidence + "+client-url"}, ts.echo)
		}
		return echoMark(Verdict{Failed: true, Class: Timeout, Evidence: timeoutPhrases.list[i].evidence}, ts.echo)
	}
	// The status's default (status.go): server_error for every 5xx.
	return echoMark(Verdict{Failed: true, Class: statusClass[st], Evidence: ev}, ts.echo)
}

// relayedEvidence holds "relayed:N" for the 4xx and 5xx statuses.
var relayedEvidence = func() (ev [600]string) {
	for st := 400; st < 600; st++ {
		ev[st] = "relayed:" + strconv.Itoa(st)
	}
	return ev
}()

// relayedStatus finds the upstream 4xx a proxy quotes in its message as the
// OpenAI and Anthropic SDKs print an error ("Error code: 429 - {…}"): at the
// start of the message or right after an exception's name
// ("OpenAIException - Error code: …", "APIError: Error code: …"), and
// followed by the upstream's body; 0 for none, or where the client sent
// that text. Anywhere else it is text the server quotes (a model's output it
// failed to parse), no status of its.
func (ts *textScan) relayedStatus() int {
	const p = "error code: "
	for i := 0; i < ts.texts(); i++ {
		t := ts.text(i)
		if rs := ts.sdkStatusLead(t); rs > 0 {
			return rs
		}
		k := indexFold(t, p)
		if k < 0 {
			continue
		}
		d := t[k+len(p):]
		if len(d) < 7 || d[0] != '4' || d[1] < '0' || d[1] > '9' || d[2] < '0' || d[2] > '9' || d[3] != ' ' || d[4] != '-' || d[5] != ' ' ||
			(d[6] != '{' && d[6] != '[') || !relayPrefix(t[wholeQuoted(t):k]) {
			continue
		}
		if len(ts.req) > 0 && echoed(ts.req, t[k:k+len(p)+6]) {
			ts.echo = true
			continue
		}
		return int(d[0]-'0')*100 + int(d[1]-'0')*10 + int(d[2]-'0')
	}
	// A 4xx with its reason phrase before the upstream's body, wherever
	// it stands (phraseStatusBody: TensorZero's "… Error 400 Bad Request
	// from vllm client: {…}").
	for i := 0; i < ts.texts(); i++ {
		t := ts.text(i)
		st, _, _, echo := phraseStatusBody(t, ts.req)
		ts.echo = ts.echo || echo
		if st == 0 {
			continue
		}
		if len(ts.req) > 0 && ts.clientURL() {
			// The client's text, or the status of a resource the client
			// named (a relay that fetched its image): nothing the
			// provider said (as sdkStatusLead).
			ts.echo = true
			continue
		}
		return st
	}
	return 0
}

// relayPrefix reports whether what precedes a relayed status is nothing or
// a relay's labels from the text's start (relayLabel: "litellm.
// BadRequestError: AnthropicException - ", "[groq] upstream error: "): a
// name inside a sentence ("Invalid value: 'XError: ") is the sentence's,
// which may quote the client.
func relayPrefix(before []byte) bool {
	return relayLabel(before) == len(before)
}

// hasSuffixFoldB reports whether b ends with the lower-case ASCII s, case
// aside.
func hasSuffixFoldB(b []byte, s string) bool {
	if len(b) < len(s) {
		return false
	}
	b = b[len(b)-len(s):]
	for i := range s {
		if lowerTab[b[i]] != s[i] {
			return false
		}
	}
	return true
}

// timeoutCode finds a timeout among a body's codes and the AWS error type.
func timeoutCode(h http.Header, f *facts) (Verdict, bool) {
	for _, c := range [...]struct {
		src codeSource
		v   []byte
	}{{srcStatus, f.errStatus}, {srcType, f.errType}, {srcCode, f.errCode}, {srcAmzHeader, f.amzType}} {
		if r, ev, ok := lookupCode(c.src, c.v); ok && r.class == Timeout {
			return Verdict{Failed: true, Class: Timeout, Evidence: ev}, true
		}
	}
	if vs := h["X-Amzn-Errortype"]; len(vs) > 0 {
		if r, ev, ok := lookupCode(srcAmzHeader, []byte(vs[0])); ok && r.class == Timeout {
			return Verdict{Failed: true, Class: Timeout, Evidence: ev}, true
		}
	}
	return Verdict{}, false
}

// echoMark notes in v's evidence that echoed text was discarded.
func echoMark(v Verdict, echo bool) Verdict {
	if echo {
		v.Evidence += "+echo"
	}
	return v
}

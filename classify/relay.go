package classify

import "net/http"

// Relays that print their upstream's status in words of their own, beside
// the SDKs' "Error code: 429 - {…}" (server.go):
//
//   - the OpenAI Node SDK's error message is "<status> <message>" ("400
//     Unable to access model x."); a proxy built on it that rethrows the
//     error as its own 5xx sends that message whole. Read where a message
//     opens with a 4xx status, a blank and a capital (the upstream's own
//     sentence): "400 workers crashed" is prose, no status;
//   - SageMaker's ModelError (424) relays its model container's answer as
//     "Received client error (400) from primary with message \"…\"" or
//     "Received server error (500) from model …": read as that status,
//     where the message opens with it.
//
// Either lead is no evidence where the client's request holds it (echo.go).

// sdkStatusLead returns the 4xx status a message opens with in the Node
// SDK's form, 0 for none or where the client sent that text.
func (ts *textScan) sdkStatusLead(t []byte) int {
	if len(t) < 6 || t[0] != '4' || !digit(t[1]) || !digit(t[2]) || t[3] != ' ' || t[4] < 'A' || t[4] > 'Z' {
		return 0
	}
	e := 5
	for e < len(t) && wordTab[t[e]] == 1 {
		e++
	}
	if len(ts.req) > 0 && echoed(ts.req, t[:e]) {
		ts.echo = true
		return 0
	}
	return int(t[0]-'0')*100 + int(t[1]-'0')*10 + int(t[2]-'0')
}

func digit(c byte) bool { return c >= '0' && c <= '9' }

// modelRelayLeads open a SageMaker ModelError message.
var modelRelayLeads = [...]string{"received client error (", "received server error ("}

// modelRelayedStatus returns the 4xx or 5xx status a message opens with as
// "Received client error (N)" or "Received server error (N)", 0 for none.
func (ts *textScan) modelRelayedStatus() int {
	for i := 0; i < ts.texts(); i++ {
		t := ts.text(i)
		for _, lead := range modelRelayLeads {
			e, ok := prefixAt(t, 0, lead)
			if !ok || e+4 > len(t) || t[e] < '4' || t[e] > '5' || !digit(t[e+1]) || !digit(t[e+2]) || t[e+3] != ')' {
				continue
			}
			if len(ts.req) > 0 && echoed(ts.req, t[:e+4]) {
				ts.echo = true
				continue
			}
			return int(t[e]-'0')*100 + int(t[e+1]-'0')*10 + int(t[e+2]-'0')
		}
	}
	return 0
}

// relayedByModel classifies a 4xx whose message relays its model's status
// (SageMaker's ModelError) as that status; ok is false where it relays none.
func relayedByModel(h http.Header, body []byte, f *facts, req []byte, model string) (Verdict, bool) {
	ts := textScan{f: f, body: bodyText(f, body), req: req}
	rs := ts.modelRelayedStatus()
	switch {
	case rs >= 500:
		return echoMark(fiveXX(rs, relayedEvidence[rs], h, body, f, req, model), ts.echo), true
	case rs >= 400 && statusFixed[rs]:
		return withRetry(echoMark(Verdict{Failed: true, Class: statusClass[rs], Evidence: relayedEvidence[rs]}, ts.echo), h, f, req), true
	case rs >= 400:
		return withRetry(echoMark(decide(statusClass[rs], relayedEvidence[rs], h, body, f, req, model), ts.echo), h, f, req), true
	}
	return Verdict{}, false
}

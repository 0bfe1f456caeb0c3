package classify

import (
	"bytes"
	"net/http"
)

// Relays that print their upstream's status in words of their own, beside
// the SDKs' "Error code: 429 - {…}" (server.go):
//
//   - the OpenAI Node SDK's error message is "<status> <message>" ("400
//     Unable to access model x."); a proxy built on it that rethrows the
//     error as its own 5xx sends that message whole. Read where a message
//     opens with a 4xx status, a blank and a capital (the upstream's own
//     sentence): "400 workers crashed" is prose, no status. FastAPI prints
//     its HTTPException as "<status>: <detail>", and a server that catches
//     every exception and raises a 500 with that text ({"detail":"400: No
//     messages provided"}, LightRAG's Ollama-compatible API) relays its own
//     4xx the same way: read alike, with the colon;
//   - SageMaker's ModelError (424) relays its model container's answer as
//     "Received client error (400) from primary with message \"…\"" or
//     "Received server error (500) from model …": read as that status,
//     where the message opens with it.
//
// Either lead is no evidence where the client's request holds it (echo.go),
// nor where the message names a URL the client's request holds: the status
// of the client's resource, not the provider's (review 32a).

// sdkStatusLead returns the 4xx status a message opens with in the Node
// SDK's form, 0 for none or where the client sent that text.
// The message may open with a relay's labels (relayLabel) before it; the
// echo check reads from after them (labelledEcho).
func (ts *textScan) sdkStatusLead(t []byte) int {
	k := 0
	if len(t) < 6 || t[0] != '4' {
		k = relayLabel(t)
	}
	d := t[k:]
	w := 4 // where the upstream's sentence starts
	if len(d) > 5 && d[3] == ':' {
		w = 5 // "400: No messages provided"
	}
	if len(d) < w+2 || d[0] != '4' || !digit(d[1]) || !digit(d[2]) || d[w-1] != ' ' || d[w] < 'A' || d[w] > 'Z' {
		return 0
	}
	e := k + w + 1
	for e < len(t) && wordTab[t[e]] == 1 {
		e++
	}
	if len(ts.req) > 0 && (echoed(ts.req, t[k:e]) || ts.clientURL()) {
		// The client's text, or the status of a resource the client named
		// (Python requests' "401 Client Error: Unauthorized for url:
		// https://img…", a server that fetched the client's image):
		// nothing the provider said (review 32a).
		ts.echo = true
		return 0
	}
	return int(d[0]-'0')*100 + int(d[1]-'0')*10 + int(d[2]-'0')
}

func digit(c byte) bool { return c >= '0' && c <= '9' }

// colonStatusLead returns the 4xx or 5xx status f's first message opens
// with as "NNN: " and a letter ("400: Invalid value: …"), 0 for none;
// echo reports a lead the client's request holds with the words after it
// (its first 48 bytes): the client's own text, which says nothing of the
// upstream.
func colonStatusLead(f *facts, req []byte) (status int, echo bool) {
	if f.nTexts == 0 {
		return 0, false
	}
	t := f.texts[0]
	if len(t) < 6 || t[0] < '4' || t[0] > '5' || !digit(t[1]) || !digit(t[2]) || t[3] != ':' || t[4] != ' ' || wordTab[t[5]] == 0 || digit(t[5]) {
		return 0, false
	}
	if len(req) > 0 && (echoed(req, t[:min(len(t), 48)]) || namesClientURL(t, req)) {
		// A 4xx the client wrote, or one a resource the client named
		// answered (review 32a), says nothing of the upstream; a 5xx lead
		// it wrote changes nothing either: the event stays the server's.
		return 0, t[0] == '4'
	}
	return int(t[0]-'0')*100 + int(t[1]-'0')*10 + int(t[2]-'0'), false
}

// modelRelayLeads open a SageMaker ModelError message.
var modelRelayLeads = [...]string{"received client error (", "received server error ("}

// modelRelayedStatus returns the 4xx or 5xx status a message opens with as
// "Received client error (N)" or "Received server error (N)", a relay's
// labels aside (relayLabel), 0 for none.
func (ts *textScan) modelRelayedStatus() int {
	for i := 0; i < ts.texts(); i++ {
		t := ts.text(i)
		k := relayLabel(t)
		for _, lead := range modelRelayLeads {
			e, ok := prefixAt(t, k, lead)
			if !ok || e+4 > len(t) || t[e] < '4' || t[e] > '5' || !digit(t[e+1]) || !digit(t[e+2]) || t[e+3] != ')' {
				continue
			}
			if len(ts.req) > 0 && (echoed(ts.req, t[k:e+4]) || ts.clientURL()) { // labelledEcho; a client's resource (review 32a)
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
		return withRetry(echoMark(fixedVerdict(rs, relayedEvidence[rs], f, body, req, model), ts.echo), h, f, req), true
	case rs >= 400:
		return withRetry(echoMark(decide(statusClass[rs], relayedEvidence[rs], h, body, f, req, model), ts.echo), h, f, req), true
	}
	return Verdict{}, false
}

// labelledEcho: a lead read past a relay's labels is looked for in the
// client's request without them. The labels are the relay's words, or the
// upstream's way of quoting (a list's "['", a whole message's quote), which
// the client never wrote as such: text the client sent that follows them
// ("Received client error (401) …" as the first of its stop sequences, in
// "['…', 'b'] is too long") would otherwise not be found, and decide.

// maxLabels bounds the relay labels read before a message.
const maxLabels = 6

// relayLabel returns the length of the labels a relay (or a chain of them)
// puts before the message it passes on, 0 for none. A label is
//
//   - a bracketed tag and a blank: "[groq] ", "[RID: 42] ";
//   - one or more exceptions' names (a name ending in Error or Exception),
//     after at most one plain word, and a separator ": " or " - ":
//     "litellm.APIError: ", "AzureException RateLimitError - ", "openai
//     error: " (Portkey), "upstream error: ", "Upstream error from
//     Alibaba: " (a name after "from" too);
//   - OpenRouter's "Provider returned error: ", done-hub's "Provider API
//     error: " (deanxv/done-hub; corpus donehub-400-…);
//   - claude-code-router's "Error from provider(<name>,<model>: <status>): "
//     (musistudio/claude-code-router; corpus ccr-modelscope-…): a name after
//     "from" may be followed by a parenthesised list of what the relay
//     routed to, on one line, holding no quote, brace or bracket (probe
//     65a: the whole relay's quoted answers were read as prose before).
//
// A sentence is none ("Tool call error: " has two plain words): what
// follows a sentence's colon may be text the server quotes. The opening
// quote of a text quoted whole (wholeQuoted) comes before them.
func relayLabel(t []byte) int {
	i := wholeQuoted(t)
	for n := 0; n < maxLabels && i < len(t); n++ {
		e := oneLabel(t[i:])
		if e == 0 {
			break
		}
		i += e
	}
	return i
}

// oneLabel returns the length of the relay label t opens with, 0 for none.
func oneLabel(t []byte) int {
	if t[0] == '[' {
		k := bytes.IndexByte(t[:min(len(t), 50)], ']')
		if k < 2 || bytes.IndexByte(t[1:k], '\n') >= 0 || bytes.IndexByte(t[1:k], '[') >= 0 || quoteIn(t[1:k]) {
			return 0
		}
		e := k + 1
		for e < len(t) && t[e] == ' ' {
			e++
		}
		if e == k+1 {
			return 0
		}
		return e
	}
	i := 0
	if e, ok := prefixAt(t, 0, "provider returned error"); ok {
		i = e
	} else if e, ok := prefixAt(t, 0, "provider api error"); ok {
		i = e
	} else {
		i = labelWord(t, 0)
		names := 0
		if i > 0 && exceptionName(t[:i]) {
			names++
		}
		for i > 0 && i < len(t) && t[i] == ' ' {
			e := labelWord(t, i+1)
			if e == i+1 || !exceptionName(t[i+1:e]) {
				break
			}
			names++
			i = e
		}
		if names == 0 {
			return 0
		}
		if e, ok := prefixAt(t, i, " from "); ok && t[i] == ' ' && t[e-1] == ' ' {
			if w := labelWord(t, e); w > e {
				i = w + routedList(t[w:])
			}
		}
	}
	switch {
	case bytes.HasPrefix(t[i:], []byte(": ")):
		return i + 2
	case bytes.HasPrefix(t[i:], []byte(" - ")):
		return i + 3
	}
	return 0
}

// routedList returns the length of the parenthesised list t opens with
// ("(modelscope,Qwen/Qwen3-Coder: 400)", claude-code-router's provider,
// model and status after "Error from provider"), 0 for none: at most 120
// bytes on one line, with no quote, brace, bracket or second parenthesis,
// so that no text a server quotes (a client's value, an object) is taken
// for the relay's label.
func routedList(t []byte) int {
	if len(t) < 3 || t[0] != '(' {
		return 0
	}
	for k := 1; k < len(t) && k <= 120; k++ {
		switch c := t[k]; {
		case c == ')':
			if k == 1 {
				return 0
			}
			return k + 1
		case c == '\n' || c == '\\' || c == '"' || c == '\'' || c == '`' || c == '(' || c == '{' || c == '[' || c == '}' || c == ']':
			return 0
		}
	}
	return 0
}

// quoteIn reports a quote in a bracketed tag: '"`, or a typographic one
// (‘ ’ “ ”). A relay's tag holds none ("[groq]", "[RID: 42]", "[address=…,
// pid=…]"); a list a server prints holds its items quoted ("['a', 'b'] is
// too long", `["a", "b"]`), the first of them the client's, whose "]" would
// otherwise close a tag and make what the client wrote after it a relayed
// message's opening (a quoted answer joined from two of its items).
func quoteIn(b []byte) bool {
	for i, c := range b {
		switch {
		case c == '\'' || c == '"' || c == '`':
			return true
		case c == 0xE2 && i+2 < len(b) && b[i+1] == 0x80 && b[i+2] >= 0x98 && b[i+2] <= 0x9F:
			return true
		}
	}
	return false
}

// labelWord returns the end of the name that starts at t[i] (letters,
// digits, '.', '_', '-'), i for none.
func labelWord(t []byte, i int) int {
	for i < len(t) && (wordTab[t[i]] == 1 || t[i] == '.' || t[i] == '_' || t[i] == '-') {
		i++
	}
	return i
}

// exceptionName reports a name ending in Error or Exception, case aside.
func exceptionName(w []byte) bool {
	return hasSuffixFoldB(w, "error") || hasSuffixFoldB(w, "exception")
}

// wholeQuoted returns the length of the opening quote of a text quoted
// whole, as a relay that encodes a message string twice writes it
// ("\"Invalid token\"", the quotes escaped inside a JSON string, bare in a
// plain-text body), 0 for a text that is not.
func wholeQuoted(t []byte) int {
	e := len(t)
	for e > 0 && (t[e-1] == ' ' || t[e-1] == '\n' || t[e-1] == '\r') {
		e--
	}
	for _, q := range [...]string{`\"`, `"`} {
		if e >= 2*len(q)+1 && string(t[:len(q)]) == q && string(t[e-len(q):e]) == q && (len(q) == 2 || t[e-2] != '\\') {
			return len(q)
		}
	}
	return 0
}

// A relay that prints its upstream's status the way HTTP libraries print
// one, the status and its reason phrase ("400 Bad Request", Rust's
// StatusCode and Go's resp.Status alike), and then the upstream's body
// (TensorZero: "All variants failed with errors: <variant>: All model
// providers failed to infer with errors: <provider>: Error 400 Bad Request
// from <provider> client: {…}", its older "Invalid status code: 400 Bad
// Request\nRaw response: {…}"), relays that status wherever it stands in
// its message: a 4xx with its exact canonical phrase (net/http.StatusText,
// case aside), a short connector and an object is no prose. Where several
// are quoted (one per variant), the last decides, as TensorZero's own
// underlying_status_code does. Read in a 5xx only (server.go, inner.go),
// and no evidence where the client's request holds it (echo.go).

// phraseStatusBody returns the last 4xx status in t written with its
// reason phrase and followed by a connector and an object's '{' that the
// client's request req does not hold: the status, where its digits start
// and where the '{' is (st 0 for none), and echo, whether one the client
// wrote was passed over. Passed over, not taken for the end: a client's
// "401 Unauthorized: {" echoed after the relay's genuine one would
// otherwise hide it (hostile 52b).
func phraseStatusBody(t, req []byte) (st, at, brace int, echo bool) {
	for i := 0; i+4 < len(t); i++ {
		j := bytes.IndexByte(t[i:], '4')
		if j < 0 {
			break
		}
		i += j
		if i+4 >= len(t) || !digit(t[i+1]) || !digit(t[i+2]) || t[i+3] != ' ' || i > 0 && wordTab[t[i-1]] == 1 {
			continue
		}
		code := int(t[i+1]-'0')*10 + int(t[i+2]-'0') + 400
		reason := http.StatusText(code)
		p := i + 4
		if reason == "" || len(t)-p < len(reason) || !eqFold(t[p:p+len(reason)], reason) {
			continue
		}
		b := statusConnector(t, p+len(reason))
		if b > 0 {
			b = arrayObject(t, b)
		}
		if b <= 0 || b >= len(t) || t[b] != '{' {
			continue
		}
		if len(req) > 0 && echoed(req, t[i:b]) {
			echo = true
			continue
		}
		st, at, brace = code, i, b
	}
	return st, at, brace, echo
}

// arrayObject returns where the object opens when t[b:] opens a JSON array
// of objects (Gemini streams its errors as [{"error": …}], which a relay
// quotes as it came: "HTTP 400 Bad Request: [{…}]"; probe 65a), blanks
// after the bracket aside, as written or escaped; b otherwise. Only the
// first object is read (inner.go, arrayOpen).
func arrayObject(t []byte, b int) int {
	if b >= len(t) || t[b] != '[' {
		return b
	}
	k := b + 1
	for k < len(t) {
		switch {
		case t[k] == ' ' || t[k] == '\n' || t[k] == '\r' || t[k] == '\t':
			k++
		case t[k] == '\\' && k+1 < len(t) && (t[k+1] == 'n' || t[k+1] == 'r' || t[k+1] == 't'):
			k += 2
		default:
			if t[k] == '{' {
				return k
			}
			return b
		}
	}
	return b
}

// phraseStatusTail returns where the 4xx, its reason phrase and the
// connector that end lead begin (phraseStatusBody's, lead ending where
// the object opens), -1 for none.
func phraseStatusTail(lead []byte) int {
	lead = arrayOpen(lead) // "…: [" before a quoted array's object
	for i := len(lead) - 4; i >= 0; i-- {
		if lead[i] != '4' || !digit(lead[i+1]) || !digit(lead[i+2]) || lead[i+3] != ' ' || i > 0 && wordTab[lead[i-1]] == 1 {
			continue
		}
		reason := http.StatusText(400 + int(lead[i+1]-'0')*10 + int(lead[i+2]-'0'))
		p := i + 4
		if reason != "" && len(lead)-p >= len(reason) && eqFold(lead[p:p+len(reason)], reason) && statusConnector(lead, p+len(reason)) == len(lead) {
			return i
		}
	}
	return -1
}

// statusConnector returns where the connector after a status's reason
// phrase at t[p:] ends, where the object should open: after ": ", " - ",
// " from <name> client: " or a line break (raw or escaped) and "Raw
// response: "; 0 for none.
func statusConnector(t []byte, p int) int {
	r := t[p:]
	var n int
	switch {
	case bytes.HasPrefix(r, []byte(": ")):
		n = 2
	case bytes.HasPrefix(r, []byte(" - ")):
		n = 3
	case prefixFold(r, "\nraw response: "):
		n = len("\nRaw response: ")
	case len(r) > 2 && r[0] == '\\' && r[1] == 'n' && prefixFold(r[2:], "raw response: "):
		n = len(`\nRaw response: `)
	case prefixFold(r, " from "):
		w := len(" from ")
		e := w
		for e < len(r) && e-w < 40 && (wordTab[r[e]] == 1 || r[e] == '-' || r[e] == '.' || r[e] == '_') {
			e++
		}
		if e == w || !prefixFold(r[e:], " client: ") {
			return 0
		}
		n = e + len(" client: ")
	default:
		return 0
	}
	return p + n
}

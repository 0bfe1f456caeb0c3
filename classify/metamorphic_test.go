package classify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Metamorphic tests over the corpus: a real answer's human message, put into
// another envelope or decorated as relays decorate it, means what it meant.

// jsonText is s as a JSON string, as servers write it (no HTML escaping).
func jsonText(s string) string {
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(s); err != nil {
		panic(err)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// metaCase is a corpus answer whose class its human message decides: the
// message alone, in a plain OpenAI envelope ({"error":{"message":M}}) under
// the same status (and the same headers, request and model), gets the class
// the answer gets. Known misses are left out (their class is in doubt).
type metaCase struct {
	name string
	c    corpusCase
	msg  string
	want Verdict
	// byWords: in that envelope the words decide, not the status's (or an
	// error-in-a-2xx's) default. Where an envelope's own default differs
	// by design (a lone {"message":M} in a 2xx is unknown, an error object
	// there server_error), only such a case says anything.
	byWords bool
	// at200: the message in an OpenAI envelope in a 200 gets the class too
	// (an error event in a stream then should); free: and there, without
	// the headers, its words decide, so they do whatever the status (some
	// words are read only under some statuses: a 5xx's own list, "too many
	// tokens" on a 429).
	at200, free bool
}

// corpusMessage is the human message of a corpus answer: its first text,
// or a short plain-text body whole; "" for none.
func corpusMessage(c corpusCase) string {
	if m := Message([]byte(c.Body)); m != "" {
		return m
	}
	t := strings.TrimSpace(c.Body)
	if c.Stream || t == "" || strings.ContainsAny(t[:1], "{[<") || len(t) > 1024 {
		return ""
	}
	return t
}

func openaiEnvelope(m string) string { return `{"error":{"message":` + jsonText(m) + `}}` }

func (mc metaCase) with(status int, body string, stream bool) Response {
	r := mc.c.response()
	r.Status, r.Body, r.Stream = status, []byte(body), stream
	return r
}

// defaultEvidence reports evidence naming a status or an envelope's
// default rather than anything the words said.
func defaultEvidence(ev string, st int) bool {
	switch ev {
	case statusEvidence[st], "body:error", "stream:error", "body:message", "body:status", "body:code":
		return true
	}
	return false
}

// wordsEvidence reports evidence read from the words of a message: a
// phrase, a quota metric's period, a field path or location it names.
func wordsEvidence(ev string) bool {
	for _, p := range []string{"phrase:", "quota-metric:", "message:"} {
		if strings.HasPrefix(ev, p) {
			return true
		}
	}
	return false
}

var metaCorpus []metaCase

func metaCases(t testing.TB) []metaCase {
	if metaCorpus != nil {
		return metaCorpus
	}
	var out []metaCase
	for name, c := range loadCorpus(t) {
		if c.Miss != "" {
			continue
		}
		m := corpusMessage(c)
		if m == "" {
			continue
		}
		mc := metaCase{name: name, c: c, msg: m, want: Classify(c.response())}
		st := c.Status
		base := Classify(mc.with(st, openaiEnvelope(m), false))
		if base.Failed != mc.want.Failed || base.Class != mc.want.Class {
			continue
		}
		mc.byWords = !defaultEvidence(base.Evidence, st)
		if got := Classify(mc.with(200, openaiEnvelope(m), false)); got.Failed && got.Class == mc.want.Class {
			mc.at200 = true
		}
		r := mc.with(200, openaiEnvelope(m), false)
		r.Header = nil
		if got := Classify(r); got.Failed && got.Class == mc.want.Class && wordsEvidence(got.Evidence) {
			mc.free = true
		}
		out = append(out, mc)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	metaCorpus = out
	return out
}

// variant is one transform of a metaCase's answer.
type variant struct {
	axis, name string
	r          Response
}

// relayDecorations are what relays write around the message they pass on:
// one-api and new-api append the request id; relays and proxies put their
// own label before it.
var relayDecorations = []struct{ name, pre, post string }{
	{"request id", "", " (request id: 2025010112000012345678)"},
	{"upstream error", "upstream error: ", ""},
	{"provider returned", "Provider returned error: ", ""},
	{"[groq]", "[groq] ", ""},
	{"litellm", "litellm.APIError: ", ""},
	{"Error:", "Error: ", ""},
	{"exception", "OpenAIException - ", ""},
	{"model group", "", " Received Model Group=gpt-4o\nAvailable Model Group Fallbacks=None"},
	{"newline", "", "\n"},
	{"crlf", "", "\r\n"},
	{"dot", "", " ."},
	// A relay that encodes the message string twice quotes it whole.
	{"quoted whole", `"`, `"`},
}

// apostrophe is an apostrophe inside a word ("doesn't"), not a quote mark.
var apostrophe = regexp.MustCompile(`(\pL)'(\pL)`)

func firstUpper(s string) string {
	s = strings.ToLower(s)
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}

// statusLead matches a message that opens with a status and a capital, the
// OpenAI Node SDK's "400 Unable to …" (relay.go): the capital is what tells
// it from prose ("400 workers crashed"), so its case is meaning.
var statusLead = regexp.MustCompile(`^[45][0-9][0-9] \p{Lu}`)

// metaVariants are the transforms of mc's answer that should not change its
// meaning (each axis says why in its comment).
func metaVariants(mc metaCase) []variant {
	m, st := mc.msg, mc.c.Status
	twoXX := st >= 200 && st < 300
	var vs []variant
	add := func(axis, name string, status int, body string, stream bool) {
		vs = append(vs, variant{axis, name, mc.with(status, body, stream)})
	}

	// Envelope swap: the same message in the envelopes relays and
	// self-hosted servers write, same status. In a 2xx an envelope's own
	// structure decides whether it is an error at all, so only those that
	// say so are tried there: a 2xx in plain text is an answer, a problem
	// document whose status is 200 is none, and {"errors":[…]} without
	// Cloudflare's "success":false marks nothing. A lone message in a 2xx
	// defaults to unknown (scan.go, statusEnvelope) where an error object
	// defaults to server_error: only words that decide are compared there.
	add("envelope", "error string", st, `{"error":`+jsonText(m)+`}`, false)
	add("envelope", "typed", st, `{"error":{"message":`+jsonText(m)+`,"type":"error"}}`, false)
	add("envelope", "nulls", st, `{"error":{"message":`+jsonText(m)+`,"type":null,"param":null,"code":null}}`, false)
	add("envelope", "anthropic", st, `{"type":"error","error":{"message":`+jsonText(m)+`}}`, false)
	add("envelope", "code", st, fmt.Sprintf(`{"error":{"code":%d,"message":%s}}`, st, jsonText(m)), false)
	add("envelope", "array", st, "["+openaiEnvelope(m)+"]", false)
	if !twoXX || mc.byWords {
		add("envelope", "message", st, `{"message":`+jsonText(m)+`}`, false)
		add("envelope", "detail", st, `{"detail":`+jsonText(m)+`}`, false)
	}
	if !twoXX {
		add("envelope", "rfc7807", st, fmt.Sprintf(`{"type":"about:blank","title":%s,"status":%d,"detail":%s}`, jsonText(http.StatusText(st)), st, jsonText(m)), false)
		add("envelope", "errors[]", st, `{"errors":[{"message":`+jsonText(m)+`}]}`, false)
		// JSON:API's error object (jsonapi.org, "Error Objects": the
		// explanation in detail) and Apigee's fault (Google Cloud's API
		// gateway in front of an enterprise's endpoints: the explanation
		// in faultstring, the policy's code in detail.errorcode).
		add("envelope", "json:api", st, fmt.Sprintf(`{"errors":[{"status":"%d","detail":%s}]}`, st, jsonText(m)), false)
		add("envelope", "apigee fault", st, `{"fault":{"faultstring":`+jsonText(m)+`,"detail":{"errorcode":"steps.javascript.ScriptError"}}}`, false)
		// A message that is itself a JSON document (a relay's quoted answer)
		// is a JSON body when sent alone, not plain text: left out.
		if !json.Valid([]byte(m)) {
			add("envelope", "text/plain", st, m, false)
		}
	}
	// An error event in a 200 stream, for a message that decides its class
	// in a 200 too (where the status decided, a stream's 200 cannot).
	if mc.at200 {
		add("sse", "data", 200, "data: "+openaiEnvelope(m)+"\n\n", true)
		add("sse", "event: error", 200, "event: error\ndata: "+openaiEnvelope(m)+"\n\n", true)
		add("sse", "data, no blank", 200, "data:"+openaiEnvelope(m)+"\n\n", true)
	}
	// Relay decorations around the message, in the OpenAI envelope.
	for _, d := range relayDecorations {
		add("decoration", d.name, st, openaiEnvelope(d.pre+m+d.post), false)
	}
	// Escapes: the same JSON as other encoders write it — PHP's json_encode
	// escapes every slash, Python's json.dumps every character beyond
	// ASCII, Go's encoding/json <, > and &, Java's Gson those and = and ' —
	// is the same answer (left out where escaping pushes it past the 4 KiB
	// the classifier reads).
	for _, e := range [...]struct {
		name string
		f    func(string) string
	}{{"slashes", func(s string) string { return strings.ReplaceAll(s, "/", `\/`) }}, {"ascii", asciiJSON}, {"html", htmlJSON}, {"gson", gsonJSON}} {
		if env := openaiEnvelope(m); e.f(env) != env && len(e.f(env)) <= MaxBody {
			add("escape", e.name, st, e.f(env), false)
		}
	}
	// Typeset text: an apostrophe inside a word written as ’ (U+2019).
	if t := apostrophe.ReplaceAllString(m, "$1\u2019$2"); t != m {
		add("typeset", "apostrophe", st, openaiEnvelope(t), false)
	}
	// Lines: a sentence's break written as a newline.
	if strings.Contains(m, ". ") {
		add("typeset", "line breaks", st, openaiEnvelope(strings.ReplaceAll(m, ". ", ".\n")), false)
	}
	// Blanks: a message whose every blank is two ("Quota limit  exceeded",
	// as some gateways write) says the same.
	add("typeset", "two blanks", st, openaiEnvelope(strings.ReplaceAll(m, " ", "  ")), false)
	// Case: words mean the same in lower case or with only their first
	// letter capitalised; not a message opening with a status and a
	// capital (statusLead), nor one opening with a field path, whose
	// name's case is the name.
	if !statusLead.MatchString(m) && !fieldPathPrefix([]byte(m)) {
		add("case", "lower", st, openaiEnvelope(strings.ToLower(m)), false)
		add("case", "first upper", st, openaiEnvelope(firstUpper(m)), false)
	}
	// Names: what an answer says of one request id or one model it says of
	// another; no rule may key on a particular name.
	// An id the client sent is renamed in its request too.
	rename := func(s string) string {
		return idToken.ReplaceAllStringFunc(s, func(id string) string {
			// The model's name, or a part of it between slashes
			// ("Qwen/Qwen3-Coder-480B-A35B-Instruct"), is no request id.
			if mc.c.Model != "" && (strings.Contains(id, mc.c.Model) || strings.Contains(mc.c.Model, id)) {
				return id
			}
			return rotateID(id)
		})
	}
	if t := rename(m); t != m {
		r := mc.with(st, openaiEnvelope(t), false)
		r.Request = []byte(rename(string(r.Request)))
		vs = append(vs, variant{"names", "request id", r})
	}
	if mdl := mc.c.Model; len(mdl) >= 3 && strings.Contains(m, mdl) {
		r := mc.with(st, openaiEnvelope(strings.ReplaceAll(m, mdl, "acme-lm-2")), false)
		r.Model = "acme-lm-2"
		r.Request = []byte(strings.ReplaceAll(string(r.Request), mdl, "acme-lm-2"))
		vs = append(vs, variant{"names", "model", r})
	}
	// The status carried in the body under an HTTP 200, as OpenRouter does
	// ({"error":{"code":402,…}}: the code stands for the status,
	// blocks.go, errorIn2xx). A vendor's own {status, msg} envelope is read
	// as an error but its number is the vendor's, not HTTP's (scan.go): it
	// is tried only where the words decide whatever the status.
	if st >= 400 {
		add("status in body", "error.code", 200, fmt.Sprintf(`{"error":{"message":%s,"code":%d}}`, jsonText(m), st), false)
		if mc.free {
			add("status in body", "status+msg", 200, fmt.Sprintf(`{"status":%d,"msg":%s}`, st, jsonText(m)), false)
		}
	}
	return vs
}

// asciiJSON is JSON text s with every character beyond ASCII written as
// a \u escape (a pair of them beyond the BMP), as Python's json.dumps
// writes it by default.
func asciiJSON(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r < utf8.RuneSelf:
			b.WriteRune(r)
		case r > 0xFFFF:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}

// htmlJSON is JSON text s with <, > and & written as \u escapes, as Go's
// encoding/json writes them by default (outside strings JSON has none).
func htmlJSON(s string) string {
	return strings.NewReplacer("<", `\u003c`, ">", `\u003e`, "&", `\u0026`).Replace(s)
}

// gsonJSON is JSON text s as Java's Gson writes it by default: <, >, &, =
// and ' as \u escapes.
func gsonJSON(s string) string {
	return strings.NewReplacer("<", `\u003c`, ">", `\u003e`, "&", `\u0026`, "=", `\u003d`, "'", `\u0027`).Replace(s)
}

// idToken is an identifier as answers print them (request ids, trace ids,
// organisation ids): 16 or more letters, digits, '-' and '_', with a digit
// and a letter among them.
var idToken = regexp.MustCompile(`[A-Za-z0-9_-]{16,}`)

// rotateID is id with every letter and digit moved one on (z to a, 9 to
// 0): another id of the same shape. A token of letters alone, or digits
// alone, is a word or a number, left as it is.
func rotateID(id string) string {
	if !strings.ContainsAny(id, "0123456789") || strings.IndexFunc(id, unicode.IsLetter) < 0 {
		return id
	}
	b := []byte(id)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z':
			b[i] = 'a' + (c-'a'+1)%26
		case c >= 'A' && c <= 'Z':
			b[i] = 'A' + (c-'A'+1)%26
		case c >= '0' && c <= '9':
			b[i] = '0' + (c-'0'+1)%10
		}
	}
	return string(b)
}

// relayedGap is the one difference a relay's decoration may make on
// purpose: a field path that no longer opens the message (it follows the
// relay's label) does not outweigh a capability gap the message states
// (decide.go, refine), as for a quoted answer (TestCorpusReadsQuotedAnswers):
// the relayed answer moves on (unknown) where, sent directly, it stops
// (bad_request).
func relayedGap(want, got Verdict) bool {
	return want.Class == BadRequest && (want.Evidence == "openai:param" || want.Evidence == "message:field-path") &&
		got.Class == Unknown && strings.HasPrefix(got.Evidence, "phrase:")
}

// TestCorpusMetamorphic: every corpus answer whose message decides its class
// keeps that class when the message is put in another envelope, decorated
// by a relay, written in another case or with other ids and model names in
// it (renamed in the request too), and when its status travels in
// the body of a 200 (metaVariants says which transforms each axis makes,
// and which it leaves out because they change the meaning).
func TestCorpusMetamorphic(t *testing.T) {
	cases := metaCases(t)
	if len(cases) < 700 {
		t.Fatalf("only %d corpus answers whose message decides", len(cases))
	}
	tested, changed := map[string]int{}, map[string]int{}
	for _, mc := range cases {
		for _, v := range metaVariants(mc) {
			k := v.axis + "/" + v.name
			tested[k]++
			got := Classify(v.r)
			if got.Failed == mc.want.Failed && got.Class == mc.want.Class {
				continue
			}
			if v.axis == "decoration" && relayedGap(mc.want, got) {
				continue
			}
			changed[k]++
			t.Errorf("%s, %s: %s (%s); as written, %s (%s)\n%.300s", mc.name, k, got.Class, got.Evidence, mc.want.Class, mc.want.Evidence, v.r.Body)
		}
	}
	// Layout: a JSON answer re-serialised by a relay, indented or compact,
	// or opening with a UTF-8 byte order mark (.NET's writers add one), is
	// the same answer (left out where indenting pushes it past the 4 KiB
	// the classifier reads).
	for name, c := range loadCorpus(t) {
		if c.Stream || c.Miss != "" || !json.Valid([]byte(c.Body)) {
			continue
		}
		want := Classify(c.response())
		var in, co, bo bytes.Buffer
		for k, b := range map[string]*bytes.Buffer{"indent": &in, "compact": &co, "byte order mark": &bo} {
			var err error
			switch k {
			case "indent":
				err = json.Indent(b, []byte(c.Body), "", "  ")
			case "compact":
				err = json.Compact(b, []byte(c.Body))
			default:
				b.WriteString("\ufeff" + c.Body)
			}
			if err != nil || b.Len() > MaxBody || b.String() == c.Body {
				continue
			}
			tested["layout/"+k]++
			r := c.response()
			r.Body = b.Bytes()
			if got := Classify(r); got.Failed != want.Failed || got.Class != want.Class {
				changed["layout/"+k]++
				t.Errorf("%s, layout/%s: %s (%s); as written, %s (%s)", name, k, got.Class, got.Evidence, want.Class, want.Evidence)
			}
		}
	}
	keys := make([]string, 0, len(tested))
	for k := range tested {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		t.Logf("%-28s tested %4d changed %d", k, tested[k], changed[k])
	}
}

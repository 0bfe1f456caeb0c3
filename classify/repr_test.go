package classify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// pyRepr writes JSON document b as Python writes the repr of json.loads(b)
// (the quote Python picks for each string, its escapes, True/False/None).
func pyRepr(b []byte) (string, bool) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var out strings.Builder
	var val func() bool
	val = func() bool {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' {
				out.WriteByte('{')
				first := true
				for d.More() {
					if !first {
						out.WriteString(", ")
					}
					first = false
					k, err := d.Token()
					if err != nil {
						return false
					}
					out.WriteString(pyStr(k.(string)))
					out.WriteString(": ")
					if !val() {
						return false
					}
				}
				d.Token()
				out.WriteByte('}')
			} else {
				out.WriteByte('[')
				first := true
				for d.More() {
					if !first {
						out.WriteString(", ")
					}
					first = false
					if !val() {
						return false
					}
				}
				d.Token()
				out.WriteByte(']')
			}
		case string:
			out.WriteString(pyStr(v))
		case json.Number:
			out.WriteString(v.String())
		case bool:
			if v {
				out.WriteString("True")
			} else {
				out.WriteString("False")
			}
		case nil:
			out.WriteString("None")
		}
		return true
	}
	if !val() {
		return "", false
	}
	return out.String(), true
}

// pyStr is Python's repr of the str s.
func pyStr(s string) string {
	q := byte('\'')
	if strings.Contains(s, "'") && !strings.Contains(s, `"`) {
		q = '"'
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range s {
		switch {
		case r == '\\':
			b.WriteString(`\\`)
		case r == rune(q):
			b.WriteString(`\` + string(q))
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02x`, r)
		case !strconv.IsPrint(r) && r > 0x7f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// TestReprJSONReadsWhatPythonPrints: every JSON answer of the corpus,
// printed as Python prints the dict it decodes to, reads back as the same
// JSON document.
func TestReprJSONReadsWhatPythonPrints(t *testing.T) {
	n := 0
	for name, c := range loadCorpus(t) {
		if !strings.HasPrefix(c.Body, "{") || !json.Valid([]byte(c.Body)) {
			continue
		}
		rep, ok := pyRepr([]byte(c.Body))
		if !ok || rep[1] != '\'' {
			continue
		}
		got, end, ok := reprJSON(nil, []byte(rep+" and after"))
		var want, have any
		json.Unmarshal([]byte(c.Body), &want)
		if !ok || end != len(rep) || json.Unmarshal(got, &have) != nil || !reflect.DeepEqual(want, have) {
			t.Errorf("%s: %t %d/%d\n%s\n%s", name, ok, end, len(rep), rep, got)
		}
		n++
	}
	if n < 900 {
		t.Fatalf("only %d answers read", n)
	}
}

// quotable reports whether a relay may quote c whole: a JSON object that
// is an error answer, with no headers and not itself a relay's.
func quotable(c corpusCase) bool {
	return !c.Stream && c.Status >= 400 && c.Miss == "" && len(c.Headers) == 0 && strings.HasPrefix(c.Body, "{") &&
		json.Valid([]byte(c.Body)) && c.Provider != "openrouter" && c.Provider != "litellm"
}

// nestedQuote reports whether c's answer is itself a relay's that quotes an
// upstream answer its class comes from (relayedAnswer): quoted again by
// another relay, the inner quote is not read a second time (inner.go), so
// its class may differ (round 59: Antigravity's 429 quoting Vertex's 400).
func nestedQuote(c corpusCase) bool {
	r := c.response()
	_, ok := relayedAnswer(r.Status, r.Header, r.Body, r.Request, r.Model)
	return ok
}

// TestCorpusReadsReprAnswers: every JSON error answer of the corpus, as a
// Python relay prints it ("litellm.BadRequestError: OpenAIException - Error
// code: 400 - {'error': {…}}"), gets the verdict it gets as written (but
// for the relayed field path TestCorpusReadsQuotedAnswers allows). Before
// the repr was read, 51 of 1,024 changed: rejected keys read unknown, spent
// balances forbidden, per-minute limits quota.
func TestCorpusReadsReprAnswers(t *testing.T) {
	n := 0
	for name, c := range loadCorpus(t) {
		if !quotable(c) {
			continue
		}
		rep, ok := pyRepr([]byte(c.Body))
		if !ok {
			continue
		}
		want := Classify(c.response())
		q, _ := json.Marshal("litellm.BadRequestError: OpenAIException - Error code: " + strconv.Itoa(c.Status) + " - " + rep)
		r := c.response()
		r.Body = []byte(fmt.Sprintf(`{"error":{"message":%s,"type":null,"param":null,"code":"%d"}}`, q, c.Status))
		got := Classify(r)
		n++
		if got.Class == want.Class && got.Failed == want.Failed || relayedGap(want, got) || nestedQuote(c) {
			continue
		}
		t.Errorf("%s as a repr: %s (%s); as written, %s (%s)", name, got.Class, got.Evidence, want.Class, want.Evidence)
	}
	if n < 900 {
		t.Fatalf("only %d answers quoted", n)
	}
}

// TestCorpusReadsQuotedAnswersInPlainText: a server that answers its
// exception's text as a plain-text body (a Python server's str(e): "Error
// code: 429 - {…}") quotes its upstream's answer as JSON or as a repr;
// every JSON error answer of the corpus quoted so gets the verdict it gets
// as written. Before, 101 of 2,048 changed: a plain text's object was read
// for words only.
func TestCorpusReadsQuotedAnswersInPlainText(t *testing.T) {
	n := 0
	for name, c := range loadCorpus(t) {
		if !quotable(c) {
			continue
		}
		want := Classify(c.response())
		rep, _ := pyRepr([]byte(c.Body))
		var compact bytes.Buffer
		json.Compact(&compact, []byte(c.Body))
		for form, q := range map[string]string{"JSON": compact.String(), "repr": rep} {
			r := c.response()
			r.Body = []byte("Error code: " + strconv.Itoa(c.Status) + " - " + q)
			n++
			if got := Classify(r); got.Class != want.Class && !relayedGap(want, got) && !nestedQuote(c) {
				t.Errorf("%s as %s in plain text: %s (%s); as written, %s (%s)", name, form, got.Class, got.Evidence, want.Class, want.Evidence)
			}
		}
	}
	if n < 1800 {
		t.Fatalf("only %d answers quoted", n)
	}
}

// TestReprIsNoClientText: a repr is read under the same conditions as a
// quoted JSON answer: not where the client's request holds it, not inside
// a sentence, and not when it is no dict Python prints.
func TestReprIsNoClientText(t *testing.T) {
	const inner = `{'error': {'message': 'Bad value.', 'type': 'invalid_request_error', 'param': 'logit_bias'}}`
	lead := `{"error":{"message":"litellm.BadRequestError: OpenAIException - Error code: 400 - `
	cases := []struct {
		name, body, req string
		want            Class
	}{
		{"read", lead + inner + `"}}`, "", BadRequest},
		{"after the dict, the relay's words", lead + inner + ` Received Model Group=gpt"}}`, "", BadRequest},
		{"the client's own", lead + inner + `"}}`, `{"messages":[{"role":"user","content":"` + inner + `"}]}`, Unknown},
		{"in a sentence", `{"error":{"message":"The service could not use ` + inner + ` today"}}`, "", Unknown},
		{"not closed", lead + `{'error': {'message': 'Bad value.', 'param': 'logit_bias'"}}`, "", Unknown},
		{"not a literal", lead + `{'error': {'message': 'Bad value.', 'param': logit_bias}}"}}`, "", Unknown},
		{"too deep", lead + strings.Repeat(`{'a': `, 40) + `'x'` + strings.Repeat(`}`, 40) + `"}}`, "", Unknown},
		{"plain text", `Error code: 400 - ` + inner, "", BadRequest},
		{"plain text, the client's own", `Error code: 400 - ` + inner, `{"messages":[{"role":"user","content":"` + inner + `"}]}`, Unknown},
		{"plain text, in a sentence", `The service could not use ` + inner + ` today`, "", Unknown},
	}
	for _, c := range cases {
		r := Response{Status: 400, Body: []byte(c.body), Dialect: "openai"}
		if c.req != "" {
			r.Request = []byte(c.req)
		}
		if v := Classify(r); v.Class != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, v.Class, v.Evidence, c.want)
		}
	}
}

// FuzzReprJSON: whatever it is given, reprJSON writes valid JSON or
// refuses, reads no further than it was given, and never writes more than
// a text buffer holds.
func FuzzReprJSON(f *testing.F) {
	f.Add([]byte(`{'error': {'message': "it's", 'code': None, 'n': [1, -2.5e3, (True,)]}} tail`))
	f.Add([]byte(`{'a': '\x00\u00e9\U0001f600\'\\'}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		out, n, ok := reprJSON(nil, b)
		if !ok {
			return
		}
		if n > len(b) || len(out) > MaxBody || !json.Valid(out) {
			t.Fatalf("%q: read %d of %d, wrote %q", b, n, len(b), out)
		}
	})
}

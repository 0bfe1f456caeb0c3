package classify

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// asciiOnly writes every character outside ASCII as a JSON escape, as
// Python's json.dumps does by default (ensure_ascii=True): a surrogate pair
// for a character past U+FFFF. Bytes that are not UTF-8 are kept.
func asciiOnly(b []byte) []byte {
	var out bytes.Buffer
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		switch {
		case r == utf8.RuneError && n <= 1:
			out.WriteByte(b[0])
			n = 1
		case r > 0xFFFF:
			r -= 0x10000
			fmt.Fprintf(&out, `\u%04x\u%04x`, 0xD800+(r>>10), 0xDC00+(r&0x3FF))
		case r >= 0x80:
			fmt.Fprintf(&out, `\u%04x`, r)
		default:
			out.WriteByte(b[0])
		}
		b = b[n:]
	}
	return out.Bytes()
}

// asciiBody escapes a JSON body's text, or each JSON data line of an event
// stream, as a Python server writes them; nil when there is nothing to
// escape or the body is not JSON (escapes mean nothing outside it).
func asciiBody(body string, stream bool) []byte {
	if !stream {
		if !json.Valid([]byte(body)) {
			return nil
		}
		if e := asciiOnly([]byte(body)); !bytes.Equal(e, []byte(body)) {
			return e
		}
		return nil
	}
	lines := strings.Split(body, "\n")
	changed := false
	for i, l := range lines {
		d, ok := strings.CutPrefix(l, "data:")
		if !ok || !json.Valid([]byte(d)) {
			continue
		}
		if e := asciiOnly([]byte(d)); !bytes.Equal(e, []byte(d)) {
			lines[i], changed = "data:"+string(e), true
		}
	}
	if !changed {
		return nil
	}
	return []byte(strings.Join(lines, "\n"))
}

// TestCorpusReadsEscapedText: every real answer in the corpus that holds text
// outside ASCII gets the same verdict when its server writes that text as
// JSON escapes, as every Python server does by default (a relay, a
// self-hosted model server): Zhipu's 余额不足 is quota however it is written.
func TestCorpusReadsEscapedText(t *testing.T) {
	n := 0
	for name, c := range loadCorpus(t) {
		e := asciiBody(c.Body, c.Stream)
		if e == nil {
			continue
		}
		n++
		want := Classify(c.response())
		r := c.response()
		r.Body = e
		if got := Classify(r); got.Failed != want.Failed || got.Class != want.Class {
			t.Errorf("%s: escaped, %s (%s); as written, %s (%s)\n%s", name, got.Class, got.Evidence, want.Class, want.Evidence, e)
		}
	}
	if n < 15 {
		t.Fatalf("only %d corpus answers hold text outside ASCII", n)
	}
}

func TestUnescapeText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"message":"\u4f59\u989d\u4e0d\u8db3"}`, `{"message":"余额不足"}`},
		{`isn\u2019t supported`, `isn’t supported`},
		{`\ud83d\ude00 ok`, "\U0001F600 ok"},                                // a surrogate pair joined
		{`"\u0063redit \u0022quoted\u0022"`, `"credit \u0022quoted\u0022"`}, // a quote stays escaped
		{`a\u005cb`, `a\u005cb`},                                            // so does a backslash
		{`line\u000aline \u0009`, `line\u000aline \u0009`},                  // and control characters
		{`\ud83d alone`, `\ud83d alone`},                                    // a lone surrogate
		{`\\u4f59`, `\\u4f59`},                                              // an escaped backslash, then text
		{`\\\u4f59`, `\\余`},                                                 // an escaped backslash, then an escape
		{`x\\\\u4f59`, `x\\\\u4f59`},                                        // two escaped backslashes
		{`\u4f5`, `\u4f5`},                                                  // cut short
		{`\u4f5g`, `\u4f5g`},                                                // not hex
		{`https:\/\/x.ai\/billing`, `https://x.ai/billing`},                 // PHP's escaped slashes
		{`a\\/b`, `a\\/b`},                                                  // an escaped backslash, then a slash
		{`\/\u4f59`, `/余`},
		{`ab\`, `ab\`},
		{`no escapes at all`, `no escapes at all`},
	} {
		if got := unescapeText(nil, []byte(c.in)); string(got) != c.want {
			t.Errorf("unescapeText(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

// FuzzUnescapeText: decoding the escaped text of a JSON document leaves the
// same document (encoding/json reads the same values), never lengthens it,
// and decodes everything there was to decode. (Outside JSON an escape may
// be made of a broken one and a decoded digit: only its length is held.)
func FuzzUnescapeText(f *testing.F) {
	f.Add([]byte(`{"error":{"message":"\u4f59\u989d\u4e0d\u8db3","code":"1113"}}`))
	f.Add([]byte(`["\ud83d\ude00","\\u4f59","\u0022\u005c\u000a","\udc00\ud800"]`))
	f.Add([]byte(`{"a\u00e9":"\\\u00e9\\\\u00e9"}`))
	f.Add([]byte(`{"url":"https:\/\/x.ai\/billing","p":"\\\/"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		got := unescapeText(nil, b)
		if len(got) > len(b) {
			t.Fatalf("longer: %q from %q", got, b)
		}
		var want, have any
		if json.Unmarshal(b, &want) != nil {
			return
		}
		if again := unescapeText(nil, got); !bytes.Equal(again, got) {
			t.Fatalf("not all decoded: %q, then %q", got, again)
		}
		if err := json.Unmarshal(got, &have); err != nil {
			t.Fatalf("%q decoded to %q, no longer JSON: %v", b, got, err)
		}
		if !reflect.DeepEqual(want, have) {
			t.Fatalf("%q decoded to %q: %v, want %v", b, got, have, want)
		}
	})
}

// TestStatusRuleOn2xx: an operator rule that names a 2xx status and no
// match decides every such answer, as docs/config.md says (keys left out
// match anything); reading a 2xx's text decoded only for rules that match
// text must not skip it.
func TestStatusRuleOn2xx(t *testing.T) {
	c := &Classifier{Rules: []Rule{{Status: []int{200}, Provider: "odd", Class: Refusal}}}
	if v := c.Classify(Response{Status: 200, Provider: "odd", Body: []byte(`{"choices":[{"message":{"content":"hi"},"finish_reason":"stop"}]}`)}); v.Evidence != "rule:1" || v.Class != Refusal {
		t.Errorf("got %s (%s), want refusal (rule:1)", v.Class, v.Evidence)
	}
	if v := c.Classify(Response{Status: 200, Provider: "other", Body: []byte(`{"choices":[]}`)}); v.Failed {
		t.Errorf("another provider's 200: %s (%s)", v.Class, v.Evidence)
	}
}

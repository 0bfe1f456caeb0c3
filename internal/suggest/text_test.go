package suggest

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/decision"
)

// Each masked part matches what it stood for, wherever the message stands
// in a body.
func TestSuggestRegexpMasks(t *testing.T) {
	for _, c := range []struct{ msg, body string }{
		{"limit 4096 reached", `{"message":"limit 1,234.5 reached"}`},
		{"request req_011CegaXgT3UXCMC4LraDuee failed", `{"message":"request req_0abc9 failed"}`},
		{`use "x" or 'y' or` + " `z`", `{"message":"use \"abc\" or 'd e' or ` + "`f`" + `"}`},
		{"path a/b\\c", `{"message":"path a\/b\\c"}`},
		{"line one\nline two", `{"message":"line one\nline two"}`},
		{"emoji 😀 here", `{"message":"emoji \ud83d\ude00 here"}`},
		{"an open 'quote", `{"message":"an open 'quote that goes on"}`},
		// The decision log is scrubbed (docs/security.md): where the
		// upstream echoed a secret or an address the message says so, and
		// the rule must still take the raw answer.
		{"key [redacted] refused by [provider up]/v1/chat at [address] now",
			`{"message":"key sk-live-Aa11Bb22 refused by http:\/\/10.0.0.5:8000\/v1\/chat at [::1]:80 now"}`},
	} {
		re := regexp.MustCompile(Parse(decision.UpstreamMessage(c.msg)).Regexp())
		if !re.MatchString(c.body) {
			t.Errorf("%q: %s does not match %s", c.msg, re, c.body)
		}
	}
}

// Answers that say the same thing read alike, whatever varies in them.
func TestDisplayMasksWhatVaries(t *testing.T) {
	for _, c := range []struct{ a, b, want string }{
		{"Request 7781 rejected for 'gpt-4o'", "Request 12 rejected for 'o3'", "Request <n> rejected for <q>"},
		{`Model "claude-3" is not enabled for org org-8fK2aa91`, `Model "x" is not enabled for org org-77Ab0c31`, "Model <q> is not enabled for org <id>"},
		{"see https://example.test/docs?id=1 now", "see http://other.test/ now", "see <url> now"},
		{"batch  req_7f3a9c11\tfailed", "batch req_0000aa failed", "batch <id> failed"},
		{"don't send it's value", "don't send it's value", "don't send it's value"},
		{"账户余额不足 (code 1008)", "账户余额不足 (code 42)", "账户余额不足 (code <n>)"},
		{"Frobnication failed at [provider up]/v1 with [redacted]", "Frobnication failed at [provider other]/v1 with [redacted]", "Frobnication failed at <id> with <id>"},
	} {
		ta, tb := Parse(c.a), Parse(c.b)
		if ta.Display() != c.want || tb.Display() != c.want {
			t.Errorf("Display: %q → %q, %q → %q, want both %q", c.a, ta.Display(), c.b, tb.Display(), c.want)
		}
		if ta.Key() != tb.Key() {
			t.Errorf("%q and %q: keys %q and %q, one group wanted", c.a, c.b, ta.Key(), tb.Key())
		}
	}
	if Parse("Request 1 rejected").Key() == Parse("Request 1 accepted").Key() {
		t.Error("different words, one group")
	}
}

// A class from the message's words, else from the status.
func TestClass(t *testing.T) {
	for _, c := range []struct {
		status  int
		msg     string
		want    classify.Class
		keyword string
	}{
		{400, "Your credit is exhausted", classify.Quota, "credit"},
		{400, "The api key 'abc' was revoked", classify.Auth, "api key"},
		{400, "Request 12 rejected for 'o3'", classify.BadRequest, ""},
		{404, "Nothing here", classify.Unavailable, ""},
		{503, "Come back later", classify.ServerError, ""},
		// The status's class is the classifier's own default.
		{504, "Upstream gone quiet", classify.Timeout, ""},
		{451, "Not here", classify.Forbidden, ""},
		{410, "Gone", classify.Unavailable, ""},
		{400, "Invalid value: 'credit'", classify.BadRequest, "invalid"}, // a quoted value is not the upstream's word
	} {
		got, kw := Parse(c.msg).Class(c.status)
		if got != c.want || kw != c.keyword {
			t.Errorf("Class(%d, %q) = %s, %q; want %s, %q", c.status, c.msg, got, kw, c.want, c.keyword)
		}
	}
}

func TestRuleQuotes(t *testing.T) {
	if got := Rule("p", "", 400, `(?i)can't be .* used`, classify.BadRequest); got != `- {provider: p, status: 400, match: '(?i)can''t be .* used', class: bad_request}` {
		t.Errorf("got %s", got)
	}
	if got := Rule("true", "", 0, "", classify.Unknown); got != `- {provider: 'true', class: unknown}` {
		t.Errorf("got %s", got)
	}
	if got := Rule("", "openai", 429, "(?i)x", classify.RateLimited); got != `- {dialect: openai, status: 429, match: '(?i)x', class: rate_limited}` {
		t.Errorf("got %s", got)
	}
}

// body wraps msg in an OpenAI error envelope, with <, > and & escaped as
// Go's encoder does (escapeHTML) or not.
func body(msg string, escapeHTML bool) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(escapeHTML)
	_ = enc.Encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
	return b.Bytes()
}

// Whatever an upstream writes, the suggested expression compiles, matches
// the body that carried the message however its JSON escapes it (read from
// the record as Detour keeps it: a record cut short matches the start of
// the body), and its rule line reads back from YAML as written; a group's
// display is one line.
func FuzzRegexp(f *testing.F) {
	for _, s := range []string{"Request 7781 rejected for 'gpt-4o'", `a "b" <c> & d/e\f`, "line\nbreak\u2028sep", "账户余额不足 (code 1008)", "", "{}[]().*+?^$|",
		"see https://x.test/a?b=1 now", "key [redacted] at [address]", "ctl\x01 and \x7f del", "c1\u0085\u0091 bom\ufeff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		if !utf8.ValidString(msg) || strings.ContainsRune(msg, utf8.RuneError) || len(msg) > 4*decision.MaxMessage {
			return // invalid bytes do not survive JSON as they were; records hold 300 bytes
		}
		rec := decision.UpstreamMessage(msg)
		text := Parse(rec)
		match := text.Regexp()
		if d := text.Display(); strings.ContainsAny(d, "\n\t") {
			t.Fatalf("Display(%q) = %q keeps line breaks or tabs", rec, d)
		}
		if match == "" {
			return
		}
		re, err := regexp.Compile(match)
		if err != nil {
			t.Fatalf("Parse(%q).Regexp() = %q does not compile: %v", rec, match, err)
		}
		for _, esc := range []bool{false, true} {
			if b := body(msg, esc); !re.Match(b) {
				t.Fatalf("Parse(%q).Regexp() = %q does not match its body %s", rec, match, b)
			}
		}
		line := Rule("p", "", 400, match, classify.Quota)
		var rules []struct {
			Match string `yaml:"match"`
		}
		if err := yaml.Unmarshal([]byte(line), &rules); err != nil || len(rules) != 1 || rules[0].Match != match {
			t.Fatalf("rule %s does not read back from YAML: %v %+v", line, err, rules)
		}
	})
}

// A message with no word to match on gets no expression, and a class from
// its status only: a rule without a match takes every answer of its status.
func TestNoWordNoMatch(t *testing.T) {
	for _, msg := range []string{"No", "!!!", "12 34", "ok?", "😀"} {
		if m := Parse(msg).Regexp(); m != "" {
			t.Errorf("%q: expression %q", msg, m)
		}
	}
	if c, kw := Parse("余").Class(400); c != classify.BadRequest || kw != "" {
		t.Errorf("one character of a balance word: %s %q", c, kw)
	}
	if m := Parse("账户余额不足").Regexp(); m == "" {
		t.Error("a message in Chinese gets no expression")
	}
	if c, kw := Parse("账户余额不足").Class(400); c != classify.Quota || kw != "余额" {
		t.Errorf("a balance in Chinese: %s %q", c, kw)
	}
	long := strings.Repeat("word ", 60)
	if m := Parse(long).Regexp(); len(m) > maxPattern+40 {
		t.Errorf("a %d-byte message gave a %d-byte expression", len(long), len(m))
	}
}

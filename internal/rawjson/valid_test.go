package rawjson

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

var checkKeys = []string{"choices", "usage", "a"}

// checkLikeValid holds Check to json.Valid, and its members to Member's.
func checkLikeValid(t *testing.T, b []byte) {
	t.Helper()
	vals := make([][]byte, len(checkKeys))
	got, want := Check(b, checkKeys, vals), json.Valid(b)
	if got != want {
		t.Fatalf("Check(%q) = %v, json.Valid %v", b, got, want)
	}
	if !got {
		return
	}
	for i, k := range checkKeys {
		if m := Member(b, k); !bytes.Equal(vals[i], m) || (vals[i] == nil) != (m == nil) {
			t.Fatalf("Check(%q) member %q = %q, Member %q", b, k, vals[i], m)
		}
	}
}

var checkCases = []string{
	``, ` `, `{}`, `[]`, `{`, `}`, `[`, `"`, `""`, `"a`, `a`, `0`, `-`, `-0`, `01`, `1.`, `1.5`, `1e`, `1e+`, `1E-7`,
	`-1.25e+10`, `1.5e3.2`, `true`, `tru`, `truex`, `false`, `null`, `nul`, ` null `, "\tnull\r\n", `nullnull`,
	`{"a":1}`, `{"a":1,}`, `{,"a":1}`, `{"a" 1}`, `{"a":}`, `{a:1}`, `{"a":1 "b":2}`, `[1,]`, `[,1]`, `[1 2]`,
	`{"a":1,"a":2}`, `{"\u0061":3,"a":4}`, `{"a":5,"\u0061":6}`, `{"usage":{"prompt_tokens":1},"choices":[{"x":"}"}]}`,
	`{"choices":"a\"b","usage":null}`, `"\ud800"`, `"\u12"`, `"\u12G4"`, `"\x"`, `"\/\b\f\n\r\t\\\""`,
	"\"a\x01b\"", "\"a\x1fb\"", "\"a\x7fb\"", "\"\xff\xfe\"", "\"é😀\"", `{"a":[1,{"b":[true,false,null]}],"c":"d"}`,
	`{"a":1}x`, `{"a":1}}`, `[[[]]]`, `[[[]]`, `{"s":"` + strings.Repeat(`abcdefgh\"`, 20) + `"}`,
	`"` + strings.Repeat("x", 31) + "\x00" + `"`, `"` + strings.Repeat("y", 64) + `"`, `"` + strings.Repeat("z", 63) + `\`,
}

func TestCheckIsValid(t *testing.T) {
	for _, c := range checkCases {
		checkLikeValid(t, []byte(c))
	}
	// Every byte in every place of a short string, and around it.
	for ch := 0; ch < 256; ch++ {
		for _, tmpl := range []string{`"abcdefghijXkl"`, `{"a":"X"}`, `[X]`, `{"a":1X}`, `"\X"`, `"\u00X0"`, `1X`, `-X`} {
			checkLikeValid(t, []byte(strings.Replace(tmpl, "X", string([]byte{byte(ch)}), 1)))
		}
	}
}

// encoding/json refuses values nested deeper than 10,000.
func TestCheckDepth(t *testing.T) {
	for _, n := range []int{9999, 10000, 10001} {
		checkLikeValid(t, []byte(strings.Repeat("[", n)+strings.Repeat("]", n)))
		checkLikeValid(t, []byte(`{"a":`+strings.Repeat("[", n-1)+strings.Repeat("]", n-1)+`}`))
		checkLikeValid(t, []byte(`{"a":`+strings.Repeat("[", n)+strings.Repeat("]", n)+`}`))
	}
}

func TestCheckDoesNotAllocate(t *testing.T) {
	b := []byte(`{"id":"x","choices":[{"index":0,"message":{"role":"assistant","content":"Hi \"there\""}}],"usage":{"total_tokens":7}}`)
	vals := make([][]byte, len(checkKeys))
	if n := testing.AllocsPerRun(100, func() { Check(b, checkKeys, vals) }); n != 0 {
		t.Errorf("%v allocations", n)
	}
}

func FuzzCheck(f *testing.F) {
	for _, c := range checkCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkLikeValid(t, b) })
}

// BenchmarkCheckAnswer: a 3 KiB chat.completion read for validity,
// "choices" and "usage" in one pass; BenchmarkValidThenMembers the same
// with json.Valid and a Member scan each, as before.
func BenchmarkCheckAnswer(b *testing.B) {
	body, vals := benchAnswer(), make([][]byte, 2)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if !Check(body, checkKeys[:2], vals) || vals[1] == nil {
			b.Fatal("not read")
		}
	}
}

func BenchmarkValidThenMembers(b *testing.B) {
	body := benchAnswer()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if !json.Valid(body) || Member(body, "choices") == nil || Member(body, "usage") == nil {
			b.Fatal("not read")
		}
	}
}

func benchAnswer() []byte {
	text := strings.Repeat(`The quick brown fox jumps over the lazy dog, \"quoted\" and \n escaped. `, 40)
	return []byte(`{"choices":[{"finish_reason":"stop","index":0,"message":{"content":"` + text +
		`","role":"assistant"}}],"created":1764489600,"id":"chatcmpl-test","model":"gpt-4o-mini","object":"chat.completion",` +
		`"usage":{"completion_tokens":2,"prompt_tokens":5,"total_tokens":7}}`)
}

// skipValueBefore is skipValue as it was before skipString: every byte of
// a string read in turn, a backslash taking the next one.
func skipValueBefore(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		for j := i + 1; j < len(b); j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			}
		}
		return -1
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				k := skipValueBefore(b, j)
				if k < 0 {
					return -1
				}
				j = k - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// skipValue ends every value, valid or not, where it ended before
// skipString, from every starting place.
func FuzzSkipValue(f *testing.F) {
	for _, c := range checkCases {
		f.Add([]byte(c))
	}
	f.Add([]byte(`"a\\\"b\\\\"x"`))
	f.Add([]byte(`{"a":"\\","b":"\"}"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		for i := range b {
			if got, want := skipValue(b, i), skipValueBefore(b, i); got != want {
				t.Fatalf("skipValue(%q, %d) = %d, was %d", b, i, got, want)
			}
		}
	})
}

func TestSkipValueAsBefore(t *testing.T) {
	for _, c := range append(checkCases, `"a\\\"b\\\\"x"`, `{"a":"\\","b":"\"}"}`, `"\\\\\\\"\\"`) {
		b := []byte(c)
		for i := range b {
			if got, want := skipValue(b, i), skipValueBefore(b, i); got != want {
				t.Fatalf("skipValue(%q, %d) = %d, was %d", b, i, got, want)
			}
		}
	}
}

// BenchmarkMemberLargeBody: "model" found in a 64 KiB conversation (a
// client body, as WithModel reads it for every attempt).
func BenchmarkMemberLargeBody(b *testing.B) {
	text := strings.Repeat(`Please summarise the following paragraph, keeping \"quotes\" intact. `, 1000)
	body := []byte(`{"model":"gpt","messages":[{"role":"user","content":"` + text + `"}],"stream":false}`)
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		if Member(body, "model") == nil {
			b.Fatal("no model")
		}
	}
}

// Within is json.Valid with a tighter nesting limit.
func TestWithin(t *testing.T) {
	for _, c := range []struct {
		b     string
		depth int
		want  bool
	}{
		{`{"a":[1,{"b":2}]}`, 3, true},
		{`{"a":[1,{"b":2}]}`, 2, false},
		{`"[[[[{"`, 1, true}, // brackets in a string nest nothing
		{`[[]]`, 2, true},
		{`[[]]`, 1, false},
		{`{"a":}`, 5, false},
		{`1`, 0, true},
	} {
		if got := Within([]byte(c.b), c.depth); got != c.want {
			t.Errorf("Within(%s, %d) = %v, want %v", c.b, c.depth, got, c.want)
		}
	}
}

package rawjson

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestMember(t *testing.T) {
	for _, c := range []struct{ body, key, want string }{
		{`{"id":"x","usage":{"total_tokens":7}}`, "usage", `{"total_tokens":7}`},
		{`{"usage":1, "usage" : [2]}`, "usage", `[2]`}, // the last one, as encoding/json
		{`{"us\u0061ge":3}`, "usage", `3`},
		{`{"a":{"usage":1}}`, "usage", ``}, // top level only
		{`{}`, "usage", ``},
		{`[1]`, "usage", ``},
		{`{"usage":`, "usage", ``},
	} {
		if got := string(Member([]byte(c.body), c.key)); got != c.want {
			t.Errorf("Member(%s, %q) = %q, want %q", c.body, c.key, got, c.want)
		}
	}
}

// TestMemberDoesNotAllocate: reading one member of an upstream's answer is
// on every request's path (docs/benchmarks.md#overhead-beside-a-plain-reverse-proxy-benchcmdoverhead).
func TestMemberDoesNotAllocate(t *testing.T) {
	body := []byte(`{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0}],"usage":{"total_tokens":7}}`)
	if n := testing.AllocsPerRun(100, func() { Member(body, "usage") }); n != 0 {
		t.Fatalf("Member allocates %.0f times per call, want 0", n)
	}
}

func TestScan(t *testing.T) {
	obj := []byte(` { "a" : 1 , "b\"c":{"x":[1,"]"]}, "d":"}" ,"e":[ ] } `)
	s, ok := ScanObject(obj)
	if !ok {
		t.Fatal("not an object")
	}
	var got []string
	for k, v, ok := s.Next(); ok; k, v, ok = s.Next() {
		got = append(got, string(k)+"="+string(v))
	}
	want := []string{`"a"=1`, `"b\"c"={"x":[1,"]"]}`, `"d"="}"`, `"e"=[ ]`}
	if len(got) != len(want) {
		t.Fatalf("members %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("member %d = %s, want %s", i, got[i], want[i])
		}
	}
	a, ok := ScanArray([]byte(`[null, {"a":[]} ,"x",-1.5e3]`))
	if !ok {
		t.Fatal("not an array")
	}
	got = got[:0]
	for k, v, ok := a.Next(); ok; k, v, ok = a.Next() {
		if k != nil {
			t.Errorf("array element with a key %q", k)
		}
		got = append(got, string(v))
	}
	if want := `null|{"a":[]}|"x"|-1.5e3`; strings.Join(got, "|") != want {
		t.Errorf("elements %q, want %s", got, want)
	}
	if _, ok := ScanObject([]byte(`[1]`)); ok {
		t.Error("ScanObject accepted an array")
	}
	if _, ok := ScanArray([]byte(`{}`)); ok {
		t.Error("ScanArray accepted an object")
	}
	e, _ := ScanObject([]byte(`{}`))
	if _, _, ok := e.Next(); ok {
		t.Error("an empty object has a member")
	}
}

func TestWithFirst(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"model":"m"}`, `{"k":[1],"model":"m"}`},
		{` { }`, ` {"k":[1] }`},
		{"{\n\t\"a\": 1 }", "{\"k\":[1],\n\t\"a\": 1 }"},
		{`[1]`, `[1]`}, // not an object: as is
		{``, ``},
	} {
		if got := string(WithFirst([]byte(c.in), "k", []byte(`[1]`))); got != c.want {
			t.Errorf("WithFirst(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestWithLast(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"model":"m"}`, `{"model":"m","k":[1]}`},
		{` { }`, `{"k":[1]}`},
		{"{\n\t\"a\": 1 }\n", "{\n\t\"a\": 1,\"k\":[1]}"},
		{`[1]`, `[1]`}, // not an object: as is
		{``, ``},
		{`}{`, `}{`},
	} {
		if got := string(WithLast([]byte(c.in), "k", []byte(`[1]`))); got != c.want {
			t.Errorf("WithLast(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestMarshalWritesMarkupAsIs(t *testing.T) {
	v := map[string]any{"content": "<b>&</b>\u2028\n\"", "n": 1}
	got, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"content":"<b>&</b>\u2028\n\"","n":1}`; string(got) != want {
		t.Errorf("Marshal = %s, want %s", got, want)
	}
	var back map[string]any
	if err := json.Unmarshal(got, &back); err != nil || back["content"] != v["content"] {
		t.Errorf("round trip: %v %v", back, err)
	}
	if _, err := Marshal(func() {}); err == nil {
		t.Error("Marshal of a func: no error")
	}
}

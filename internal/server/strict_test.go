package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider/chat"
)

// Every top-level member the translating adapters decode is one the front
// guards against case variants.
func TestReadMembersCoverTheChatRequest(t *testing.T) {
	rt := reflect.TypeFor[chat.Request]()
	for i := range rt.NumField() {
		name, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" && !slices.Contains(readMembers, name) {
			t.Errorf("chat.Request reads %q, missing from readMembers", name)
		}
	}
}

// reference is what scan must decide, computed with encoding/json alone:
// ok when body is valid JSON, an object, with no member repeated in any
// object (names compared as encoding/json decodes them) and no top-level
// name that only case-folds to a read member; and the raw values of model,
// stream and messages.
func reference(body []byte) (h head, ok bool) {
	if !json.Valid(body) {
		return h, false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil || top == nil {
		return h, false
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	type frame struct {
		obj   bool
		names map[string]bool
		key   bool // the next string token in an object is a name
	}
	var stack []*frame
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return h, false
		}
		var f *frame
		if len(stack) > 0 {
			f = stack[len(stack)-1]
		}
		if name, isStr := tok.(string); isStr && f != nil && f.obj && f.key {
			if f.names[name] {
				return h, false
			}
			f.names[name] = true
			f.key = false
			if len(stack) == 1 {
				for _, m := range readMembers {
					if name != m && bytes.EqualFold([]byte(name), []byte(m)) {
						return h, false
					}
				}
			}
			continue
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, &frame{obj: true, names: map[string]bool{}, key: true})
			continue
		case json.Delim('['):
			stack = append(stack, &frame{})
			continue
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && stack[len(stack)-1].obj {
			stack[len(stack)-1].key = true
		}
	}
	var opts map[string]json.RawMessage
	if json.Unmarshal(top["stream_options"], &opts) == nil {
		for name := range opts {
			if name != "include_usage" && bytes.EqualFold([]byte(name), []byte("include_usage")) {
				return h, false
			}
		}
	}
	return head{model: top["model"], stream: top["stream"], messages: top["messages"]}, true
}

func TestScan(t *testing.T) {
	for _, tc := range []struct {
		body string
		ok   bool
	}{
		{`{"model":"a","messages":[]}`, true},
		{` {"model" : "a" , "messages" : [ ] } `, true},
		{`{"a":1,"a":2}`, false},
		{`{"a":{"b":1,"b":2}}`, false},
		{`{"a":[{"b":1},{"b":2}]}`, true},
		{`{"a":[{"b":1,"c":[{"d":1,"d":1}]}]}`, false},
		{`{"\u0061":1,"a":2}`, false},
		{`{"\ud83d\ude00":1,"😀":2}`, false},
		{`{"\ud800":1,"\ufffd":2}`, false},
		{"{\"a\xff\":1,\"a\xfe\":2}", false},
		{`{"Model":"a"}`, false},
		{`{"ſtream":true}`, false},
		{`{"\u017ftream":true}`, false},
		{`{"TOP_P":1}`, false},
		{`{"x":1,"X":2}`, true},
		{`{"stream_options":{"include_usage":true,"INCLUDE_USAGE":false}}`, false},
		{`{"stream_options":{"Include_Usage":false}}`, false},
		{`{"stream_options":{"\u0069nclude_usage":true}}`, true},
		{`{"stream_options":{"include_usage":true,"include_obfuscation":false}}`, true},
		{`{"stream_options":null}`, true},
		{`{"other":{"INCLUDE_USAGE":false}}`, true},
		{`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"o":14,"p":15,"q":16,"r":17,"a":18}`, false},
		{`{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"i":9,"j":10,"k":11,"l":12,"m":13,"o":14,"p":15,"q":16,"r":17,"s":18}`, true},
		{`[]`, false},
		{`"x"`, false},
		{``, false},
		{`{}x`, false},
		{`{"a":1,}`, false},
		{`{"a":tru}`, false},
		{`{"a":-}`, false},
		{`{"a":1.}`, false},
		{`{"a":1e}`, false},
		{`{"a":-0.5e+10}`, true},
		{"{\"a\":\"\t\"}", false},
		{`{"a":"\u12"}`, false},
		{`{"a":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}`, false},
		{`{"a":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`, true},
	} {
		_, err := scan([]byte(tc.body))
		if (err == nil) != tc.ok {
			t.Errorf("%.80s: err %v, want ok=%v", tc.body, err, tc.ok)
		}
		if _, ok := reference([]byte(tc.body)); ok != tc.ok && len(tc.body) < 1000 {
			t.Errorf("%.80s: the reference says ok=%v; the case is wrong", tc.body, ok)
		}
	}
}

// A large object's repeat is found too (by sorting), and objects with many
// distinct members pass.
func TestScanLargeObjects(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"model":"a","messages":[],"o":{`)
	for i := range 5000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"k` + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + strconv.Itoa(i) + `":1`)
	}
	if _, err := scan([]byte(b.String() + `}}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := scan([]byte(b.String() + `,"ka0":2}}`)); err == nil || !strings.Contains(err.Error(), `"ka0"`) {
		t.Fatalf("repeat in a large object: %v", err)
	}
}

func FuzzScan(f *testing.F) {
	for _, s := range []string{
		`{"model":"a","messages":[{"role":"user","content":"hi"}],"stream":true}`,
		`{"stream":true,"STREAM":false}`, `{"a":{"b":[1,{"c":2,"c":3}]}}`, `{"\u0061":1,"a":2}`,
		`{"mod\u0065l":"x","messages":null}`, `{"ſtream":1}`, "{\"a\xff\":1,\"a\xfe\":2}",
		`{"\ud800x":1,"\ufffdx":1}`, `[1,2]`, `{"a":-1.5e3,"b":[true,false,null]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := scan(body)
		want, ok := reference(body)
		if (err == nil) != ok {
			t.Fatalf("%q: scan err %v, reference ok=%v", body, err, ok)
		}
		if ok && (!bytes.Equal(got.model, want.model) || !bytes.Equal(got.stream, want.stream) || !bytes.Equal(got.messages, want.messages)) {
			t.Fatalf("%q: head %q %q %q, want %q %q %q", body, got.model, got.stream, got.messages, want.model, want.stream, want.messages)
		}
	})
}

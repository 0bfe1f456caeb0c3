package provider

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestWithModel(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"model":"deep","messages":[]}`, `{"model":"gpt-4o","messages":[]}`},
		{`{ "messages" : [{"content":"{\"model\":\"x\"}"}] , "model" : "deep" , "n":1.50 }`,
			`{ "messages" : [{"content":"{\"model\":\"x\"}"}] , "model" : "gpt-4o" , "n":1.50 }`},
		{`{"tools":[{"model":"nested"}],"model":"deep"}`, `{"tools":[{"model":"nested"}],"model":"gpt-4o"}`},
		{`{"messages":[]}`, `{"model":"gpt-4o","messages":[]}`},
		{`{}`, `{"model":"gpt-4o"}`},
		{`{"mod\u0065l":"deep"}`, `{"mod\u0065l":"gpt-4o"}`},
		{"{\n  \"model\": null,\n  \"x\": \"\\u00e9\"\n}", "{\n  \"model\": \"gpt-4o\",\n  \"x\": \"\\u00e9\"\n}"},
	}
	for _, tc := range cases {
		got, err := (&Request{Body: []byte(tc.in)}).WithModel("gpt-4o")
		if err != nil || string(got) != tc.want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", tc.in, got, err, tc.want)
		}
	}
}

// FuzzWithModel: for any JSON object, the result is valid JSON whose members
// equal the input's with "model" replaced.
func FuzzWithModel(f *testing.F) {
	for _, s := range []string{`{"model":"a","messages":[{"role":"user","content":"hi"}]}`, `{}`, `{"a":{"model":[1,"}"]}}`, `{"model":1,"model":2}`, `{"mod\u0065l":"x"}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var in map[string]any
		if json.Unmarshal(body, &in) != nil || in == nil {
			return
		}
		out, err := (&Request{Body: body}).WithModel("m")
		if err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		var got map[string]any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%s → invalid %s: %v", body, out, err)
		}
		in["model"] = "m"
		if !reflect.DeepEqual(in, got) {
			t.Fatalf("%s → %s", body, out)
		}
	})
}

// TestQuoteIsJSON: quote writes every model name as encoding/json does.
func TestQuoteIsJSON(t *testing.T) {
	for _, m := range []string{"gpt-4o", "", "a/b:c@1.5", `q"uote`, `back\slash`, "<b>&", "tab\t", "é", "\u2028", "\xff"} {
		want, _ := json.Marshal(m)
		got, err := quote(m)
		if err != nil || string(got) != string(want) {
			t.Errorf("quote(%q) = %s, %v; want %s", m, got, err, want)
		}
	}
}

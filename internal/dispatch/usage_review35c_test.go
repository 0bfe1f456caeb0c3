package dispatch

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzIncludeUsage (review 35c): includeUsage splices without decoding; what
// it writes must mean, to encoding/json, the body with
// stream_options.include_usage true, and it reports the client's own true
// exactly when encoding/json reads one. A stream_options that is not an
// object (nor null) is left for the upstream to judge.
func FuzzIncludeUsage(f *testing.F) {
	for _, s := range []string{
		`{"model":"m"}`, ` { } `, `{"stream_options":null}`, `{"stream_options":{}}`,
		`{"stream_options":{"include_usage":false,"x":[1,{"a":"\"}"}]}}`,
		`{"stream\u005foptions":{"include\u005fusage":1}}`, `{"stream_options":"null"}`,
		`{"stream_options":[],"m":"}"}`, "{\n\"stream_options\"\t:\n{ \"include_usage\" : \"true\" } ,\"a\":{\"stream_options\":1}}",
		`{"stream_options":{"include_usage":true}}`, `{"a":"\\","stream_options":{ }}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var m map[string]any
		if json.Unmarshal(b, &m) != nil || m == nil {
			return
		}
		out, had := includeUsage(b)
		so, present := m["stream_options"]
		opts, isObj := so.(map[string]any)
		wantHad := isObj && opts["include_usage"] == true
		if had != wantHad {
			t.Fatalf("had=%v want %v for %s", had, wantHad, b)
		}
		if present && so != nil && !isObj {
			if string(out) != string(b) {
				t.Fatalf("non-object changed: %s -> %s", b, out)
			}
			return
		}
		var got map[string]any
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("invalid output %q from %q: %v", out, b, err)
		}
		want := m
		if !isObj {
			opts = map[string]any{}
		}
		opts["include_usage"] = true
		want["stream_options"] = opts
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("got %s from %s", out, b)
		}
	})
}

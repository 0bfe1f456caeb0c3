package classify

import (
	"bytes"
	"testing"
)

// FuzzClassify: never panics, always yields a valid class with evidence for a
// failure, never modifies the body, and reads at most MaxBody bytes: a body
// of 4 KiB or more gives the same verdict as its first 4 KiB followed by
// anything at all.
func FuzzClassify(f *testing.F) {
	for _, c := range loadCorpus(f) {
		f.Add(c.Status, []byte(c.Body), c.Stream)
	}
	f.Add(200, []byte(`{"choices":[{"finish_reason":"content_filter"}]}`), false)
	f.Add(200, []byte("event: error\ndata: {\"error\":{\"code\":429}}\n\n"), true)
	f.Add(429, []byte(`{"error":{"message":"Limit 1, Requested 2"}}`), false)
	f.Add(400, append([]byte(`{"error":{"message":"`), bytes.Repeat([]byte("a "), MaxBody)...), false)
	garbage := bytes.Repeat([]byte(`credit balance is too low"}}]`), 300)
	f.Fuzz(func(t *testing.T, status int, body []byte, stream bool) {
		orig := bytes.Clone(body)
		v := Classify(Response{Status: status, Body: body, Stream: stream})
		if !bytes.Equal(orig, body) {
			t.Fatal("body modified")
		}
		if !v.Class.Valid() {
			t.Fatalf("invalid class %d", v.Class)
		}
		if v.Failed && v.Evidence == "" {
			t.Fatalf("failure without evidence: %+v", v)
		}
		if !v.Failed && (v.Class != Unknown || v.Evidence != "") {
			t.Fatalf("success carries a class: %+v", v)
		}
		if len(body) >= MaxBody {
			long := append(bytes.Clone(body[:MaxBody]), garbage...)
			if w := Classify(Response{Status: status, Body: long, Stream: stream}); w != v {
				t.Fatalf("bytes past MaxBody changed the verdict: %+v vs %+v", w, v)
			}
		}
		_ = Message(body)
		_ = Transport(nil)
	})
}

package classify

import "testing"

// TestTypographicApostrophe: typeset text writes the apostrophe as ’
// (U+2019), raw or as a JSON escape; a phrase with an apostrophe reads it
// as one ("doesn’t support the model"), found by the metamorphic axis that
// typesets a corpus message's apostrophes. The echo check reads both alike,
// so a client's straight-quoted words an upstream quotes back curly (or
// the reverse) stay no evidence.
func TestTypographicApostrophe(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		msg    string
		req    string
		want   Class
	}{
		{"straight", 400, "This action doesn't support the model that you provided.", "", Unavailable},
		{"curly", 400, "This action doesn’t support the model that you provided.", "", Unavailable},
		{"escaped", 400, `This action doesn\u2019t support the model that you provided.`, "", Unavailable},
		{"left quote", 429, "W&B Inference isn‘t available for personal accounts", "", Forbidden},
		{"curly, 429", 429, "W&B Inference isn’t available for personal accounts", "", Forbidden},
		{"echoed straight", 400, "Invalid value: 'doesn’t support the model'.", `{"messages":[{"role":"user","content":"doesn't support the model"}]}`, BadRequest},
		{"echoed curly", 400, "Invalid value: 'doesn't support the model'.", `{"messages":[{"role":"user","content":"doesn’t support the model"}]}`, BadRequest},
		{"echoed escaped", 400, "Invalid value: 'doesn’t support the model'.", `{"messages":[{"role":"user","content":"doesn\u2019t support the model"}]}`, BadRequest},
		// (The echoed ones fall to "Invalid value", bad input, not to the
		// client's gone-model words.) Another character after the E2 byte
		// is no quote.
		{"dash", 400, "This action doesn–t support the model that you provided.", "", Unknown},
	} {
		r := Response{Status: c.status, Body: []byte(`{"error":{"message":"` + c.msg + `"}}`)}
		if c.req != "" {
			r.Request = []byte(c.req)
		}
		if v := Classify(r); v.Class != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, v.Class, v.Evidence, c.want)
		}
		if c.req == "" {
			if n := testing.AllocsPerRun(5, func() { Classify(r) }); n != 0 {
				t.Errorf("%s: %v allocs", c.name, n)
			}
		}
	}
}

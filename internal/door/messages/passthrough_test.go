package messages

import (
	"testing"
)

// TestWithModel: an Anthropic target gets the client's bytes with only
// "model" replaced, whatever the spacing, order, escapes or unknown members.
func TestWithModel(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"model":"claude","max_tokens":1024,"messages":[{"role":"user","content":"Hello"}]}`,
			`{"model":"claude-sonnet-4-5","max_tokens":1024,"messages":[{"role":"user","content":"Hello"}]}`},
		{"{ \"max_tokens\" : 1.0e3,\n \"model\" :\t\"x\" , \"z\":{\"model\":\"inner\"},\"n\":\"\\u00e9\"}",
			"{ \"max_tokens\" : 1.0e3,\n \"model\" :\t\"claude-sonnet-4-5\" , \"z\":{\"model\":\"inner\"},\"n\":\"\\u00e9\"}"},
		// An escaped key is the same member to Anthropic's parser.
		{`{"mod\u0065l":"x","a":1}`, `{"mod\u0065l":"claude-sonnet-4-5","a":1}`},
		// A repeated member: every copy is replaced.
		{`{"model":"a","model":"b"}`, `{"model":"claude-sonnet-4-5","model":"claude-sonnet-4-5"}`},
		// "Model" is not "model" to Anthropic.
		{`{"Model":"a"}`, `{"model":"claude-sonnet-4-5","Model":"a"}`},
		{` {} `, ` {"model":"claude-sonnet-4-5"} `},
		{`{"model":null,"stream":true}`, `{"model":"claude-sonnet-4-5","stream":true}`},
	} {
		got, err := WithModel([]byte(tc.in), "claude-sonnet-4-5")
		if err != nil || string(got) != tc.want {
			t.Errorf("%s:\n got %s (%v)\nwant %s", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{``, `[]`, `"x"`, `{"model":}`, `{"a":1} {}`, `{"a":1`, `{"a" 1}`} {
		if _, err := WithModel([]byte(bad), "m"); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
}

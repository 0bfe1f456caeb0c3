package splice

import "testing"

// A client that asked for logprobs relies on one entry per token of the
// text it got, which no continuation keeps (a replay's boundary chunk
// carries the reproduced tokens' too; a target may send none): a stream
// whose choice carried log probabilities is not continued. Servers that
// send an empty logprobs member in every chunk are still continued.
func TestReview39gSeamLogprobs(t *testing.T) {
	with := func(lp string) []byte {
		return []byte(`{"id":"a","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"Once"},"logprobs":` + lp + `,"finish_reason":null}]}`)
	}
	for _, tc := range []struct {
		logprobs string
		refused  bool
	}{
		{`{"content":[{"token":"Once","logprob":-0.1,"bytes":[79,110,99,101],"top_logprobs":[]}],"refusal":null}`, true},
		{`{"tokens":["Once"],"token_logprobs":[-0.1]}`, true},
		{`null`, false},
		{`{"content":null,"refusal":null}`, false},
		{`{"content":[]}`, false},
		{`{}`, false},
	} {
		var s Seam
		if _, err := s.Chunk(with(tc.logprobs)); err != nil {
			t.Fatal(err)
		}
		c := s.Cut()
		if got := c.Reason != ""; got != tc.refused {
			t.Errorf("logprobs %s: Cut.Reason %q, want refused %v", tc.logprobs, c.Reason, tc.refused)
		}
		if tc.refused && c.Mode(true) != Refuse {
			t.Errorf("logprobs %s: mode %s", tc.logprobs, c.Mode(true))
		}
	}
}

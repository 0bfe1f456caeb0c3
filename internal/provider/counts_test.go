package provider

import (
	"strings"
	"testing"
)

// A count that is not a plain integer is read as its floor; one past any
// count, or not a number at all, is 0; strings and integers are left as
// they are (hostile 52).
func TestWholeCounts(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":3}`:                                    `{"a":3}`,
		`{"a":3.0,"b":37.25}`:                        `{"a":3,"b":37}`,
		`{"a":1e3,"b":2E2,"c":-1.5}`:                 `{"a":1000,"b":200,"c":-2}`,
		`{"a":1e400,"b":-1e300}`:                     `{"a":0,"b":0}`,
		`{"a":99999999999999999999,"b":true}`:        `{"a":0,"b":true}`,
		`{"s":"1.5e3","d":{"n":7.9},"l":[1.1,2]}`:    `{"s":"1.5e3","d":{"n":7},"l":[1,2]}`,
		`{"s":"a\"1.5","n":2.5}`:                     `{"s":"a\"1.5","n":2}`,
		`{"output_tokens": 3.0 , "input_tokens":12}`: `{"output_tokens": 3 , "input_tokens":12}`,
	} {
		if got := string(WholeCounts([]byte(in))); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
	plain := []byte(`{"a":3,"s":"x.y","t":true,"f":false,"n":null}`)
	if got := WholeCounts(plain); &got[0] != &plain[0] {
		t.Error("a usage of integers was copied")
	}
}

// Review 52: a count of 8.0 in one batch's usage failed the whole
// embeddings request its batches were joined for.
func TestJoinEmbeddingsReadsAFloatCount(t *testing.T) {
	out, err := JoinEmbeddings([][]byte{
		[]byte(`{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1]}],"model":"m","usage":{"prompt_tokens":8.0,"total_tokens":8.0}}`),
		[]byte(`{"object":"list","data":[{"object":"embedding","index":1,"embedding":[0.2]}],"model":"m","usage":{"prompt_tokens":3,"total_tokens":3}}`),
	})
	if err != nil || !strings.Contains(string(out), `"prompt_tokens":11`) {
		t.Errorf("JoinEmbeddings: %s, %v; want the two batches' 11 prompt tokens", out, err)
	}
}

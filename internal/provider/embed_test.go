package provider

import (
	"strings"
	"testing"
)

// JoinEmbeddings joins the lists of one request's batches in order, the
// usage summed, and refuses lists that do not number every input once.
func TestJoinEmbeddings(t *testing.T) {
	list := func(usage string, idx ...string) []byte {
		var data []string
		for _, i := range idx {
			data = append(data, `{"object":"embedding","index":`+i+`,"embedding":"AAAAAA=="}`)
		}
		return []byte(`{"object":"list","data":[` + strings.Join(data, ",") + `],"model":"m","usage":` + usage + `}`)
	}
	got, err := JoinEmbeddings([][]byte{list(`{"prompt_tokens":3,"total_tokens":3}`, "0", "1"), list(`{"prompt_tokens":2,"total_tokens":2}`, "2")})
	want := `{"object":"list","data":[{"object":"embedding","index":0,"embedding":"AAAAAA=="},{"object":"embedding","index":1,"embedding":"AAAAAA=="},{"object":"embedding","index":2,"embedding":"AAAAAA=="}],"model":"m","usage":{"prompt_tokens":5,"total_tokens":5}}`
	if err != nil || string(got) != want {
		t.Errorf("joined: %v\n got %s\nwant %s", err, got, want)
	}
	for _, bad := range [][][]byte{
		{list(`{}`, "0", "1"), list(`{}`, "1")}, // a batch numbered from 0 again
		{list(`{}`, "0"), list(`{}`, "2")},      // an input missing
		{list(`{}`, "0"), []byte(`{"data":`)},   // not JSON
	} {
		if out, err := JoinEmbeddings(bad); err == nil {
			t.Errorf("joined %s", out)
		}
	}
}

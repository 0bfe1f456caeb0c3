package classify

import (
	"strings"
	"testing"
)

// A word inside a provider's link is no evidence (docs/behaviour.md, "How
// the words are read"). In a JSON body a line break before the link is the
// two bytes `\n`, and some servers (PHP's json_encode) write every slash as
// `\/`: the link must be found either way, so the class of an answer does
// not change with how its text was broken or escaped (hunt 44a: kluster's
// 429 read as quota once its ". " became ".\n").
func TestLinkAfterEscapedBreakOrSlashesIsALink(t *testing.T) {
	cases := []struct {
		status int
		msg    string
	}{
		{429, `Number of concurrent connections for the account exceeded. https://platform.kluster.ai/billing`},
		{429, `Too many requests in flight. https://example.com/account/billing/limits`},
		{400, `Request could not be processed. https://example.com/docs/billing`},
	}
	for _, c := range cases {
		base := Classify(Response{Status: c.status, Body: []byte(`{"error":{"message":"` + c.msg + `"}}`)})
		for _, sep := range []string{" ", `\n`, `\r\n`, `\t`, `\n\n`} {
			for _, slash := range []string{`/`, `\/`} {
				msg := strings.Replace(c.msg, ". ", "."+sep, 1)
				msg = strings.ReplaceAll(msg, "/", slash)
				got := Classify(Response{Status: c.status, Body: []byte(`{"error":{"message":"` + msg + `"}}`)})
				if got.Class != base.Class {
					t.Errorf("%d %s: %s (%s), want %s (%s) as with a blank", c.status, msg, got.Class, got.Evidence, base.Class, base.Evidence)
				}
			}
		}
	}
	// The words before a link still count.
	v := Classify(Response{Status: 429, Body: []byte(`{"error":{"message":"Check your billing details.\nhttps://example.com/x"}}`)})
	if v.Class != Quota {
		t.Errorf("billing before the link: %s (%s), want quota", v.Class, v.Evidence)
	}
}

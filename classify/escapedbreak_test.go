package classify

import "testing"

// A phrase whose first word has two letters ("no longer a member of the
// organization") is found where a line break, written `\n` in the JSON,
// follows that word, as where a blank does: the phrase filter read the
// escape's backslash as the phrase's third byte.
func TestPhraseAfterTwoLetterWordAndEscapedBreak(t *testing.T) {
	for _, sep := range []string{" ", `\n`, `\r\n`, `\t`} {
		body := `{"error":{"message":"Account is no` + sep + `longer a member of the organization associated with this token."}}`
		if v := Classify(Response{Status: 403, Body: []byte(body)}); v.Class != Auth {
			t.Errorf("%q: %s (%s), want auth", sep, v.Class, v.Evidence)
		}
	}
}

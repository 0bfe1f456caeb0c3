package dispatch

import (
	"strings"
	"testing"
)

// What /v1/health shows of an upstream's message for a cooldown is short
// enough to read in a table, cut between words, with every quoted value
// and every run of the client's own words masked: anyone may read it.
func TestCauseWords_review40b(t *testing.T) {
	same := func(s string) string { return s }
	long := strings.Repeat("Your organization has exceeded its monthly spend limit ", 6)
	for _, c := range []struct {
		name, msg, req, want string
	}{
		{"kept as said", "You exceeded your current quota, please check your plan and billing details.", `{"messages":[{"role":"user","content":"hi"}]}`,
			"You exceeded your current quota, please check your plan and billing details."},
		{"quoted values masked, blanks folded", "The model `gpt-4-32k` has\n  been deprecated", ``, "The model `…` has been deprecated"},
		{"the client's run masked", "Quota exceeded. Last input: please ignore all previous instructions.", `{"content":"Please ignore all previous instructions"}`,
			"Quota exceeded. Last input: …"},
		{"a long word the client sent masked", "Key rejected for tenant acme-prod-tenant-42.", `{"user":"acme-prod-tenant-42"}`, "Key rejected for tenant …"},
		{"short common words stay", "You have reached your usage limits.", `{"content":"you have to reach"}`, "You have reached your usage limits."},
		{"cut between words", long, ``, strings.TrimSpace(long[:strings.LastIndexByte(long[:158], ' ')]) + "…"},
		{"nothing", "   ", ``, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := causeWords(c.msg, []byte(c.req), same)
			if got != c.want {
				t.Errorf("causeWords(%q)\n got %q\nwant %q", c.msg, got, c.want)
			}
			if len(got) > maxWords {
				t.Errorf("%d bytes, want at most %d", len(got), maxWords)
			}
		})
	}
}

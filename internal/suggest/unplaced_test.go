package suggest

import "testing"

// An unknown the operator's own rule placed (evidence rule:N) is not one
// to suggest a rule for: the suggestion, pasted before it, would undo it.
// Nor is an attempt Detour never sent (a request it could not translate
// for the target, or whose translation was past its allowance): no
// upstream answered it, and no rule can place what no one said (review
// 64h: they filled the console's Unknowns with empty messages).
func TestUnplaced(t *testing.T) {
	for _, c := range []struct {
		class, evidence string
		want            bool
	}{
		{"unknown", "status:400", true},
		{"unknown", "rule:1", false},
		{"quota", "phrase:credit balance", false},
		{"unknown", "", true},
		{"unknown", "translate", false},
		{"unknown", "allowance", false},
		{"unknown", "translation-cost", false},
	} {
		if got := Unplaced(c.class, c.evidence); got != c.want {
			t.Errorf("%s %s: %v, want %v", c.class, c.evidence, got, c.want)
		}
	}
}

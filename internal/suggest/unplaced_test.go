package suggest

import "testing"

// An unknown the operator's own rule placed (evidence rule:N) is not one
// to suggest a rule for: the suggestion, pasted before it, would undo it.
func TestUnplaced(t *testing.T) {
	for _, c := range []struct {
		class, evidence string
		want            bool
	}{
		{"unknown", "status:400", true},
		{"unknown", "rule:1", false},
		{"quota", "phrase:credit balance", false},
		{"unknown", "", true},
	} {
		if got := Unplaced(c.class, c.evidence); got != c.want {
			t.Errorf("%s %s: %v, want %v", c.class, c.evidence, got, c.want)
		}
	}
}

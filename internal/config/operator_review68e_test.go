package config

import (
	"strings"
	"testing"
)

// Operator review 68e: a tab in the indentation of a line that follows a
// mapping's value ("- name: deep\n\tstrategy: ordered") is reported by yaml
// as "found a tab character that violates indentation" at the line where
// the value before it began, not the line holding the tab: the operator
// looked at line 28 of a file whose tab was on line 29. The error names the
// line with the tab.
func TestTabAfterAValueIsReportedAtItsOwnLine_review68e(t *testing.T) {
	for _, tc := range []struct {
		name, yml string
		line      string
	}{
		{"tab alone", "providers:\n  - name: p\n\tdialect: openai\n", "c.yaml:3: "},
		{"spaces then a tab", "providers:\n  - name: p\n  \tdialect: openai\n", "c.yaml:3: "},
		{"after a blank line", "routes:\n  - name: r\n\n\ttargets: [t]\n", "c.yaml:4: "},
	} {
		_, err := Parse("c.yaml", []byte(tc.yml), review38cNoEnv)
		if err == nil || !strings.HasPrefix(err.Error(), tc.line) || !strings.Contains(err.Error(), "tab") {
			t.Errorf("%s: got %v, want %q naming the tab", tc.name, err, tc.line)
		}
	}
}

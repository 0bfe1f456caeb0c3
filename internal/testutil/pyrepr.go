package testutil

import "strings"

// PyList prints items as Python's repr of a list of strings does (the
// single quote, or the double one for an item holding a single quote): how
// Python servers quote a client's list back in their errors.
func PyList(items []string) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			b.WriteString(", ")
		}
		q := "'"
		if strings.Contains(it, "'") && !strings.Contains(it, `"`) {
			q = `"`
		}
		b.WriteString(q + it + q)
	}
	b.WriteByte(']')
	return b.String()
}

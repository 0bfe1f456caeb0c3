package dispatch

import "testing"

// The bounds on an answer's counts (review 62b): sixteen times the body's
// bytes and a context window's worth more of prompt; the output limit it sets (the
// largest it names) times its n, else answerOutput per choice.
func TestCeilings(t *testing.T) {
	for _, c := range []struct {
		body           string
		prompt, output int
	}{
		{`{"max_tokens":16}`, promptBeyondBody + bodyReads*17, 16},
		{`{"max_completion_tokens":100,"max_tokens":16}`, promptBeyondBody + bodyReads*45, 100},
		{`{"max_output_tokens":2048}`, promptBeyondBody + bodyReads*26, 2048},
		{`{"max_tokens":16,"n":3}`, promptBeyondBody + bodyReads*23, 48},
		{`{"max_tokens":16,"n":100000}`, promptBeyondBody + bodyReads*28, 16 * maxChoices},
		{`{"n":2}`, promptBeyondBody + bodyReads*7, 2 * answerOutput},
		{`{"max_tokens":"16"}`, promptBeyondBody + bodyReads*19, answerOutput},
		{`{"max_tokens":-5}`, promptBeyondBody + bodyReads*17, answerOutput},
		{``, maxCount, maxCount},
	} {
		if p, o := ceilings([]byte(c.body)); p != c.prompt || o != c.output {
			t.Errorf("%s: prompt %d output %d, want %d %d", c.body, p, o, c.prompt, c.output)
		}
	}
}

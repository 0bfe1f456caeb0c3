package dispatch

import (
	"strings"
	"testing"
)

// A legacy Completions request (the /v1/completions door) is estimated as a
// chat request is: its prompt's text at four bytes a token, and a prompt
// of token ids at a token an id, as an embeddings input is; best_of
// multiplies the output it may have billed as n does (best_of choices are
// written and billed, n returned).
func TestCompletionsEstimates(t *testing.T) {
	toks := strings.TrimSuffix(strings.Repeat("15496, ", 3000), ", ")
	for prompt, want := range map[string]int{`[` + toks + `]`: 3000, `[[` + toks + `],[` + toks + `]]`: 6000,
		`"` + strings.Repeat("abcd", 1000) + `"`: 1000} {
		got := inputEstimate([]byte(`{"model":"m","prompt":` + prompt + `,"max_tokens":16}`))
		if got < want || got > want+10 {
			t.Errorf("prompt %.20s…: estimate %d, want about %d", prompt, got, want)
		}
	}
	for body, want := range map[string]int{
		`{"max_tokens":10}`:                     10,
		`{"max_tokens":10,"n":3}`:               30,
		`{"max_tokens":10,"best_of":4}`:         40,
		`{"max_tokens":10,"n":2,"best_of":5}`:   50,
		`{"max_tokens":10,"n":3,"best_of":1}`:   30,
		`{"max_tokens":10,"best_of":"x","n":2}`: 20,
	} {
		if got := capOutput(1000, []byte(body)); got != want {
			t.Errorf("%s: output capped at %d, want %d", body, got, want)
		}
	}
	if n := choicesBilled([]byte(`{"n":2,"best_of":6}`)); n != 6 {
		t.Errorf("choicesBilled %d, want best_of's 6", n)
	}
	// A whole Completions answer without usage counts its text.
	if got := answerOutputEstimate([]byte(`{"choices":[{"text":"`+strings.Repeat("x", 400)+`","index":0}]}`), nil); got != 100 {
		t.Errorf("answer estimate %d, want 100", got)
	}
}

// Review 65h: a whole Completions answer without usage to a request with
// best_of holds n of the best_of choices written and billed for each
// prompt; its text was the estimate, so best_of 10 counted a tenth of
// what ran (its cap allowed the ten).
func TestReview65hBestOfAnswerWithoutUsageCountsEveryCandidate(t *testing.T) {
	answer := []byte(`{"object":"text_completion","choices":[{"text":"` + strings.Repeat("x", 400) + `","index":0,"finish_reason":"stop"}]}`)
	for body, want := range map[string]int{
		`{"prompt":"p","best_of":10,"max_tokens":200}`:       1000,
		`{"prompt":"p","best_of":10,"n":2,"max_tokens":200}`: 500,
		`{"prompt":"p","best_of":10,"max_tokens":50}`:        500, // the cap: ten of 50
		`{"prompt":"p","max_tokens":200}`:                    100,
	} {
		if got := completionsOutputEstimate(answer, []byte(body)); got != want {
			t.Errorf("%s: estimate %d, want %d", body, got, want)
		}
	}
}

package dispatch

import (
	"strings"
	"testing"
)

// Review 65f: a legacy Completions request's prompt list is a batch, one
// answer (n choices) a prompt. completionPrompts counts its prompts as the
// API does, and capOutput bounds a batch's output by every prompt's
// max_tokens: before, a batch of 20 prompts whose answer came without
// usage was estimated at one prompt's max_tokens, a twentieth of what a
// client key's limits should have counted.
func TestReview65fCompletionPrompts(t *testing.T) {
	for prompt, want := range map[string]int{
		`"x"`:             1,
		`[1,2,3]`:         1, // token ids: one prompt
		`[-1,2]`:          1,
		`[]`:              1,
		`["a","b","c"]`:   3,
		`[[1,2],[3],[4]]`: 3,
		` [ "a" , "b" ] `: 2,
		`{"id":"pmpt_1"}`: 1, // a Responses body's stored prompt
		`[` + strings.Repeat(`"a",`, 5000) + `"a"]`: 1025, // at most MaxParts+1, as n
	} {
		if got := completionPrompts([]byte(`{"model":"m","prompt":` + prompt + `}`)); got != want {
			t.Errorf("prompt %.40s: %d prompts, want %d", prompt, got, want)
		}
	}
	if got := completionPrompts([]byte(`{"model":"m","messages":[]}`)); got != 1 {
		t.Errorf("a chat body: %d prompts", got)
	}
	for body, want := range map[string]int{
		`{"max_tokens":16,"prompt":["a","b","c"]}`:               48,
		`{"max_tokens":16,"n":2,"prompt":["a","b"]}`:             64,
		`{"max_tokens":16,"best_of":3,"n":2,"prompt":["a","b"]}`: 96,
		`{"max_tokens":16,"prompt":[1,2,3]}`:                     16,
		`{"max_tokens":16,"n":2}`:                                32,
		`{"prompt":["a","b"]}`:                                   100000,
	} {
		if got := capOutput(100000, []byte(body)); got != want {
			t.Errorf("%s: output capped at %d, want %d", body, got, want)
		}
	}
}

package dispatch

import (
	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/rawjson"
)

// Counts no answer can have (docs/config.md, "Usage and cost", "Counts
// past what the request allows"). An upstream's usage is what Detour
// bills a client key and reports as cost; one broken or lying count (a
// self-hosted server's unsigned -1, 4294967295 completion tokens) spent a
// key's whole month in one answer (review 62b). Each attempt's counts are
// cut to what an answer to the request it sent can have used, and the
// record says so (Usage.Capped).

const (
	// promptBeyondBody is how many prompt tokens a request may bring
	// beyond its own bytes (one token is at least one byte of text): media
	// by URL or file id, a stored conversation (previous_response_id), a
	// server tool's results. 2^21, past the longest context windows
	// served by URL (two million tokens).
	promptBeyondBody = 1 << 21
	// bodyReads is how many times a request's bytes may be counted in
	// one answer's prompt: a server tool's loop (Anthropic's web search,
	// OpenAI's hosted tools) reads the conversation again on each turn
	// and counts it each time.
	bodyReads = 16
	// answerOutput is the most output tokens one choice of an answer can
	// have where the request sets no limit: 2^20, several times past the
	// longest outputs served (128,000 tokens and a reasoning budget).
	answerOutput = 1 << 20
	// maxChoices bounds a request's n (OpenAI allows at most 128).
	maxChoices = 128
	// reasoningRoom is how much reasoning one choice may count beyond
	// the request's output limit, where the upstream says it reasoned:
	// not every vendor counts reasoning within max_tokens (DeepSeek's
	// reasoner long did not), and a client must not make reasoning free
	// by setting max_tokens 1. 2^17, past the largest thinking budgets
	// (128,000 tokens).
	reasoningRoom = 1 << 17
)

// ceilings are the most prompt and output tokens an answer to body can
// have counted: bodyReads times the body's bytes and promptBeyondBody; n
// choices of the output limit the body sets (max_completion_tokens,
// max_tokens, max_output_tokens: the largest when it names several),
// else of answerOutput. room is how much reported reasoning may add to
// output where the limit is the request's: n times reasoningRoom (0 where
// it sets none: answerOutput holds any reasoning). No body bounds
// nothing.
func ceilings(body []byte) (prompt, output, room int) {
	if len(body) == 0 {
		return maxCount, maxCount, 0
	}
	// One walk of the top level (a conversation is megabytes; a lookup
	// per name walked it four times), the last of a name winning as
	// encoding/json reads it.
	var limits [3]int
	choices := 1
	obj, _ := rawjson.ScanObject(body)
	for k, v, ok := obj.Next(); ok; k, v, ok = obj.Next() {
		n, plain := provider.PlainInt(v)
		switch {
		case rawjson.KeyIs(k, "max_completion_tokens"):
			limits[0] = n
		case rawjson.KeyIs(k, "max_tokens"):
			limits[1] = n
		case rawjson.KeyIs(k, "max_output_tokens"):
			limits[2] = n
		case rawjson.KeyIs(k, "n"):
			choices = 1
			if plain && n > 1 {
				choices = min(n, maxChoices)
			}
		}
	}
	limit := max(limits[0], limits[1], limits[2], 0)
	if limit == 0 {
		limit = answerOutput
	} else {
		room = choices * reasoningRoom
	}
	return min(promptBeyondBody+bodyReads*len(body), maxCount), min(choices*limit, maxCount), room
}

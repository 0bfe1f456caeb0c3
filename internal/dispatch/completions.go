package dispatch

import (
	"bytes"
	"encoding/json"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/rawjson"
)

// The legacy Completions door's readings of its body (a passthrough: the
// client's own, Call.sent) and its whole answer to a stream: a prompt list
// is a batch, each prompt answered with its own n choices, and best_of
// choices are written and billed where n are returned (docs/doors.md,
// "Legacy Completions"). The walk's readings shared with chat (capOutput,
// mayAnswerLarge, allChoices) call these where the door is Completions.

// completionPrompts is how many prompts a legacy Completions request body
// holds, each answered with its own n choices (n times the prompts in
// all): a string, or a list of token ids, is one prompt; a list of strings
// or of token-id lists is one an element (the API's batch: LangChain's
// OpenAI LLM sends its generate() prompts so). A body with no "prompt"
// list, an empty one included, is one. At most provider.MaxParts+1, as n
// is read.
func completionPrompts(body []byte) int {
	s, ok := rawjson.ScanArray(rawjson.Member(body, "prompt"))
	if !ok {
		return 1
	}
	n := 0
	for _, el, ok := s.Next(); ok && n <= provider.MaxParts; _, el, ok = s.Next() {
		if n == 0 && len(el) > 0 && (el[0] == '-' || el[0] >= '0' && el[0] <= '9') {
			return 1 // token ids: one prompt
		}
		n++
	}
	return max(n, 1)
}

// CompletionChoices is how many choices a legacy Completions request body
// has answered: n (choicesAsked) for each of its prompts
// (completionPrompts). The door refuses a stream of more than a stream's
// reader follows (provider.MaxParts).
func CompletionChoices(body []byte) int { return choicesAsked(body) * completionPrompts(body) }

// MaxStreamChoices is the most choices a stream's reader follows
// (provider.MaxParts): the chunks of any more are dropped as malformed.
const MaxStreamChoices = provider.MaxParts

// choicesBilled is how many choices body has the upstream write: n, read
// as the continuation reads it (choicesAsked), or a legacy Completions
// request's best_of when more (best_of are written and billed, n of them
// returned).
func choicesBilled(body []byte) int {
	n := choicesAsked(body)
	if b, ok := provider.PlainInt(rawjson.Member(body, "best_of")); ok && b > n {
		return min(b, provider.MaxParts+1)
	}
	return n
}

// completionAsEvent relays a whole Completions answer to a client that
// asked for a stream (a server that ignores "stream"): a Completions
// chunk has the whole answer's shape (choices with their text and
// finish_reason, usage), so the answer is the stream's one event, then
// [DONE] (the Output's End). It ran and was billed.
func (w *walk) completionAsEvent(e *endpointRT, body []byte, usage *provider.Usage, o *outcome) {
	var one bytes.Buffer
	if err := json.Compact(&one, body); err != nil { // one line: an SSE data line
		o.failWith(classify.Verdict{Class: classify.ServerError, Evidence: "decode"}, "the upstream's answer could not be read: "+err.Error())
		return
	}
	o.usage = usage
	if usage == nil && w.call.Metered {
		o.delivered = completionsOutputEstimate(body, w.call.sent())
	}
	if !w.commit(e, nil, o) || !w.write(o, one.Bytes()) {
		return
	}
	o.ok = w.end(o)
}

// completionsOutputEstimate is answerOutputEstimate for a whole
// Completions answer to sent: with best_of more than n, the answer holds n
// of the best_of choices written and billed for each prompt, and the ones
// it does not hold count as the ones it does (review 65h: best_of 10
// counted a tenth of what ran), no more than sent allowed (capOutput).
func completionsOutputEstimate(out, sent []byte) int {
	n := answerOutputEstimate(out, sent)
	if billed, returned := choicesBilled(sent), choicesAsked(sent); billed > returned {
		n = capOutput(n*billed/returned, sent)
	}
	return n
}

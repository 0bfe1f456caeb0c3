package messages

import (
	"strconv"
	"strings"

	"github.com/detour-llm/detour/classify"
)

// promptTooLong is Anthropic's wording for a conversation longer than the
// model's window ("prompt is too long: 209834 tokens > 200000 maximum"),
// the only one Claude Code reads as a full context: it compacts its history
// on it, sized by the two counts, and on nothing else (its errors.ts matches
// "prompt is too long" and then /prompt is too long[^0-9]*(\d+)\s*tokens?\s*>\s*(\d+)/i).
const promptTooLong = "prompt is too long"

// exceedLimit is the heart of Anthropic's wording for a prompt that fits
// but whose max_tokens does not beside it ("input length and `max_tokens`
// exceed context limit: 3245 + 1050 > 4097"): Claude Code lowers its
// max_tokens to the room left, from the three counts, and asks again.
const exceedLimit = "exceed context limit"

// blockedByFilter is Anthropic's wording for an answer its filter stopped
// ("Output blocked by content filtering policy"), contentFiltering the part
// of it a reader matches.
const (
	blockedByFilter  = "Output blocked by content filtering policy"
	contentFiltering = "content filtering policy"
)

// contextMessage is the message a Messages client is told for a failure of
// class c: a context-length failure another vendor worded its own way is
// told in Anthropic's words first, with the counts when the vendor gave
// them, and the vendor's message after, so Claude Code compacts as it does
// for Claude (docs/doors.md, "Anthropic Messages"). Other failures, and
// a message already in Anthropic's words, are told as they came.
func contextMessage(c classify.Class, message string) string {
	if c == classify.Refusal && !strings.Contains(strings.ToLower(message), contentFiltering) {
		// Another vendor's refusal, told in Anthropic's words first:
		// LiteLLM's anthropic/ raises its ContentPolicyViolationError on
		// them alone (probe 57b).
		return blockedByFilter + " (" + message + ")"
	}
	if c != classify.ContextLength || strings.Contains(strings.ToLower(message), promptTooLong) || strings.Contains(message, exceedLimit) {
		return message
	}
	if input, output, window, ok := classify.OutputCounts(message); ok && input < window {
		// The prompt fits; the output asked for does not beside it:
		// Anthropic's words for that, on which Claude Code lowers its
		// max_tokens and sends the turn again, where on "prompt is too
		// long" it compacts, or gives up on a short conversation (probe 58).
		// "prompt is too long" in it too: @langchain/anthropic raises its
		// ContextOverflowError (which LangChain's agents summarise on)
		// on those words alone, and did on these answers before; Claude
		// Code reads the counts first (hostile 58b, both real clients).
		return "input length and `max_tokens` " + exceedLimit + ": " + strconv.Itoa(input) + " + " + strconv.Itoa(output) + " > " + strconv.Itoa(window) +
			" (" + promptTooLong + " for the max_tokens asked; " + message + ")"
	}
	if used, window, ok := classify.ContextCounts(message); ok {
		return promptTooLong + ": " + strconv.Itoa(used) + " tokens > " + strconv.Itoa(window) + " maximum (" + message + ")"
	}
	return promptTooLong + " (" + message + ")"
}

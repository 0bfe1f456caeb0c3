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
	if c != classify.ContextLength || strings.Contains(strings.ToLower(message), promptTooLong) {
		return message
	}
	if used, window, ok := classify.ContextCounts(message); ok {
		return promptTooLong + ": " + strconv.Itoa(used) + " tokens > " + strconv.Itoa(window) + " maximum (" + message + ")"
	}
	return promptTooLong + " (" + message + ")"
}

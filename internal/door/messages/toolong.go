package messages

import (
	"regexp"
	"strings"

	"github.com/detour-llm/detour/classify"
)

// promptTooLong is Anthropic's wording for a conversation longer than the
// model's window ("prompt is too long: 209834 tokens > 200000 maximum"),
// the only one Claude Code reads as a full context: it compacts its history
// on it, sized by the two counts, and on nothing else (its errors.ts matches
// "prompt is too long" and then /prompt is too long[^0-9]*(\d+)\s*tokens?\s*>\s*(\d+)/i).
const promptTooLong = "prompt is too long"

// Other vendors' wordings of the same failure, each read for the
// conversation's tokens and the window's: OpenAI's and vLLM's ("This
// model's maximum context length is 128000 tokens. However, your messages
// resulted in 130512 tokens", "… you requested 33000 tokens") and Gemini's
// ("The input token count (1052916) exceeds the maximum number of tokens
// allowed (1048576)").
var (
	openaiWindow = regexp.MustCompile(`(?i)maximum context length is (\d+) tokens.{0,80}?(?:resulted in|requested) (\d+) tokens`)
	geminiWindow = regexp.MustCompile(`(?i)input token count \(?(\d+)\)? exceeds the maximum number of tokens allowed \(?(\d+)\)?`)
)

// contextMessage is the message a Messages client is told for a failure of
// class c: a context-length failure another vendor worded its own way is
// told in Anthropic's words first, with the counts when the vendor gave
// them, and the vendor's message after, so Claude Code compacts as it does
// for Claude (docs/doors.md, "Anthropic Messages"). Other failures, and
// a message already in Anthropic's words, are told as they came.
func contextMessage(c classify.Class, message string) string {
	if c != classify.ContextLength || strings.Contains(strings.ToLower(message), promptTooLong) {
		return message
	}
	if m := openaiWindow.FindStringSubmatch(message); m != nil {
		return promptTooLong + ": " + m[2] + " tokens > " + m[1] + " maximum (" + message + ")"
	}
	if m := geminiWindow.FindStringSubmatch(message); m != nil {
		return promptTooLong + ": " + m[1] + " tokens > " + m[2] + " maximum (" + message + ")"
	}
	return promptTooLong + " (" + message + ")"
}

package classify

import (
	"regexp"
	"strconv"
)

// The vendors' wordings of a conversation longer than the model's window,
// each read for the conversation's tokens and the window's: OpenAI's and
// vLLM's ("This model's maximum context length is 128000 tokens. However,
// your messages resulted in 130512 tokens", "… you requested 33000
// tokens"), Gemini's ("The input token count (1052916) exceeds the maximum
// number of tokens allowed (1048576)"), Vertex's ("The input token count is
// 1251952 but model only supports up to 1048576") and Anthropic's ("prompt
// is too long: 208310 tokens > 200000 maximum").
var (
	openaiWindow    = regexp.MustCompile(`(?i)maximum context length is (\d+) tokens.{0,80}?(?:resulted in|requested) (\d+) tokens`)
	geminiWindow    = regexp.MustCompile(`(?i)input token count \(?(\d+)\)? exceeds the maximum number of tokens allowed \(?(\d+)\)?`)
	anthropicWindow = regexp.MustCompile(`(?i)prompt is too long:?\s*(\d+)\s*tokens?\s*>\s*(\d+)`)
	vertexWindow    = regexp.MustCompile(`(?i)input token count is (\d+) but (?:the )?model only supports up to (\d+)`)
)

// ContextCounts reads a context_length answer's message for the tokens the
// conversation came to and the model's window, in the wordings above; ok
// is false when msg gives neither. A door that words the failure as its
// own API's clients read it (Claude Code compacts on Anthropic's words,
// LangChain's ChatOpenAI on OpenAI's) tells the counts again.
func ContextCounts(msg string) (used, window int, ok bool) {
	pick := func(m []string, u, w int) (int, int, bool) {
		a, err1 := strconv.Atoi(m[u])
		b, err2 := strconv.Atoi(m[w])
		return a, b, err1 == nil && err2 == nil
	}
	if m := openaiWindow.FindStringSubmatch(msg); m != nil {
		return pick(m, 2, 1)
	}
	if m := geminiWindow.FindStringSubmatch(msg); m != nil {
		return pick(m, 1, 2)
	}
	if m := anthropicWindow.FindStringSubmatch(msg); m != nil {
		return pick(m, 1, 2)
	}
	if m := vertexWindow.FindStringSubmatch(msg); m != nil {
		return pick(m, 1, 2)
	}
	return 0, 0, false
}

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

// The wordings of a window the prompt fits but the prompt and the output
// asked for do not: OpenAI's and vLLM's "maximum context length is 4097
// tokens. However, you requested 4295 tokens (3245 in the messages, 1050
// in the completion)", vLLM's "'max_tokens' or 'max_completion_tokens' is
// too large: 65536. This model's maximum context length is 262144 tokens
// and your request has 203462 input tokens", and Anthropic's own "input
// length and `max_tokens` exceed context limit: 3245 + 1050 > 4097".
var (
	openaiSplit    = regexp.MustCompile(`(?i)maximum context length is (\d+) tokens.{0,120}?\((\d+) in the messages, (\d+) in the completion\)`)
	vllmOutput     = regexp.MustCompile(`(?i)is too large: (\d+)\. This model's maximum context length is (\d+) tokens and your request has (\d+) input tokens`)
	anthropicSplit = regexp.MustCompile("(?i)input length and `?max_tokens`? exceed context limit: (\\d+) \\+ (\\d+) > (\\d+)")
)

// OutputCounts reads a context_length answer's message for the prompt's
// tokens, the output tokens the request asked for and the model's window,
// in the wordings above; ok is false when msg gives no such split. A door
// tells a failure whose prompt alone fits in the words its clients lower
// their output limit on (Claude Code does, on Anthropic's), not as a prompt
// too long, which they compact on or give up.
func OutputCounts(msg string) (input, output, window int, ok bool) {
	atoi := func(ss ...string) ([]int, bool) {
		out := make([]int, len(ss))
		for i, s := range ss {
			n, err := strconv.Atoi(s)
			if err != nil {
				return nil, false
			}
			out[i] = n
		}
		return out, true
	}
	if m := openaiSplit.FindStringSubmatch(msg); m != nil {
		if n, ok := atoi(m[2], m[3], m[1]); ok {
			return n[0], n[1], n[2], true
		}
	}
	if m := vllmOutput.FindStringSubmatch(msg); m != nil {
		if n, ok := atoi(m[3], m[1], m[2]); ok {
			return n[0], n[1], n[2], true
		}
	}
	if m := anthropicSplit.FindStringSubmatch(msg); m != nil {
		if n, ok := atoi(m[1], m[2], m[3]); ok {
			return n[0], n[1], n[2], true
		}
	}
	return 0, 0, 0, false
}

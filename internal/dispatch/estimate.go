package dispatch

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/chat"
	"github.com/detour-llm/detour/internal/rawjson"
)

// Client limits count a billable attempt whose upstream never reported its
// usage by its input, estimated from the request it sent (docs/config.md,
// client_keys). The estimate reads the request's JSON once: the bytes of
// its strings (keys too, as sent: the framing the model also reads) at
// bytesPerToken, its other scalars (numbers, true, false, null: a tool
// schema's enum of numbers is prompt the upstream reads and bills; review
// 61c: 169 KB of them counted nothing) each at bytesPerToken and at least
// a token (review 61g: an enum of one-digit numbers was a quarter of what
// the upstream bills), and imageTokens for each inline image or
// file — a data: URL, or a long base64 string under a member that holds
// inline data (inlineData) — which a byte count would make hundreds of times what the
// provider bills; and as much for each image or file the request names by
// reference (a URL or a file id, reference): the provider fetches it and
// bills it as it bills inline data, which the bytes of its name would
// make a hundredth of (review 33b).
const (
	bytesPerToken = 4
	// imageTokens is the ceiling of one image at the providers Detour
	// speaks to (Anthropic: about 1,600 tokens once scaled to ~1.15
	// megapixels; OpenAI's high-detail tiles about as many).
	imageTokens = 1600
	// minInline is the length from which a string of base64 characters
	// alone is taken for inline data, not text.
	minInline = 1024
)

// inputEstimate is the estimated input tokens of a request body.
func inputEstimate(body []byte) int {
	text, inline, scalars, run := 0, 0, 0, 0
	var key []byte    // the member name a string value follows
	textMime := false // the last media type named is a text one (Gemini's inlineData of a text file)
	for i := 0; i < len(body); i++ {
		if body[i] != '"' {
			if scalarByte(body[i]) {
				run++
			} else if run > 0 {
				scalars, run = scalars+scalarTokens(run), 0
			}
			continue
		}
		if run > 0 {
			scalars, run = scalars+scalarTokens(run), 0
		}
		end, b64 := i+1, true
		for end < len(body) && body[end] != '"' {
			c := body[end]
			if c == '\\' {
				// "\/" is a '/' as PHP's json_encode writes it by default
				// (openai-php and other PHP clients' inline images: last
				// look 68g); any other escape is text's.
				b64 = b64 && end+1 < len(body) && body[end+1] == '/'
				end += 2
				continue
			}
			b64 = b64 && isBase64(c)
			end++
		}
		s := body[i+1 : min(end, len(body))]
		next := end + 1
		for next < len(body) && (body[next] == ' ' || body[next] == '\t' || body[next] == '\n' || body[next] == '\r') {
			next++
		}
		switch {
		case next < len(body) && body[next] == ':': // a member's name
			text += len(s)
			key = s
		case mediaTypeKey(key):
			textMime = chat.TextType(string(s))
			text += len(s)
			key = nil
		case isDataURL(s) && textDataURL(s), b64 && len(s) >= minInline && inlineData(key) && textMime:
			// A text file, which the provider reads as text: its decoded
			// bytes (hostile 52c: 400 KB of text was one image, 1,600
			// tokens).
			text += base64Len(s)
			textMime = false
			key = nil
		case isDataURL(s), b64 && len(s) >= minInline && inlineData(key), reference(key):
			inline++
			textMime = false
			key = nil
		default:
			text += len(s)
			key = nil
		}
		i = end
	}
	if run > 0 {
		scalars += scalarTokens(run)
	}
	n, inInput := inputNumbers(body)
	return (text+bytesPerToken-1)/bytesPerToken + max(scalars-inInput, 0) + inline*imageTokens + n
}

// scalarByte reports whether c, outside a string, is part of a number or
// of true, false or null (not a bracket, a separator or a blank).
func scalarByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '+' || c == '.'
}

// scalarTokens is the estimate of one scalar of n bytes: n at
// bytesPerToken, at least one token.
func scalarTokens(n int) int { return max(1, (n+bytesPerToken-1)/bytesPerToken) }

// inputNumbers counts the numbers in body's top-level "input" and
// "prompt" (0 when it has neither): an embeddings request's token arrays,
// and a legacy Completions request's prompt given as token ids, one token
// per number (probe 53b: 16,000 tokens sent as arrays were estimated at
// 10), and what inputEstimate's scalar count made of them, which it then
// leaves out.
func inputNumbers(body []byte) (n, scalars int) {
	for _, m := range [...]string{"input", "prompt"} {
		a, b := memberNumbers(body, m)
		n, scalars = n+a, scalars+b
	}
	return n, scalars
}

// memberNumbers is inputNumbers for the top-level member m alone, when it
// is a list.
func memberNumbers(body []byte, m string) (n, scalars int) {
	s, e, err := rawjson.MemberSpan(body, m)
	if err != nil || s < 0 || body[s] != '[' {
		return 0, 0
	}
	inString, prev, run := false, byte(0), 0
	for i := s; i < e; i++ {
		c := body[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
			continue
		case c == '"':
			inString = true
		case (c == '-' || c >= '0' && c <= '9') && (prev == '[' || prev == ','):
			n++
		}
		if !inString && scalarByte(c) {
			run++
		} else if run > 0 {
			scalars, run = scalars+scalarTokens(run), 0
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			prev = c
		}
	}
	if run > 0 {
		scalars += scalarTokens(run)
	}
	return n, scalars
}

func isBase64(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '='
}

// isDataURL reports whether s is a base64 data: URL: its data, after the
// comma, base64 characters only. Prose behind a "data:a;base64," prefix
// is text the model reads, all of it (hostile 52).
func isDataURL(s []byte) bool {
	if len(s) < 5 || string(s[:5]) != "data:" {
		return false
	}
	for i := 5; i < len(s) && i < 128; i++ {
		if s[i] == ',' {
			if i < 12 || string(s[i-7:i]) != ";base64" {
				return false
			}
			for _, c := range s[i+1:] {
				if !isBase64(c) && c != '\\' { // "\n": base64 wrapped in lines
					return false
				}
			}
			return true
		}
	}
	return false
}

// mediaTypeKey reports whether key names a media type (Gemini's mimeType,
// Anthropic's media_type).
func mediaTypeKey(key []byte) bool {
	switch string(key) {
	case "mimeType", "mime_type", "media_type":
		return true
	}
	return false
}

// textDataURL reports whether the data: URL s is of a text type.
func textDataURL(s []byte) bool {
	mt, _, _ := strings.Cut(string(s[len("data:"):min(len(s), 128)]), ";")
	return chat.TextType(mt)
}

// base64Len is about how many bytes the base64 after s's last comma (all
// of s when it has none) decodes to.
func base64Len(s []byte) int {
	if i := bytes.LastIndexByte(s, ','); i >= 0 {
		s = s[i+1:]
	}
	return len(s) * 3 / 4
}

// inlineData reports whether a string under the member key may be inline
// bytes: Anthropic's source.data, Gemini's inlineData.data, OpenAI's
// input_audio.data and file_data, and the Responses API's
// image_generation_call.result, an image a stateless client sends back
// (review 52). Anywhere else a long run of base64
// characters is text the client wrote (a payload it asks the model to
// decode), counted by its bytes: taken for an image, 400,000 characters
// cost a client that left its stream 1,600 tokens (hostile 52).
func inlineData(key []byte) bool {
	switch string(key) {
	case "data", "file_data", "result":
		return true
	}
	return false
}

// reference reports whether a string under the member key names an image
// or a file the provider fetches: OpenAI's image_url (a URL, or an object
// whose url it is) and file_id, the Responses API's file_url, Anthropic's
// {"type":"url","url":…} and {"type":"file","file_id":…} sources, Gemini's
// fileData.fileUri.
func reference(key []byte) bool {
	switch string(key) {
	case "url", "image_url", "file_url", "file_id", "fileUri", "file_uri":
		return true
	}
	return false
}

// largeOutputFloor is how many output tokens an answer of size bytes to
// body (a chat request mayAnswerLarge) holds at least, for the client's
// limits, as its usage was past the bytes read (review 51a: a client
// paid the input of a $5.60 answer): a token with 20 log-probability
// alternatives takes under 2 KiB of JSON, one without under 16 bytes. No
// more than the output the request allowed (max_completion_tokens or
// max_tokens, times n), when it set one. completions: body is a legacy
// Completions request's, whose logprobs is a number of alternatives.
func largeOutputFloor(body []byte, bytes int, completions bool) int {
	per := 16
	if askedLogprobs(body, completions) {
		per = 2048
	}
	return capOutput(bytes/per, body)
}

// askedLogprobs reports whether body asks for log-probabilities: chat's
// logprobs true, or a legacy Completions request's logprobs as a number
// (0 to 5 at OpenAI, up to 20 at vLLM: the alternatives a token), which
// a chat body's is not.
func askedLogprobs(body []byte, completions bool) bool {
	m := rawjson.Member(body, "logprobs")
	if string(m) == "true" {
		return true
	}
	_, num := provider.PlainInt(m)
	return completions && num
}

// capOutput is n, no more than the output request body allowed
// (requestOutput), when it set a limit.
func capOutput(n int, body []byte) int {
	limit, c := requestOutput(body)
	if limit <= 0 {
		return n
	}
	if limit > math.MaxInt/c {
		return n // a limit past any count caps nothing (hostile 52: the product wrapped to 4)
	}
	return min(n, limit*c)
}

// requestOutput is the output limit request body sets on each answer it
// asks for (max_completion_tokens, max_tokens, or the Responses API's
// max_output_tokens; 0 when it sets none) and how many answers that limit
// applies to: n — or best_of, when more: a legacy Completions request has
// best_of choices written and billed, and n of them returned — at most
// maxChoices, times a Completions batch's prompts, each of which has its
// own (completionPrompts; review 65f: a batch of 20 prompts' answer was
// capped at one prompt's max_tokens). It is the most output the request
// allows, which bounds what an answer is counted (capOutput) and what an
// answer not read is counted at (unreadOutput, ceiling.go).
func requestOutput(body []byte) (limit, choices int) {
	for _, k := range []string{"max_completion_tokens", "max_tokens", "max_output_tokens"} {
		if v, err := strconv.Atoi(string(rawjson.Member(body, k))); err == nil && v > 0 {
			limit = v
			break
		}
	}
	c, err := strconv.Atoi(string(rawjson.Member(body, "n")))
	if b, berr := strconv.Atoi(string(rawjson.Member(body, "best_of"))); berr == nil && b > max(c, 1) {
		c, err = b, nil
	}
	if err != nil || c < 1 {
		c = 1
	}
	return limit, min(c, maxChoices) * completionPrompts(body)
}

// answerOutputEstimate is the output tokens of out, a whole
// chat.completion whose usage did not read: its choices' text, refusals,
// reasoning and call arguments at four bytes a token (the JSON around
// them, and log-probabilities, are no output; review 51b: counting the
// whole answer charged a "hi" some sixty tokens), no more than the output
// the request body allowed.
func answerOutputEstimate(out, body []byte) int {
	var c struct {
		Choices []struct {
			// Text is a legacy Completions choice's output.
			Text    *string `json:"text"`
			Message struct {
				Content          *string `json:"content"`
				Refusal          *string `json:"refusal"`
				ReasoningContent *string `json:"reasoning_content"`
				ToolCalls        []struct {
					Function struct {
						Name      string `json:"name"`
						Arguments string `json:"arguments"`
					} `json:"function"`
				} `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
	}
	if json.Unmarshal(out, &c) != nil {
		return capOutput(len(out)/4, body)
	}
	n := 0
	for _, ch := range c.Choices {
		m := &ch.Message
		for _, s := range []*string{ch.Text, m.Content, m.Refusal, m.ReasoningContent} {
			if s != nil {
				n += len(*s)
			}
		}
		for _, tc := range m.ToolCalls {
			n += len(tc.Function.Name) + len(tc.Function.Arguments)
		}
	}
	return capOutput((n+3)/4, body)
}

// mayAnswerLarge reports a chat request whose honest answer can pass the
// 64 MiB bound: log-probabilities (up to 20 alternatives a token), or
// several choices. Without either, no working provider's chat answer
// comes near it, and one that does is a broken upstream's (answerTooLarge).
// completions: body is a legacy Completions request's, whose logprobs is
// a number, and whose choices are n (or best_of) for each of its prompts
// (review 65h).
func mayAnswerLarge(body []byte, completions bool) bool {
	if askedLogprobs(body, completions) {
		return true
	}
	if completions && (choicesBilled(body) > 1 || completionPrompts(body) > 1) {
		return true
	}
	n, err := strconv.Atoi(string(rawjson.Member(body, "n")))
	return err == nil && n > 1
}

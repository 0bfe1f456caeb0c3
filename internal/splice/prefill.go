package splice

import (
	"encoding/json"
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/detour-llm/detour/classify"
)

// Prefill builds the continuation request of a cut stream for a target
// that accepts a prefill: body (the client's canonical chat request JSON,
// every member kept) with the delivered text as a trailing assistant
// message. When the request already ends with an assistant message (the
// client's own prefill, with string content) the text is appended to it, so
// there is still one final assistant message. For an openai-dialect target
// the request also carries continue_final_message: true and
// add_generation_prompt: false, the parameters OpenAI-compatible servers
// (vLLM, SGLang, llama.cpp) read to continue that message rather than open a
// new one.
//
// Trailing whitespace is removed from the prefill — Anthropic rejects
// "final assistant content cannot end with trailing whitespace", and a model
// continuing text that ends in a space tends to begin with one — and the
// returned Join trims the same whitespace from the start of the
// continuation. The caller feeds the continuation's chunks to the Join, then
// to the Seam.
//
// An error means no prefill can be built (body unreadable, the trailing
// assistant message is not plain text, nothing but whitespace delivered); the
// caller continues by replay.
func Prefill(body []byte, delivered string, dl classify.Dialect) ([]byte, *Join, error) {
	text := strings.TrimRightFunc(delivered, unicode.IsSpace)
	if text == "" {
		return nil, nil, errors.New("splice: nothing but whitespace delivered: no prefill")
	}
	var req map[string]json.RawMessage
	if err := json.Unmarshal(body, &req); err != nil || req == nil {
		return nil, nil, errors.New("splice: request body is not a JSON object")
	}
	var msgs []map[string]json.RawMessage
	if err := json.Unmarshal(req["messages"], &msgs); err != nil || len(msgs) == 0 {
		return nil, nil, errors.New("splice: request has no messages list")
	}
	last := msgs[len(msgs)-1]
	if role(last) == "assistant" {
		var prior string
		if raw, ok := last["tool_calls"]; ok && !isNull(raw) && string(raw) != "[]" {
			return nil, nil, errors.New("splice: the request ends with an assistant tool call")
		}
		if raw, ok := last["content"]; ok && !isNull(raw) {
			if err := json.Unmarshal(raw, &prior); err != nil {
				return nil, nil, errors.New("splice: the request's final assistant message is not plain text")
			}
		}
		last["content"] = mustMarshal(prior + text)
	} else {
		msgs = append(msgs, map[string]json.RawMessage{
			"role": json.RawMessage(`"assistant"`), "content": mustMarshal(text)})
	}
	req["messages"] = mustMarshal(msgs)
	if dl == classify.OpenAI {
		req["continue_final_message"] = json.RawMessage("true")
		req["add_generation_prompt"] = json.RawMessage("false")
	}
	return mustMarshal(req), &Join{ws: delivered[len(text):]}, nil
}

func role(m map[string]json.RawMessage) string {
	var r string
	_ = json.Unmarshal(m["role"], &r)
	return r
}

// Join joins a prefill continuation to the delivered text: the whitespace
// the prefill dropped is already with the client, so where the continuation
// begins by repeating it (character by character, across chunks), that much
// is removed. A continuation that begins differently is left as it is: the
// model chose its own next character. The zero Join passes everything.
type Join struct {
	ws string // dropped whitespace not yet matched by the continuation
}

// Chunk returns the continuation chunk b with any repeated whitespace
// removed from choice 0's content.
func (j *Join) Chunk(b []byte) ([]byte, error) {
	if j.ws == "" {
		return b, nil
	}
	c, err := parse(b)
	if err != nil {
		return nil, err
	}
	for i := range c.choices {
		if c.index(i) != 0 {
			continue
		}
		s, ok, err := c.content(i)
		if err != nil {
			return nil, err
		}
		if !ok || s == "" {
			if c.finished(i) || c.has(i, "tool_calls") {
				j.ws = ""
			}
			continue
		}
		n := commonRunes(j.ws, s)
		if n == len(s) {
			j.ws = j.ws[n:]
		} else {
			j.ws = ""
		}
		if n > 0 {
			c.setContent(i, s[n:])
		}
	}
	return c.encode(b), nil
}

// commonRunes is the length in bytes of the longest common prefix of a and
// b made of whole runes.
func commonRunes(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) {
		ra, sa := utf8.DecodeRuneInString(a[n:])
		rb, sb := utf8.DecodeRuneInString(b[n:])
		if ra != rb || sa != sb || ra == utf8.RuneError {
			break
		}
		n += sa
	}
	return n
}

package openai

import (
	"bytes"
	"encoding/json"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/rawjson"
)

// facts is what the gateway reads from one chat.completion.chunk.
type facts struct {
	malformed bool // not a chunk json.Unmarshal accepts
	error     bool // an "error" member that is not null
	usage     *provider.Usage
	groq      *provider.Usage // x_groq.usage: Groq's count, read where usage is nil
	choices   []choiceFacts
	// completions: the chunks are the legacy Completions API's
	// ({"choices":[{"text":…}]}), whose content is a choice's non-empty
	// "text" (completions.go). Kept across reads.
	completions bool
}

type choiceFacts struct {
	index   int
	content bool            // content of any kind in the delta (a finish_reason aside)
	finish  bool            // a non-empty finish_reason
	error   bool            // a non-null "error" member, or finish_reason "error" or vendorFailed
	vendor  bool            // a finish_reason of vendorFinishes, written as OpenAI's
	tool    bool            // a tool call (or a legacy function call) in the delta
	filter  bool            // finish_reason content_filter, or a vendor's word for it
	usage   *provider.Usage // the choice's own count (Moonshot's Kimi), nil when none
}

// filtered reports a finish reason that says a filter cut the answer.
func filtered(word string) bool {
	return word == "content_filter" || vendorFinishes[word] == "content_filter"
}

// read fills f from data, reusing f.choices. Every event of a stream goes
// through it, so the common shape is read by scan, without reflection or
// allocation (docs/benchmarks.md#overhead-beside-a-plain-reverse-proxy-benchcmdoverhead); any shape scan is not sure of
// goes to decode, the json.Unmarshal reading that defines the behaviour.
func (f *facts) read(data []byte) {
	choices, completions := f.choices[:0], f.completions
	*f = facts{choices: choices, completions: completions}
	if !f.scan(data) {
		*f = facts{choices: choices[:0], completions: completions}
		f.decode(data)
	}
	// Moonshot's Kimi streams its usage in the finishing chunk's
	// choices[0].usage, not beside the choices: without it a Kimi stream
	// had no count, and its cost was an estimate of the text (review 63b).
	for i := 0; f.usage == nil && i < len(f.choices); i++ {
		f.usage = f.choices[i].usage
	}
	// Groq's count in x_groq, where the chunk has no other: without it a
	// Groq stream that sends no top-level usage chunk had no count, and
	// its cost was an estimate of the text (probe 66o).
	if f.usage == nil {
		f.usage = f.groq
	}
}

// decode reads data with encoding/json into chunk.
func (f *facts) decode(data []byte) {
	var c chunk
	if err := json.Unmarshal(data, &c); err != nil {
		f.malformed = true
		return
	}
	if f.completions && (chatShaped(data) || textNotString(&c)) {
		f.malformed = true
		return
	}
	f.error = notNull(c.Error)
	f.usage = c.Usage
	f.groq = groqUsage(c.XGroq)
	for _, ch := range c.Choices {
		d := ch.Delta
		finish := ch.FinishReason != nil && *ch.FinishReason != ""
		content := nonEmpty(d.Content) || nonEmpty(d.Refusal) || nonEmpty(d.ReasoningContent) || nonEmpty(d.Reasoning) ||
			present(d.ReasoningDetails) || present(d.ToolCalls) && callsAdd(d.ToolCalls) || present(d.FunctionCall) && callsAdd(d.FunctionCall) ||
			present(d.Audio) || present(d.Images)
		if f.completions {
			// A Completions stream's content is a choice's text alone. A
			// choice with a chat delta and no text is another API's chunk,
			// which no Completions client reads (review 65f: an upstream
			// streaming chat chunks to /completions was relayed, its deltas
			// read as content, and recorded ok; the openai SDK read text
			// undefined, the AI SDK failed each chunk's validation).
			content = nonEmptyString(ch.Text)
		}
		failed := notNull(ch.Error) || ch.FinishReason != nil && (*ch.FinishReason == finishError || vendorFailed([]byte(*ch.FinishReason)))
		_, vendor := vendorFinishes[deref(ch.FinishReason)]
		f.error = f.error || failed
		f.choices = append(f.choices, choiceFacts{index: ch.Index, content: content, finish: finish, error: failed, vendor: vendor,
			tool: present(d.ToolCalls) || present(d.FunctionCall), filter: filtered(deref(ch.FinishReason)), usage: ch.Usage})
	}
}

// chatShaped reports whether a chunk of a Completions stream has a choice
// with a delta and no text: a chat.completion.chunk, another API's, which
// no Completions client reads. Read only where scan left the chunk to
// decode (a delta in a Completions chunk does).
func chatShaped(data []byte) bool {
	var c struct {
		Choices []struct {
			Delta json.RawMessage `json:"delta"`
			Text  json.RawMessage `json:"text"`
		} `json:"choices"`
	}
	if json.Unmarshal(data, &c) != nil {
		return false
	}
	for _, ch := range c.Choices {
		if notNull(ch.Delta) && ch.Text == nil {
			return true
		}
	}
	return false
}

// textNotString reports whether a Completions chunk has a choice whose
// "text" is neither a string nor null: no client of the API reads it
// (review 65h: a number's finish was relayed, recorded ok), as a chat
// delta's content that is not a string fails decode.
func textNotString(c *chunk) bool {
	for _, ch := range c.Choices {
		if notNull(ch.Text) && ch.Text[0] != '"' {
			return true
		}
	}
	return false
}

// finishError is the finish_reason of a choice that failed mid-stream
// (OpenRouter: the error object beside it or in the choice, docs/behaviour.md,
// "Streams").
const finishError = "error"

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// notNull reports whether a raw member is present and not null.
func notNull(m json.RawMessage) bool { return len(m) > 0 && !bytes.Equal(m, []byte("null")) }

// Member names scan reads, per level. A key that matches one of its level's
// names only in another letter case, that has an escape or a non-ASCII
// byte, or that comes twice, leaves the chunk to decode: encoding/json
// matches names case-insensitively (with Unicode folding) and the last
// duplicate wins, which scan does not imitate.
var (
	topNames    = []string{"error", "choices", "usage", "x_groq"}
	choiceNames = []string{"index", "delta", "finish_reason", "error", "usage", "text"}
	// deltaNames: the first four are strings (*string in chunk), the rest
	// raw values (json.RawMessage).
	deltaNames = []string{"content", "refusal", "reasoning_content", "reasoning",
		"reasoning_details", "tool_calls", "function_call", "audio", "images"}
)

const deltaStrings = 4

// The indices in deltaNames of a tool call's members.
const (
	deltaToolCalls    = 5
	deltaFunctionCall = 6
)

// scan reads data as decode would and reports true, or reports false
// (having read it partly) when the chunk has a shape it leaves to decode.
func (f *facts) scan(data []byte) bool {
	if !rawjson.Check(data, nil, nil) { // json.Valid's verdict, in a fraction of its time
		return false
	}
	top, ok := rawjson.ScanObject(data)
	if !ok {
		return false
	}
	var seen [4]bool
	for k, v, ok := top.Next(); ok; k, v, ok = top.Next() {
		i, sure := provider.PlainName(k, topNames)
		if !sure {
			return false
		}
		if i < 0 {
			continue
		}
		if seen[i] {
			return false
		}
		seen[i] = true
		switch i {
		case 0: // error
			f.error = string(v) != "null"
		case 1: // choices
			if string(v) == "null" {
				continue
			}
			list, ok := rawjson.ScanArray(v)
			if !ok {
				return false
			}
			for _, el, ok := list.Next(); ok; _, el, ok = list.Next() {
				c, sure := scanChoice(el, f.completions)
				if !sure {
					return false
				}
				f.error = f.error || c.error
				f.choices = append(f.choices, c)
			}
		case 2: // usage
			u, err := provider.ParseUsage(v)
			if err != nil {
				return false
			}
			f.usage = u
		case 3: // x_groq
			f.groq = groqUsage(v)
		}
	}
	return true
}

// xGroq is Groq's own member of a chunk: its usage, which Groq streams in
// the last chunk's x_groq whether or not a top-level usage chunk follows
// (pydantic-ai's recorded Groq streams have it there only, probe 66o).
type xGroq struct {
	Usage json.RawMessage `json:"usage"`
}

// groqUsage reads x_groq's usage as a top-level usage is read
// (provider.ParseUsage: a count that is not a plain integer is its floor;
// review 66p: 21.0 lost the whole count, and the stream's cost was an
// estimate); nil for none, or for a member it cannot read (an odd vendor
// member fails nothing).
func groqUsage(v json.RawMessage) *provider.Usage {
	var x xGroq
	if !notNull(v) || json.Unmarshal(v, &x) != nil || !notNull(x.Usage) {
		return nil
	}
	u, err := provider.ParseUsage(x.Usage)
	if err != nil {
		return nil
	}
	return u
}

// scanChoice reads one element of "choices"; completions reads its "text"
// as content (a Completions chunk's), which a chat chunk's is not.
func scanChoice(el []byte, completions bool) (c choiceFacts, sure bool) {
	obj, ok := rawjson.ScanObject(el)
	if !ok {
		return c, false
	}
	var seen [6]bool
	for k, v, ok := obj.Next(); ok; k, v, ok = obj.Next() {
		i, sure := provider.PlainName(k, choiceNames)
		if !sure {
			return c, false
		}
		if i < 0 {
			continue
		}
		if seen[i] {
			return c, false
		}
		seen[i] = true
		switch i {
		case 0: // index
			if string(v) == "null" {
				continue
			}
			n, ok := provider.PlainInt(v)
			if !ok {
				return c, false
			}
			c.index = n
		case 1: // delta
			if string(v) == "null" {
				continue
			}
			if completions {
				return c, false // a chat delta in a Completions chunk: decode reads what it is
			}
			content, tool, sure := scanDelta(v)
			if !sure {
				return c, false
			}
			c.content = c.content || content
			c.tool = c.tool || tool
		case 2: // finish_reason
			switch v[0] {
			case 'n':
			case '"':
				if bytes.IndexByte(v, '\\') >= 0 {
					return c, false // an escaped reason: decode reads what it says
				}
				c.finish = len(v) > 2
				word := v[1 : len(v)-1]
				c.error = c.error || string(word) == finishError || vendorFailed(word)
				_, c.vendor = vendorFinishes[string(word)]
				c.filter = filtered(string(word))
			default:
				return c, false
			}
		case 3: // error
			c.error = c.error || string(v) != "null"
		case 4: // usage
			u, err := provider.ParseUsage(v)
			if err != nil {
				return c, false
			}
			c.usage = u
		case 5: // text
			if completions && len(v) > 0 && v[0] != '"' && string(v) != "null" {
				return c, false // not a string: decode says it is malformed
			}
			if completions {
				c.content = c.content || nonEmptyString(v)
			}
		}
	}
	return c, true
}

// nonEmptyString reports whether the raw JSON value v is a string with at
// least one character: an empty text adds nothing to the answer, as an
// empty chat delta does not (docs/behaviour.md, "Streams").
func nonEmptyString(v []byte) bool { return len(v) > 2 && v[0] == '"' }

// scanDelta reports whether a choice's delta carries content, and a tool
// call (tool_calls or function_call) among it.
func scanDelta(v []byte) (content, tool, sure bool) {
	obj, ok := rawjson.ScanObject(v)
	if !ok {
		return false, false, false
	}
	var seen [9]bool
	for k, v, ok := obj.Next(); ok; k, v, ok = obj.Next() {
		i, sure := provider.PlainName(k, deltaNames)
		if !sure {
			return false, false, false
		}
		if i < 0 {
			continue
		}
		if seen[i] {
			return false, false, false
		}
		seen[i] = true
		if i < deltaStrings {
			switch v[0] {
			case 'n':
			case '"':
				content = content || len(v) > 2
			default:
				return false, false, false
			}
			continue
		}
		p := present(json.RawMessage(v))
		call := i == deltaToolCalls || i == deltaFunctionCall
		content = content || p && (!call || callsAdd(v))
		tool = tool || p && call
	}
	return content, tool, true
}

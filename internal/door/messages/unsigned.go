package messages

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/detour-llm/detour/internal/provider/chat"
	"github.com/detour-llm/detour/internal/rawjson"
)

// DropUnsigned removes, from the assistant turns of a Messages request
// body, every thinking block whose signature is empty or missing, and a
// turn left with no content; body is returned as it is when it has no
// empty signature.
//
// Only this door writes such blocks: the reasoning of another vendor's
// model, shown as thinking (Answer, Encoder), which the client's SDK hands
// back with the turn. Anthropic refuses a thinking block it did not sign
// ("Invalid `signature` in `thinking` block", a 400), so passed through as
// the client wrote it, one turn answered elsewhere would fail every later
// turn at Claude for as long as Claude answers first (review 32d). Where
// the request turns thinking on while a tool loop runs (it ends in tool
// results) and the assistant turn that opened the loop no longer opens
// with a thinking block, the request's thinking is turned off too:
// Anthropic wants that turn to open with a signed one, and says to disable
// thinking otherwise (reviews 32i, 32k: the loop's opener, not its last
// turn, which a second step at Claude answers signed).
// A text block of blanks alone in an assistant turn goes too: another
// vendor's model often opens a tool call with "\n\n", which this door
// passes on as a text block, and Claude refuses it in history ("text
// content blocks must contain non-whitespace text", microsoft/vscode#307618):
// the session was locked out of Claude from that turn on (probe c50b).
// Read before a request goes to a target that serves the Messages API as
// is (docs/doors.md, "Answers"). What is kept is written back as it was,
// not re-escaped.
func DropUnsigned(body []byte) []byte {
	if !MayHoldUnsigned(body) {
		return body
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return body
	}
	var msgs []map[string]json.RawMessage
	if json.Unmarshal(top["messages"], &msgs) != nil {
		return body
	}
	changed := false
	kept := msgs[:0]
	for _, m := range msgs {
		var blocks []json.RawMessage
		if json.Unmarshal(m["content"], &blocks) != nil || len(blocks) == 0 {
			kept = append(kept, m)
			continue
		}
		assistant := fromAssistant(m)
		out := blocks[:0]
		for _, b := range blocks {
			if unsignedThinking(b) || carriedSignature(b) || assistant && blankText(b) {
				changed = true
				continue
			}
			out = append(out, b)
		}
		if len(out) == 0 {
			continue // a turn of foreign reasoning only: nothing of it is Claude's
		}
		if len(out) != len(blocks) {
			m["content"] = encodeRaw(out)
		}
		kept = append(kept, m)
	}
	if !changed {
		return body
	}
	if top["messages"] = encodeRaw(kept); top["messages"] == nil {
		return body
	}
	if thinkingOn(top["thinking"]) && loopOpensBare(kept) {
		delete(top, "thinking")
	}
	if b := encodeRaw(top); b != nil {
		return b
	}
	return body
}

func unsignedThinking(b json.RawMessage) bool {
	var head struct {
		Type      string  `json:"type"`
		Signature *string `json:"signature"`
	}
	return json.Unmarshal(b, &head) == nil && head.Type == "thinking" && (head.Signature == nil || ours(*head.Signature))
}

// ReasoningSignature signs the thinking blocks this door writes for
// another vendor's model's reasoning: no signature Anthropic writes, so a
// block handed back with it is the door's (DropUnsigned, and the
// translation's reasoning_content). Sent empty, the Vercel AI SDK's
// Anthropic provider, which keeps a thinking block only once a
// signature_delta came, left it out of the next turn, and DeepSeek's
// thinking mode refused the loop's second step (probe 55b: OpenCode).
const ReasoningSignature = chat.SignaturePrefix + "reasoning"

// ours reports a thinking block's signature that Anthropic did not write:
// empty (the door's before round 55, and a client's own) or the door's.
func ours(sig string) bool { return sig == "" || sig == ReasoningSignature }

// carriedSignature reports a redacted_thinking block this door wrote to
// carry a Gemini thought signature (docs/doors.md): Anthropic would refuse
// it as no data it wrote.
func carriedSignature(b json.RawMessage) bool {
	var head struct {
		Type string `json:"type"`
		Data string `json:"data"`
	}
	return json.Unmarshal(b, &head) == nil && head.Type == "redacted_thinking" && strings.HasPrefix(head.Data, chat.SignaturePrefix)
}

// blankText reports a text block whose text is empty or blanks alone.
func blankText(b json.RawMessage) bool {
	var head struct {
		Type string  `json:"type"`
		Text *string `json:"text"`
	}
	return json.Unmarshal(b, &head) == nil && head.Type == "text" && head.Text != nil && strings.TrimSpace(*head.Text) == ""
}

// MayHoldUnsigned reports, by a scan of the bytes, whether body may hold a
// thinking block with an empty or missing signature: a "signature" whose
// value is "" (blanks allowed around the colon), or more blocks of type
// "thinking" than "signature" members; or a "text" member of blanks alone
// (blankText); or a Gemini thought signature this door carried. Most
// bodies hold none of them and are never parsed (review
// 32i): DropUnsigned decodes only a body for which it is true.
func MayHoldUnsigned(body []byte) bool {
	if bytes.Contains(body, []byte(chat.SignaturePrefix)) {
		return true // maybe a signature this door carried (carriedSignature)
	}
	nType, nSig := 0, 0
	for at := 0; ; {
		i := bytes.IndexByte(body[at:], '"')
		if i < 0 {
			return nType > nSig
		}
		at += i
		switch {
		case bytes.HasPrefix(body[at:], []byte(`"signature"`)):
			nSig++
			at += len(`"signature"`)
			if v, ok := afterColon(body, at); ok && bytes.HasPrefix(body[v:], []byte(`""`)) {
				return true
			}
		case bytes.HasPrefix(body[at:], []byte(`"text"`)):
			at += len(`"text"`)
			if v, ok := afterColon(body, at); ok && blankString(body[v:]) {
				return true
			}
		case bytes.HasPrefix(body[at:], []byte(`"type"`)):
			at += len(`"type"`)
			if v, ok := afterColon(body, at); ok && bytes.HasPrefix(body[v:], []byte(`"thinking"`)) {
				nType++
			}
		default:
			at++
		}
	}
}

// blankString reports whether b opens with a JSON string of blanks alone
// (spaces, or the escapes \n, \r, \t), "" included.
func blankString(b []byte) bool {
	if len(b) == 0 || b[0] != '"' {
		return false
	}
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '"':
			return true
		case ' ':
		case '\\':
			if i+1 >= len(b) || (b[i+1] != 'n' && b[i+1] != 'r' && b[i+1] != 't') {
				return false
			}
			i++
		default:
			return false
		}
	}
	return false
}

// afterColon is where the value after the ':' at or after i (blanks
// aside) begins.
func afterColon(b []byte, i int) (int, bool) {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	if i >= len(b) || b[i] != ':' {
		return 0, false
	}
	for i++; i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r'); i++ {
	}
	return i, true
}

// loopOpensBare reports whether msgs end in a turn of tool results (a tool
// loop runs) and the assistant turn that opened the loop — the first after
// the last user turn that is not tool results alone — does not open with a
// thinking block.
func loopOpensBare(msgs []map[string]json.RawMessage) bool {
	if len(msgs) == 0 || fromAssistant(msgs[len(msgs)-1]) || !toolResults(msgs[len(msgs)-1]) {
		return false
	}
	start := 0
	for i := len(msgs) - 1; i >= 0; i-- {
		if !fromAssistant(msgs[i]) && !toolResults(msgs[i]) {
			start = i + 1
			break
		}
	}
	for _, m := range msgs[start:] {
		if fromAssistant(m) {
			var blocks []json.RawMessage
			return json.Unmarshal(m["content"], &blocks) != nil || len(blocks) == 0 || !thinkingBlock(blocks[0])
		}
	}
	return false
}

// toolResults reports a user turn made of tool_result blocks alone.
func toolResults(m map[string]json.RawMessage) bool {
	var blocks []struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(m["content"], &blocks) != nil || len(blocks) == 0 {
		return false
	}
	for _, b := range blocks {
		if b.Type != "tool_result" {
			return false
		}
	}
	return true
}

func thinkingBlock(b json.RawMessage) bool {
	var head struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(b, &head) == nil && (head.Type == "thinking" || head.Type == "redacted_thinking")
}

func fromAssistant(m map[string]json.RawMessage) bool {
	var role string
	return json.Unmarshal(m["role"], &role) == nil && role == "assistant"
}

func thinkingOn(t json.RawMessage) bool {
	var th struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(t, &th) == nil && (th.Type == "enabled" || th.Type == "adaptive")
}

// encodeRaw is v as JSON, with <, > and & as written (json.Marshal would
// escape each in six bytes: a body of markup grown six times, review 32i).
func encodeRaw(v any) json.RawMessage {
	b, err := rawjson.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

package classify

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Message returns the human message of any vendor error body (its first
// MaxBody bytes): error.message (OpenAI, Anthropic, Gemini, Azure,
// OpenRouter, Groq…), a top-level message (Bedrock, Mistral, vLLM), an error
// string (Ollama), detail, or the data of an SSE error event. It returns ""
// when the body carries none. JSON escapes are decoded; a message cut at 4 KiB
// is returned as far as it goes.
func Message(body []byte) string { return message(body, false) }

// AnswerMessage is Message for an error answer (a 4xx or 5xx): a body in
// plain text, neither JSON, an event stream nor an HTML page, is its
// server's message ("upstream request timeout", Envoy's "no healthy
// upstream"), as the classifier reads it.
func AnswerMessage(body []byte) string { return message(body, true) }

func message(body []byte, answer bool) string {
	if len(body) > MaxBody {
		body = body[:MaxBody]
	}
	body = bytes.TrimPrefix(body, byteOrderMark)
	var s scanner
	if answer {
		s.readAnswer(body)
	} else {
		s.readBody(body)
	}
	f := &s.f
	if f.nTexts == 0 {
		return ""
	}
	m := strings.TrimSpace(unescape(f.texts[0]))
	if f.detailLoc {
		if j := detailMessage(body, m); j != "" {
			return j
		}
	}
	return m
}

// maxDetailItems bounds the entries of a detail list a message names.
const maxDetailItems = 8

// detailMessage is the message of a FastAPI/pydantic detail list whose
// first msg is m, each entry's loc joined to its msg ("body.verbosity:
// Extra inputs are not permitted", Mistral's 422 for a member its schema
// lacks, probe 54a): the client learns which member was refused, as
// OpenAI's own envelope names it in param. "" where the list's first msg is
// not m (the message came from elsewhere) or names no loc.
func detailMessage(body []byte, m string) string {
	items := detailItems(body)
	if len(items) == 0 || strings.TrimSpace(items[0].Msg) != m {
		return ""
	}
	var b strings.Builder
	for i, it := range items {
		if i == maxDetailItems {
			b.WriteString("; …")
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		msg := strings.TrimSpace(it.Msg)
		if p := locPath(it.Loc); p != "" && !strings.HasPrefix(msg, p+":") {
			b.WriteString(p)
			b.WriteString(": ")
		}
		b.WriteString(msg)
	}
	return b.String()
}

// unescape decodes a raw JSON string body, best effort.
func unescape(raw []byte) string {
	if !hasEscape(raw) {
		return string(raw)
	}
	var s string
	for cut := len(raw); cut >= 0 && cut >= len(raw)-6; cut-- {
		buf := make([]byte, 0, cut+2)
		buf = append(buf, '"')
		buf = append(buf, raw[:cut]...)
		buf = append(buf, '"')
		if json.Unmarshal(buf, &s) == nil {
			return s
		}
	}
	return string(raw)
}

func hasEscape(b []byte) bool {
	for _, c := range b {
		if c == '\\' {
			return true
		}
	}
	return false
}

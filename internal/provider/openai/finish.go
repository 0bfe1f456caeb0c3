package openai

import (
	"bytes"

	"github.com/detour-llm/detour/internal/rawjson"
)

// vendorFinishes are the finish reasons OpenAI-compatible vendors document
// for an answer cut short, written as OpenAI's own: Zhipu's sensitive (a
// filter cut it: content_filter), Mistral's model_length and Zhipu's
// model_context_window_exceeded (the window: length). A client library
// checks finish_reason against OpenAI's five (pydantic-ai fails the run on
// any other), and the Messages and Responses doors read only OpenAI's, so
// such an answer read as finished normally (probe 57a). With nothing
// generated the classifier fails them first (classify/blocks.go).
var vendorFinishes = map[string]string{
	"sensitive":                     "content_filter",
	"model_length":                  "length",
	"model_context_window_exceeded": "length",
}

// vendorFailed reports whether r is a finish reason that says the provider
// failed mid-answer (DeepSeek's insufficient_system_resource, Zhipu's
// network_error): the answer is cut, as by a stream's error event, and never
// finished — a tool call cut there is not one to run (probe 57a).
func vendorFailed(r []byte) bool {
	return vendorFailures[string(r)]
}

// vendorFailures are the words vendorFailed reports. Both lists are held
// equal to the classifier's (classify/blocks.go) by finish_agree_test.go.
var vendorFailures = map[string]bool{
	"insufficient_system_resource": true,
	"network_error":                true,
}

const finishKey = `"finish_reason"`

// openaiFinishes returns data with each vendorFinishes value of a
// "finish_reason" member written as OpenAI's; data itself, unallocated,
// when there is none. The key's quotes are unescaped, so it is never
// matched inside a string's text.
func openaiFinishes(data []byte) []byte {
	var out []byte
	last := 0
	for i := 0; ; {
		j := bytes.Index(data[i:], []byte(finishKey))
		if j < 0 {
			break
		}
		k := skipSpace(data, i+j+len(finishKey))
		i = i + j + len(finishKey)
		if k >= len(data) || data[k] != ':' {
			continue
		}
		k = skipSpace(data, k+1)
		if k >= len(data) || data[k] != '"' {
			continue
		}
		end := stringEnd(data, k+1)
		if end < 0 {
			break
		}
		word := data[k+1 : end]
		if bytes.IndexByte(word, '\\') >= 0 {
			// An escaped word ("sensitiv\u0065") reads as the word
			// (review 57, hostile 57b: it reached the client as sent).
			if s, ok := rawjson.String(data[k : end+1]); ok {
				word = []byte(s)
			}
		}
		if to, ok := vendorFinishes[string(word)]; ok {
			out = append(append(out, data[last:k+1]...), to...)
			last = end
		}
		i = end
	}
	if out == nil {
		return data
	}
	return append(out, data[last:]...)
}

// stringEnd is the index of the quote that ends the JSON string whose text
// begins at b[i], -1 when it does not end.
func stringEnd(b []byte, i int) int {
	for ; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

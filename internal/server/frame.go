package server

import (
	"strconv"

	"github.com/detour-llm/detour/internal/rawjson"
)

// Framing a passthrough stream's events (Commit.Native): each upstream
// event's data goes to the client as it came, under the SSE event name its
// own "type" gives, as Anthropic and OpenAI name their events. dispatch
// hands on the data only (docs/design.md, "Who owns the client"); the name
// is read here with one scan of the top-level members, no decoding.

var (
	messageEvent = []byte("message")
	errorEvent   = []byte("error")
)

// eventName is the SSE event name of a passthrough event's data: its
// top-level "type", when that is a string holding a plain name (plainName,
// so no escapes); else nil.
func eventName(data []byte) []byte { return nameOf(rawjson.Member(data, "type")) }

// nameOf is the raw JSON value v as an event name, or nil.
func nameOf(v []byte) []byte {
	if len(v) < 3 || v[0] != '"' || !plainName(v[1:len(v)-1]) {
		return nil
	}
	return v[1 : len(v)-1]
}

// responsesEvent reads a Responses passthrough event's name (as eventName)
// and its sequence_number (ok false without one) in one scan of its
// members; the last of a repeated member counts, as encoding/json reads it.
func responsesEvent(data []byte) (name []byte, seq int, ok bool) {
	sc, obj := rawjson.ScanObject(data)
	if !obj {
		return nil, 0, false
	}
	var typ []byte
	for {
		k, v, more := sc.Next()
		if !more {
			break
		}
		switch {
		case rawjson.KeyIs(k, "type"):
			typ = v
		case rawjson.KeyIs(k, "sequence_number"):
			n, err := strconv.Atoi(string(v))
			seq, ok = n, err == nil
		}
	}
	return nameOf(typ), seq, ok
}

// plainName reports whether b is a name safe on an SSE event line:
// letters, digits, '_', '.' and '-'.
func plainName(b []byte) bool {
	for _, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}

// maxKeptFrame bounds the frame buffer a passthrough stream keeps between
// events: one large event (up to the SSE reader's 1 MiB) must not hold its
// size for the rest of a long stream.
const maxKeptFrame = 64 << 10

// keepFrame returns buf to reuse for the next event, or nil when it grew
// past maxKeptFrame.
func keepFrame(buf []byte) []byte {
	if cap(buf) > maxKeptFrame {
		return nil
	}
	return buf
}

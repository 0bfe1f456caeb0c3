package server

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/detour-llm/detour/internal/rawjson"
)

// Framing a passthrough stream's events (Commit.Native): each upstream
// event's data goes to the client as it came, under the SSE event name its
// own "type" gives, as Anthropic and OpenAI name their events. dispatch
// hands on the data only (docs/design.md, "Who owns the client"); the name
// is read here with one scan of the top-level members, no decoding. Only
// a metered stream's (holdEnd) odd event is decoded again, to learn whether
// the relay ends the stream on it (eventHead.relayIs).

var (
	messageEvent = []byte("message")
	errorEvent   = []byte("error")
)

// nameOf is the raw JSON value v as an event name, or nil.
func nameOf(v []byte) []byte {
	if len(v) < 3 || v[0] != '"' || !plainName(v[1:len(v)-1]) {
		return nil
	}
	return v[1 : len(v)-1]
}

// eventHead is what an Output reads of a passthrough event's data, in one
// scan of its top-level members (readEvent).
type eventHead struct {
	name   []byte // the SSE event name: "type", when a plain name as written (nameOf); else nil
	seq    int    // sequence_number, when hasSeq
	hasSeq bool
	// odd: the provider's stream reader, which decodes the event with
	// encoding/json (keys matched case-insensitively, escapes decoded, the
	// last match kept, a null skipped), may read its type otherwise than
	// name: a key that is "type" only so read ("Type", escaped), or a
	// "type" that is not a plain name as written.
	odd bool
}

// readEvent reads data's head; the last of a repeated member counts, as
// encoding/json reads it.
func readEvent(data []byte) (h eventHead) {
	sc, obj := rawjson.ScanObject(data)
	if !obj {
		return h
	}
	var typ []byte
	for {
		k, v, more := sc.Next()
		if !more {
			break
		}
		switch {
		case len(k) == 6 && string(k[1:5]) == "type":
			typ = v
		case len(k) == 17 && string(k[1:16]) == "sequence_number":
			h.seq, h.hasSeq = seqOf(v)
		case len(k) == 6 && bytes.EqualFold(k[1:5], typeKey):
			h.odd = true // "Type": no letter outside ASCII folds to t, y, p or e
		case bytes.IndexByte(k, '\\') >= 0: // an escaped key, decoded
			h.odd = true
			if rawjson.KeyIs(k, "type") {
				typ = v
			} else if rawjson.KeyIs(k, "sequence_number") {
				h.seq, h.hasSeq = seqOf(v)
			}
		}
	}
	h.name = nameOf(typ)
	h.odd = h.odd || typ != nil && h.name == nil
	return h
}

var typeKey = []byte("type")

func seqOf(v []byte) (int, bool) {
	n, err := strconv.Atoi(string(v))
	return n, err == nil
}

// relayIs reports whether the provider's stream reader reads data, whose
// head h is, as an event of one of the types names: the relay ends its
// stream on the reader's reading (dispatch), not the name an Output frames
// the event with. Only an odd event is decoded again.
func (h *eventHead) relayIs(data []byte, names ...string) bool {
	typ := h.name
	if h.odd {
		var e struct {
			Type string `json:"type"`
		}
		if json.Unmarshal(data, &e) != nil {
			return false // the reader drops it too (Malformed): never relayed
		}
		typ = []byte(e.Type)
	}
	for _, n := range names {
		if string(typ) == n {
			return true
		}
	}
	return false
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

package chat

import (
	"encoding/json"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/rawjson"
)

// The readers below read members of a chat.completion.chunk for the doors
// that translate a stream (internal/door/messages, internal/door/responses)
// exactly as json.Unmarshal reads them into the Go type named, without
// reflection and without a decoder frame per level of nesting: the chunk
// is read on the handler's goroutine, whose stack must stay at 8 KiB
// (docs/benchmarks.md, "Round 6: the doors"). Each reports false for a
// shape it leaves to encoding/json (a key in another letter case or with
// an escape, a repeated key, a value of another type, a number that is not
// a plain integer); the caller then decodes the whole chunk with
// json.Unmarshal, which defines the behaviour. v is always part of a chunk
// already checked (rawjson.Check).

// SetString reads the JSON string v into *dst; null leaves *dst as it is.
func SetString(dst *string, v []byte) bool {
	if isNull(v) {
		return true
	}
	s, ok := rawjson.String(v)
	if ok {
		*dst = s
	}
	return ok
}

// StringPtr reads v into a *string: nil for null.
func StringPtr(v []byte) (*string, bool) {
	if isNull(v) {
		return nil, true
	}
	s, ok := rawjson.String(v)
	if !ok {
		return nil, false
	}
	return &s, true
}

// SetInt reads the JSON number v into *dst when it is a plain integer;
// null leaves *dst as it is.
func SetInt(dst *int, v []byte) bool {
	if isNull(v) {
		return true
	}
	n, ok := provider.PlainInt(v)
	if ok {
		*dst = n
	}
	return ok
}

func isNull(v []byte) bool { return string(v) == "null" }

// Names ReadToolCalls reads, per level.
var (
	toolCallNames = []string{"index", "id", "type", "function", "extra_content"}
	functionNames = []string{"name", "arguments"}
)

// Members walks the members of a JSON object that are among names (at
// most 8), in a loop of the caller's, so that reading a chunk nests no
// frame but the caller's per level:
//
//	m := chat.MembersOf(v, names)
//	for i, v, ok := m.Next(); ok; i, v, ok = m.Next() { ... }
//	return m.Sure()
//
// Sure is false when v is not an object, when a key is one encoding/json
// would match otherwise than by its exact bytes (provider.PlainName), or
// when one of names comes twice (encoding/json would merge the two); Next
// stops there.
type Members struct {
	scan  rawjson.Scan
	names []string
	seen  uint8
	bad   bool
}

// MembersOf starts a walk over the members of v named in names.
func MembersOf(v []byte, names []string) Members {
	s, ok := rawjson.ScanObject(v)
	return Members{scan: s, names: names, bad: !ok}
}

// Next returns the next member among names: its index in names and its
// value. ok is false at the end, or where the walk is not sure.
func (m *Members) Next() (i int, v []byte, ok bool) {
	for !m.bad {
		k, v, ok := m.scan.Next()
		if !ok {
			return -1, nil, false
		}
		i, sure := provider.PlainName(k, m.names)
		if !sure || i >= 0 && m.seen&(1<<i) != 0 {
			m.bad = true
			break
		}
		if i >= 0 {
			m.seen |= 1 << i
			return i, v, true
		}
	}
	return -1, nil, false
}

// Sure reports whether the members read so far are all encoding/json
// would read.
func (m *Members) Sure() bool { return !m.bad }

// ReadToolCalls reads a delta's "tool_calls" into a []ToolCallDelta: nil
// for null, empty and not nil for []. Its calls and their functions are
// read in this one frame: a tool call's arguments are the deepest member a
// door reads (docs/benchmarks.md, "Round 6: the doors").
func ReadToolCalls(v []byte) ([]ToolCallDelta, bool) {
	if isNull(v) {
		return nil, true
	}
	list, ok := rawjson.ScanArray(v)
	if !ok {
		return nil, false
	}
	calls := []ToolCallDelta{}
	for _, el, ok := list.Next(); ok; _, el, ok = list.Next() {
		calls = append(calls, ToolCallDelta{})
		tc := &calls[len(calls)-1]
		m := MembersOf(el, toolCallNames) // a null element too is left to encoding/json
		for i, v, ok := m.Next(); ok; i, v, ok = m.Next() {
			var sure bool
			switch i {
			case 0:
				sure = SetInt(&tc.Index, v)
			case 1:
				sure = SetString(&tc.ID, v)
			case 2:
				sure = SetString(&tc.Type, v)
			case 3:
				if sure = isNull(v); sure {
					break
				}
				f := MembersOf(v, functionNames)
				for j, v, ok := f.Next(); ok; j, v, ok = f.Next() {
					dst := &tc.Function.Name
					if j == 1 {
						dst = &tc.Function.Arguments
					}
					if !SetString(dst, v) {
						return nil, false
					}
				}
				sure = f.Sure()
			case 4: // kept as sent, as encoding/json keeps a RawMessage
				tc.ExtraContent, sure = append(json.RawMessage(nil), v...), true
			}
			if !sure {
				return nil, false
			}
		}
		if !m.Sure() {
			return nil, false
		}
	}
	return calls, true
}

// ReadUsage reads a chunk's "usage" into a *Usage: nil for null. It is
// provider.ParseUsage's reading — the adapters' — so one reader knows every
// name providers give a count (review 63l: the doors had a second, and
// each new name went into both).
func ReadUsage(v []byte) (*Usage, bool) {
	pu, err := provider.ParseUsage(v)
	if err != nil {
		return nil, false
	}
	if pu == nil {
		return nil, true
	}
	// As json.Unmarshal fills a Usage: its own completion_tokens_details
	// shadows the embedded one, which stays nil.
	u := &Usage{Usage: *pu}
	u.Usage.CompletionTokensDetails = nil
	if d := pu.CompletionTokensDetails; d != nil {
		u.CompletionTokensDetails.ReasoningTokens = d.ReasoningTokens
	}
	return u, true
}

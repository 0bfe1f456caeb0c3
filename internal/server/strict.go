package server

import (
	"fmt"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/detour-llm/detour/internal/rawjson"
)

// The gateway reads a chat request once, and must read it the way every
// upstream will. encoding/json matches member names case-insensitively and
// keeps the last of a repeated member, while other readers (Python, most
// vendors) keep the first or match exactly; so a body such as
// {"stream":true,"STREAM":false} could mean two things. scan refuses such
// bodies: a member name repeated in any object at any depth, and a
// top-level name that matches a member the gateway reads only by case
// folding. It also checks the whole body is valid JSON and finds the
// members the front needs, in the same single pass, without copying.
// See docs/security.md, "Hostile clients at the HTTP front".

// readMembers are the top-level members Detour reads: model, stream and
// messages here, stream_options in dispatch (which asks streams for usage),
// the others in the translating adapters (provider/chat).
// A top-level name that differs from one of them only by case is refused.
var readMembers = []string{"model", "stream", "messages", "tools", "tool_choice", "parallel_tool_calls",
	"max_tokens", "max_completion_tokens", "temperature", "top_p", "presence_penalty", "frequency_penalty",
	"seed", "n", "logprobs", "top_logprobs", "stop", "user", "response_format", "stream_options",
	"functions", "modalities", "web_search_options", "cache_control", "top_k", "safety_identifier", "prompt_cache_key"}

// foldedMembers maps each read member's case-folded name to the name.
var foldedMembers = func() map[string]string {
	m := make(map[string]string, len(readMembers))
	for _, n := range readMembers {
		m[string(appendFold(nil, []byte(n)))] = n
	}
	return m
}()

// maxFoldedKey is the longest key worth folding: a read member's name is at
// most 21 bytes, and folding can shrink a rune from 3 bytes to 1.
const maxFoldedKey = 64

// maxDepth bounds nesting, as encoding/json does.
const maxDepth = 10000

// head is what the front reads of a chat request: the raw JSON values of
// the top-level members model, stream and messages (nil when absent),
// pointing into the body.
type head struct {
	model, stream, messages []byte
}

// bodyError is a body the front refuses (400).
type bodyError struct{ msg string }

func (e *bodyError) Error() string { return e.msg }

// scanner is the state of one scan; pooled so a scan allocates nothing in
// the steady state.
type scanner struct {
	b     []byte
	depth int
	// keys holds the member names of every object being read, innermost
	// last; an object's names are keys[start:] while it is read.
	keys  []keyRef
	arena []byte // names that needed decoding (escapes, invalid UTF-8)
	fold  [maxFoldedKey * 2]byte
	err   *bodyError
	// folded is the door's read members by case-folded name.
	folded map[string]string
}

// keyRef is one member name: body[off:end], or arena[off:end] when decoded.
type keyRef struct {
	off, end int
	decoded  bool
}

var scanners = sync.Pool{New: func() any { return new(scanner) }}

// scan checks body and returns its head.
func scan(body []byte) (head, error) { return scanFor(body, foldedMembers) }

// scanFor is scan for a door whose read members, case-folded, are folded.
func scanFor(body []byte, folded map[string]string) (head, error) {
	s := scanners.Get().(*scanner)
	s.folded = folded
	h, err := s.run(body)
	s.b, s.err, s.folded = nil, nil, nil
	if cap(s.keys) <= 1<<12 && cap(s.arena) <= 1<<16 { // keep a pathological body's buffers out of the pool
		s.keys, s.arena = s.keys[:0], s.arena[:0]
		scanners.Put(s)
	}
	return h, err
}

func (s *scanner) run(body []byte) (head, error) {
	s.b, s.depth, s.keys, s.arena = body, 0, s.keys[:0], s.arena[:0]
	var h head
	i := s.space(0)
	object := i < len(body) && body[i] == '{'
	if object {
		i = s.object(i, &h)
	} else {
		i = s.value(i)
	}
	if i < 0 {
		return h, s.err
	}
	if i = s.space(i); i < len(body) {
		return h, s.syntax(i, "data after the JSON value")
	}
	if !object {
		return h, &bodyError{"invalid JSON body: the body must be a JSON object"}
	}
	return h, nil
}

func (s *scanner) syntax(i int, what string) *bodyError {
	if s.err == nil {
		if i >= len(s.b) {
			s.err = &bodyError{"invalid JSON body: unexpected end of input"}
		} else {
			s.err = &bodyError{fmt.Sprintf("invalid JSON body: %s at byte %d", what, i)}
		}
	}
	return s.err
}

func (s *scanner) space(i int) int {
	for i < len(s.b) {
		switch s.b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// value checks the JSON value at b[i] and returns the index just past it,
// or -1 with s.err set.
func (s *scanner) value(i int) int {
	if i >= len(s.b) {
		s.syntax(i, "")
		return -1
	}
	switch c := s.b[i]; {
	case c == '"':
		end, _ := s.str(i)
		return end
	case c == '{':
		return s.object(i, nil)
	case c == '[':
		return s.array(i)
	case c == '-' || c >= '0' && c <= '9':
		return s.number(i)
	case c == 't':
		return s.literal(i, "true")
	case c == 'f':
		return s.literal(i, "false")
	case c == 'n':
		return s.literal(i, "null")
	default:
		s.syntax(i, "unexpected character "+strconv.QuoteRune(rune(c)))
		return -1
	}
}

func (s *scanner) array(i int) int {
	if s.depth++; s.depth > maxDepth {
		s.syntax(i, "nesting too deep")
		return -1
	}
	i = s.space(i + 1)
	if i < len(s.b) && s.b[i] == ']' {
		s.depth--
		return i + 1
	}
	for {
		if i = s.value(i); i < 0 {
			return -1
		}
		i = s.space(i)
		if i >= len(s.b) {
			s.syntax(i, "")
			return -1
		}
		switch s.b[i] {
		case ',':
			i = s.space(i + 1)
		case ']':
			s.depth--
			return i + 1
		default:
			s.syntax(i, "expected ',' or ']'")
			return -1
		}
	}
}

// object checks the object at b[i]; h is set for the top-level object only,
// whose members are also checked against readMembers and recorded in h.
func (s *scanner) object(i int, h *head) int {
	if s.depth++; s.depth > maxDepth {
		s.syntax(i, "nesting too deep")
		return -1
	}
	start := len(s.keys)
	defer func() { s.keys = s.keys[:start] }()
	i = s.space(i + 1)
	if i < len(s.b) && s.b[i] == '}' {
		s.depth--
		return i + 1
	}
	for {
		if i >= len(s.b) || s.b[i] != '"' {
			s.syntax(i, "expected a member name")
			return -1
		}
		ks := i
		ke, raw := s.str(i)
		if ke < 0 {
			return -1
		}
		k := s.name(ks, ke, raw)
		if !s.add(start, k, ks) {
			return -1
		}
		if i = s.space(ke); i >= len(s.b) || s.b[i] != ':' {
			s.syntax(i, "expected ':'")
			return -1
		}
		vs := s.space(i + 1)
		ve := s.value(vs)
		if ve < 0 {
			return -1
		}
		if h != nil && !s.top(h, k, ks, s.b[vs:ve]) {
			return -1
		}
		i = s.space(ve)
		if i >= len(s.b) {
			s.syntax(i, "")
			return -1
		}
		switch s.b[i] {
		case ',':
			i = s.space(i + 1)
		case '}':
			if len(s.keys)-start > smallObject && !s.unique(start) {
				return -1
			}
			s.depth--
			return i + 1
		default:
			s.syntax(i, "expected ',' or '}'")
			return -1
		}
	}
}

// smallObject is how many members an object may have before its names are
// checked by sorting when it closes instead of one by one as they come.
const smallObject = 16

// name returns the member name whose string is b[ks:ke]: the bytes between
// the quotes, or, when they need it, the text encoding/json would decode.
func (s *scanner) name(ks, ke int, raw bool) keyRef {
	if raw || (!hasByte(s.b[ks+1:ke-1], '\\') && utf8.Valid(s.b[ks+1:ke-1])) {
		return keyRef{off: ks + 1, end: ke - 1}
	}
	off := len(s.arena)
	s.arena = appendUnquoted(s.arena, s.b[ks+1:ke-1])
	return keyRef{off: off, end: len(s.arena), decoded: true}
}

func hasByte(b []byte, c byte) bool {
	for _, x := range b {
		if x == c {
			return true
		}
	}
	return false
}

func (s *scanner) text(k keyRef) []byte {
	if k.decoded {
		return s.arena[k.off:k.end]
	}
	return s.b[k.off:k.end]
}

// add records k as a member of the object whose names start at keys[start];
// in a small object a repeat is found at once.
func (s *scanner) add(start int, k keyRef, at int) bool {
	if n := len(s.keys) - start; n < smallObject {
		t := s.text(k)
		for _, prev := range s.keys[start:] {
			if string(s.text(prev)) == string(t) {
				s.repeated(t, at)
				return false
			}
		}
	}
	s.keys = append(s.keys, k)
	return true
}

// unique checks a large object's names for repeats by sorting them.
func (s *scanner) unique(start int) bool {
	ks := s.keys[start:]
	slices.SortFunc(ks, func(a, b keyRef) int {
		x, y := s.text(a), s.text(b)
		switch {
		case string(x) < string(y):
			return -1
		case string(x) > string(y):
			return 1
		}
		return 0
	})
	for j := 1; j < len(ks); j++ {
		if t := s.text(ks[j]); string(t) == string(s.text(ks[j-1])) {
			s.repeated(t, -1)
			return false
		}
	}
	return true
}

func (s *scanner) repeated(name []byte, at int) {
	where := ""
	if at >= 0 {
		where = fmt.Sprintf(" (byte %d)", at)
	}
	s.err = &bodyError{fmt.Sprintf("member %s appears twice in one object%s: JSON readers disagree on which one counts, so send each member once",
		quoteName(name), where)}
}

// top checks one top-level member and records the ones the front reads.
func (s *scanner) top(h *head, k keyRef, at int, v []byte) bool {
	t := s.text(k)
	switch string(t) {
	case "model":
		h.model = v
		return true
	case "stream":
		h.stream = v
		return true
	case "messages":
		h.messages = v
		return true
	case "stream_options":
		return s.streamOptions(v)
	}
	if len(t) > maxFoldedKey {
		return true
	}
	if n, ok := s.folded[string(appendFold(s.fold[:0], t))]; ok && n != string(t) {
		s.err = &bodyError{fmt.Sprintf("member %s (byte %d) differs from %q only by case: JSON readers disagree on whether it is %q, so spell it exactly",
			quoteName(t), at, n, n)}
		return false
	}
	return true
}

// foldedIncludeUsage is "include_usage" case-folded.
var foldedIncludeUsage = string(appendFold(nil, []byte("include_usage")))

// streamOptions checks the members of stream_options (v, valid JSON) as top
// checks the top level's: dispatch reads "include_usage" by its exact name
// to decide whether the upstream is asked for usage, and a Go upstream
// (Ollama) reads the last member whose name folds to it, so
// {"include_usage":true,"INCLUDE_USAGE":false} was a stream billed from an
// estimate (review 39e).
func (s *scanner) streamOptions(v []byte) bool {
	sc, ok := rawjson.ScanObject(v)
	if !ok {
		return true
	}
	for {
		k, _, ok := sc.Next()
		if !ok {
			return true
		}
		name := k[1 : len(k)-1]
		if hasByte(name, '\\') || !utf8.Valid(name) {
			name = appendUnquoted(nil, name)
		}
		if len(name) <= maxFoldedKey && string(name) != "include_usage" && string(appendFold(s.fold[:0], name)) == foldedIncludeUsage {
			s.err = &bodyError{fmt.Sprintf("member %s of stream_options differs from \"include_usage\" only by case: JSON readers disagree on whether it is \"include_usage\", so spell it exactly",
				quoteName(name))}
			return false
		}
	}
}

// quoteName quotes a member name for a message, cut to 64 bytes.
func quoteName(t []byte) string {
	if len(t) > 64 {
		return strconv.Quote(string(t[:64])) + "…"
	}
	return strconv.Quote(string(t))
}

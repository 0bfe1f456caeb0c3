package dispatch

import (
	"bytes"
	"encoding/base64"
	"strings"
	"unicode/utf8"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/chat"
)

// Translating a request decodes it whole, which costs many times the body
// while it runs — the Messages and Responses doors into chat, and each
// attempt from chat into an Anthropic or Gemini request, and a
// continuation by prefill (splice.Prefill, once more): up to about 9
// bytes per body byte (one long text, a long array of numbers), and about
// 1.6 KiB per object or array for a body of many small blocks (measured as
// total allocation, with the race detector's overhead and encoding/json's
// pooled buffers cold: TestTranslationCostBoundsTheTranslation here and in
// internal/server; docs/config.md, max_inflight_body_bytes). The front
// counts that memory in its request-body allowance while it is used, and
// the body the attempt sends while the attempt runs (Call.Allowance).

// Per body byte, per object or array, per element of a list, and per byte
// that encoding/json writes longer than it came (below), what a
// translation may cost.
const (
	costPerByte      = 10
	costPerStructure = 1792
	costPerGrowing   = 24
	costPerElement   = 384
	costPerMember    = 384
)

// TranslationCost is what translating body may cost: costPerByte for each
// byte, costPerStructure for each object or array outside strings, and
// costPerGrowing more for each byte of a string that encoding/json writes
// longer than it came: a byte that is not UTF-8 (it becomes U+FFFD, three
// bytes) and U+2028 and U+2029 (always escaped, six bytes for three).
// Markup ('<', '>', '&') is not among them: translations write it as it
// came (rawjson.Marshal, review 36a).
func TranslationCost(body []byte) int64 {
	c := scanCost(body)
	return costPerByte*int64(len(body)) + costPerStructure*int64(c.structures) + costPerGrowing*int64(c.growing) + costPerMember*int64(c.members)
}

// MaxTranslationCost is the most one translation may reserve, given the
// largest body accepted and the allowance (max_body_bytes,
// max_inflight_body_bytes): 40 bytes per byte of the largest body, or the
// whole allowance if that is more. Every body of an ordinary shape up to
// the largest size fits, twice over (a continuation's decoding, then the
// translation); one that would cost more — a body made mostly of the
// tiniest blocks, or of list elements that are not objects — is refused
// rather than translated, so that the one translation the allowance lets
// run past it (its overdraft) is bounded too (docs/config.md,
// max_inflight_body_bytes).
func MaxTranslationCost(maxBody, allowance int64) int64 {
	return max(allowance, maxCostPerByte*maxBody)
}

// maxCostPerByte is MaxTranslationCost's multiple of the largest body:
// real agent sessions cost up to about 52 bytes per byte at the Messages
// door and 40 as chat (Claude Code's tool loop grown to the largest body,
// review 36c), twice that for a continuation by prefill.
const maxCostPerByte = 128

// EmbeddingsCost is what reading an embeddings body may cost (its parse,
// Call.CheckEmbeddings), and again what building the calls of an attempt
// at a dialect that translates it (Gemini's batchEmbedContents, every call
// of a request sent in several built before the first is sent):
// costPerByte for each byte, costPerGrowing more for each byte that grows,
// and costPerElement for each element of a list, which each cost a string
// and, translated, an object of their own (measured:
// TestEmbeddingsCostBoundsTheParseAndTheTranslation).
func EmbeddingsCost(body []byte) int64 {
	c := scanCost(body)
	// The parse refuses a list at its element past the limit, the body's
	// few other members aside.
	n := min(c.elements, provider.MaxEmbeddingsInputs+16)
	return costPerByte*int64(len(body)) + costPerElement*int64(n) + costPerGrowing*int64(c.growing)
}

// costScan is what one pass over a JSON text counts.
type costScan struct {
	// structures are the objects and arrays (opening brackets outside
	// strings), and every other element of a list shallow enough to be one
	// the translators decode into a list of objects (typedDepth): a null,
	// a number or a string there still costs encoding/json a whole
	// zero-valued element (review 36b: a body of "messages":[0,0,…]
	// allocated 278 times its size against 10 reserved).
	structures int
	elements   int // values of the body's members and of the lists they hold (depth 2 at most): an embeddings body's inputs
	// members are the members of the body's object and of the objects of
	// its lists (depth 3 at most): a message's, which a continuation by
	// prefill and the Messages door's unsigned-thinking check decode into
	// maps, an entry each (review 36c: a message of a million members
	// allocated 38 times its size against 10 reserved).
	members int
	growing int // bytes inside strings encoding/json writes longer than they came
}

// typedDepth is the deepest list the translators decode into a list of
// objects: a tool result's content blocks, messages[].content[].content[]
// (depth 6, the body's object being 1). Deeper lists are inside values
// they keep raw (a tool's arguments, its schema).
const typedDepth = 6

func scanCost(b []byte) costScan {
	var c costScan
	var arrays uint64 // bit d: the container at depth d (≤ 63) is a list
	in, depth, element := false, 0, false
	for i := 0; i < len(b); i++ {
		if in {
			// Inside a string only a quote, a backslash and a byte
			// beyond ASCII matter: skip the others in a tight loop (most
			// of an agent's request is text; docs/benchmarks.md, "Large
			// requests").
			for i < len(b) && b[i] < utf8.RuneSelf && b[i] != '"' && b[i] != '\\' {
				i++
			}
			if i == len(b) {
				break
			}
		}
		ch := b[i]
		if element && !in { // the first byte of a value in a shallow list
			switch ch {
			case ' ', '\t', '\n', '\r':
				continue
			case '{', '[', ']': // a structure, counted below; or the list's end
			default:
				c.structures++
			}
			element = false
		}
		switch {
		case ch >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
				c.growing += size
			}
			i += size - 1
		case in && ch == '\\':
			i++
		case ch == '"':
			if !in && i+6 < len(b) && string(b[i+1:i+6]) == "data:" {
				// A text file a translation sends decoded (chat.Part.
				// TextFile): its text's growing bytes, not its base64's
				// (hostile 52c: a file of control characters grew 4.5
				// times in the translation against a base64 that grows
				// by nothing).
				if end, grow, ok := textFileGrowth(b, i+1); ok {
					c.growing += grow
					i = end
					continue
				}
			}
			in = !in
		case in:
		case ch == '{' || ch == '[':
			c.structures++
			if depth++; depth <= 2 {
				c.elements++ // the first value in it
			}
			if depth > 0 && depth < 64 { // depth ≤ 0: a body that closes more than it opened (never one the front checked)
				arrays &^= 1 << depth
				if ch == '[' {
					arrays |= 1 << depth
					element = depth <= typedDepth
				}
			}
		case ch == '}' || ch == ']':
			depth--
		case ch == ':':
			if depth <= 3 {
				c.members++
			}
		case ch == ',':
			if depth <= 2 {
				c.elements++
			}
			element = depth <= typedDepth && depth > 0 && arrays&(1<<depth) != 0
		}
	}
	return c
}

// textFileGrowth reads the string that starts at b[start] (after its
// quote) as a data: URL: when it is base64 of a text type (chat.TextType),
// it returns the index of its closing quote and how many bytes encoding/
// json writes longer than they came in the decoded text — a control
// character, a quote, a backslash, U+2028, U+2029, a byte that is not
// UTF-8 (each counted as one: the cost per growing byte covers the six a
// control character takes), plus the decoded text itself, which the
// translation holds beside the body; ok is false for any other string,
// which is then scanned as text.
func textFileGrowth(b []byte, start int) (end, grow int, ok bool) {
	end = bytes.IndexByte(b[start:], '"')
	if end < 0 {
		return 0, 0, false
	}
	end += start
	s := b[start:end]
	comma := bytes.IndexByte(s, ',')
	if comma < 0 || comma > 128 || bytes.IndexByte(s, '\\') >= 0 {
		return 0, 0, false
	}
	meta := string(s[len("data:"):comma])
	mt, enc, _ := strings.Cut(meta, ";")
	if enc != "base64" || !chat.TextType(mt) {
		return 0, 0, false
	}
	dec := base64.NewDecoder(base64.StdEncoding, bytes.NewReader(s[comma+1:]))
	var buf [4096]byte
	var carry []byte // a rune cut by a read's end
	total := 0
	for {
		n, err := dec.Read(buf[len(carry):][:len(buf)-len(carry)])
		copy(buf[:len(carry)], carry)
		chunk := buf[:len(carry)+n]
		total += n
		i := 0
		for i < len(chunk) {
			c := chunk[i]
			if c < utf8.RuneSelf {
				if c < 0x20 || c == '"' || c == '\\' {
					grow++
				}
				i++
				continue
			}
			if !utf8.FullRune(chunk[i:]) && err == nil {
				break // the rest of the rune comes with the next read
			}
			r, size := utf8.DecodeRune(chunk[i:])
			if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
				grow += size
			}
			i += size
		}
		carry = append(carry[:0], chunk[i:]...)
		if err != nil {
			break
		}
	}
	return end, grow + total, true
}

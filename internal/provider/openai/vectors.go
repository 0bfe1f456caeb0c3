package openai

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/detour-llm/detour/internal/rawjson"
)

// An OpenAI-compatible server's embeddings answer is read without decoding
// its vectors (docs/doors.md, "Embeddings"): a scan of the "data" list
// finds each entry's index and the span of its embedding, which is checked
// and, for a client that asked for base64 from a server that answered
// floats, re-encoded in the same walk. An answer of 2,048 vectors of 3,072
// floats is some 80 MB: decoding it (before review 63c, for base64 only)
// took ~1.1 s and 357 MB for 2,048 vectors of 1,536, the walk ~0.3 s and
// one buffer the size of the answer (BenchmarkEmbeddingsAnswerBase64).

// vector is one entry of an embeddings answer's "data" list.
type vector struct {
	el    []byte // the entry as sent
	index int    // its "index"; -1 when it has none (absent, or null)
	// is, ie: the span of its "index" value in el; is is -1 when absent.
	is, ie int
	// es, ee: the span of its "embedding" value in el.
	es, ee int
}

// checkVectors checks the "data" list (body[ds:de]) of an embeddings
// answer to n inputs (n < 0: not known) and returns the body the client
// gets: one vector per input, none empty or null, "index" 0 to n-1 each
// once, in that order. An answer that is none of that is an error: the
// attempt fails as a server_error and the route moves on, as for a
// Gemini answer (review 63c: Ollama 0.21 answers a batch with empty
// vectors, ollama/ollama#13020, which passed as a success and broke every
// client's index). Indices that are a permutation are put in input order
// (LangChain JS and the AI SDK read the vectors by position); an entry
// without an index is its position (Gemini's OpenAI-compatible endpoint
// omits index 0, as protobuf omits a zero value: samfoy/pi-session-search#13)
// and the index is written for the client (openai-python reads it as
// None). With b64, a vector that is a list of numbers is written as
// base64 (base64Vector). The body is returned as it came when nothing
// changes.
func checkVectors(body []byte, ds, de, n int, b64 bool) ([]byte, error) {
	sc, _ := rawjson.ScanArray(body[ds:de])
	var vs []vector
	if n > 0 {
		vs = make([]vector, 0, min(n, 1<<12))
	}
	most := n // entries read before the count is known wrong: a hostile
	// answer of millions of entries for one input grew vs to a gigabyte
	// before the count was compared (review 63m)
	if n < 0 {
		most = maxVectors
	}
	for _, el, ok := sc.Next(); ok; _, el, ok = sc.Next() {
		if len(vs) == most {
			return nil, fmt.Errorf("openai: more than %d embeddings for %d inputs", most, n)
		}
		v, err := readVector(el, len(vs))
		if err != nil {
			return nil, err
		}
		vs = append(vs, v)
	}
	switch {
	case n >= 0 && len(vs) != n:
		return nil, fmt.Errorf("openai: %d embeddings for %d inputs", len(vs), n)
	case len(vs) == 0:
		return nil, errors.New("openai: no embeddings")
	}
	at := make([]int, len(vs)) // at[i]: the entry whose index is i
	for i := range at {
		at[i] = -1
	}
	order, floats := false, false // an entry to move or number; a list of floats
	for p, v := range vs {
		i := v.index
		if i < 0 {
			i, order = p, true
		}
		switch {
		case i >= len(vs):
			return nil, fmt.Errorf("openai: embedding %d has index %d, past the %d embeddings", p, i, len(vs))
		case at[i] >= 0:
			return nil, fmt.Errorf("openai: two embeddings have index %d", i)
		}
		at[i] = p
		order = order || i != p
		floats = floats || v.el[v.es] == '['
	}
	if b64 && floats {
		if out, err := writeVectors(body, ds, de, vs, at, true); err == nil {
			return out, nil
		}
		// A vector the base64 encoding cannot read (nested lists, a
		// number a float32 cannot hold) is still an answer: it passes as
		// the upstream wrote it, never a failure that would be retried
		// and billed again (second hostile review).
	}
	if !order {
		return body, nil
	}
	return writeVectors(body, ds, de, vs, at, false)
}

// readVector reads the p-th entry of a "data" list: an object whose
// "embedding" is a non-empty list or a non-empty string (base64), and
// whose "index", when it has one, a whole number.
func readVector(el []byte, p int) (vector, error) {
	v := vector{el: el, index: -1, is: -1, es: -1}
	m, ok := rawjson.ScanObject(el)
	if !ok {
		return v, fmt.Errorf("openai: embedding %d is not an object", p)
	}
	var index []byte
	for k, val, ok := m.Next(); ok; k, val, ok = m.Next() {
		// The last of a repeated member counts, as in encoding/json; the
		// spans are offsets in el, whose slices Scan returns.
		switch {
		case rawjson.KeyIs(k, "index"):
			index, v.is = val, cap(el)-cap(val)
			v.ie = v.is + len(val)
		case rawjson.KeyIs(k, "embedding"):
			v.es = cap(el) - cap(val)
			v.ee = v.es + len(val)
		}
	}
	if v.es < 0 {
		return v, fmt.Errorf("openai: embedding %d has no vector", p)
	}
	switch e := el[v.es:v.ee]; {
	case string(e) == "null":
		return v, fmt.Errorf("openai: embedding %d is null", p)
	case e[0] == '[' && len(bytes.TrimSpace(e[1:len(e)-1])) == 0, string(e) == `""`:
		return v, fmt.Errorf("openai: embedding %d is empty", p)
	case e[0] != '[' && e[0] != '"':
		return v, fmt.Errorf("openai: embedding %d is not a vector", p)
	case e[0] == '[' && !numbersOnly(e[1:len(e)-1]):
		return v, fmt.Errorf("openai: embedding %d is not a list of numbers", p)
	}
	switch {
	case index == nil || string(index) == "null":
	case len(index) > 9 || bytes.ContainsFunc(index, func(r rune) bool { return r < '0' || r > '9' }):
		return v, fmt.Errorf("openai: embedding %d has index %.40s, not a whole number", p, index)
	default:
		v.index, _ = strconv.Atoi(string(index))
	}
	return v, nil
}

// numbersOnly reports whether b, the inside of a JSON list already
// checked, holds numbers only: no null (what an encoder writes for NaN),
// no nested list, string, object or literal (review 63m: [null,null] and
// [[0.1],[0.2]] passed as vectors, and openai-go read them as zeros). A
// byte test, no parse: the answer may be 80 MB.
func numbersOnly(b []byte) bool {
	for _, c := range b {
		switch {
		case '0' <= c && c <= '9', c == '.', c == '-', c == '+', c == 'e', c == 'E', c == ',',
			c == ' ', c == '\t', c == '\n', c == '\r':
		default:
			return false
		}
	}
	return true
}

// maxVectors bounds an answer's entries where the inputs are not known:
// the door takes at most 2,048 inputs (docs/doors.md, "Embeddings").
const maxVectors = 1 << 16

// maxReencoded bounds what the base64 encoding of an answer writes: the
// most the gateway holds of an answer (64 MiB). Numbers written short
// ("0,0,…") grow as float32s, a 65 MB answer of zeros to 173 MB and an
// 866 MB peak (review 63m); past the bound the answer goes as the upstream
// wrote it.
const maxReencoded = 64 << 20

// writeVectors writes body with its "data" list (body[ds:de]) in index
// order (at), each entry's index written where it had none and, with b64,
// each list of numbers as base64.
func writeVectors(body []byte, ds, de int, vs []vector, at []int, b64 bool) ([]byte, error) {
	type edit struct {
		s, e   int
		vector bool // the vector as base64; else the index
	}
	out := make([]byte, 0, len(body)+16*len(vs))
	out = append(out, body[:ds]...)
	out = append(out, '[')
	var scratch, idx []byte // one vector's float32s; one index: reused
	for i, p := range at {
		if i > 0 {
			out = append(out, ',')
		}
		v := vs[p]
		var eds [2]edit // at most two, in the order they come in the entry
		k := 0
		if v.index < 0 {
			idx = strconv.AppendInt(idx[:0], int64(i), 10)
			if v.is >= 0 { // "index": null
				eds[k] = edit{s: v.is, e: v.ie}
			} else { // none: the entry's first member (el begins with its '{')
				idx = append(append([]byte(`"index":`), idx...), ',')
				eds[k] = edit{s: 1, e: 1}
			}
			k++
		}
		if b64 && v.el[v.es] == '[' {
			eds[k] = edit{s: v.es, e: v.ee, vector: true}
			k++
		}
		if k == 2 && eds[1].s < eds[0].s {
			eds[0], eds[1] = eds[1], eds[0]
		}
		pos := 0
		for _, ed := range eds[:k] {
			out = append(out, v.el[pos:ed.s]...)
			if ed.vector {
				var err error
				if out, scratch, err = base64Vector(out, scratch[:0], v.el[ed.s:ed.e]); err != nil {
					return nil, err
				}
				if len(out) > maxReencoded {
					return nil, errors.New("openai: the answer as base64 would pass what the gateway holds")
				}
			} else {
				out = append(out, idx...)
			}
			pos = ed.e
		}
		out = append(out, v.el[pos:]...)
	}
	out = append(out, ']')
	return append(out, body[de:]...), nil
}

// base64Vector appends list, a JSON list of numbers, to out as OpenAI
// encodes an embedding for "encoding_format": "base64": little-endian
// float32 values, standard base64 (padded), as a JSON string. scratch
// holds the float32s (returned, for the next vector). The numbers are
// read one by one where they are: no []float64 of the vector is made.
func base64Vector(out, scratch, list []byte) ([]byte, []byte, error) {
	in := bytes.TrimSpace(list[1 : len(list)-1])
	for len(in) > 0 {
		if len(scratch) >= maxReencoded/2 { // one vector's float32s, bounded as the answer is
			return out, scratch, errors.New("openai: a vector past what the gateway holds as base64")
		}
		num, rest, _ := bytes.Cut(in, []byte(","))
		f, err := strconv.ParseFloat(string(bytes.TrimSpace(num)), 64)
		if err != nil {
			return out, scratch, err
		}
		if f32 := float32(f); math.IsInf(float64(f32), 0) {
			return out, scratch, fmt.Errorf("openai: %g does not fit a float32", f)
		}
		scratch = binary.LittleEndian.AppendUint32(scratch, math.Float32bits(float32(f)))
		in = rest
	}
	out = append(out, '"')
	out = base64.StdEncoding.AppendEncode(out, scratch)
	return append(out, '"'), scratch, nil
}

package provider

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"

	"github.com/detour-llm/detour/internal/rawjson"
)

// Embedder is implemented by adapters that serve OpenAI embeddings requests
// (POST /v1/embeddings). It is optional and separate from Adapter: a dialect
// without embeddings does not implement it. Implementations are stateless
// and safe for concurrent use.
type Embedder interface {
	// NewEmbeddingsRequest builds the upstream HTTP request for req, an
	// OpenAI embeddings body, at ep. An error means the request cannot be
	// expressed in the dialect (the caller answers it as a bad request).
	NewEmbeddingsRequest(ctx context.Context, ep Endpoint, req *Request) (*http.Request, error)
	// EmbeddingsResponse translates a complete 2xx upstream body into an
	// OpenAI embeddings list for req. An error means the body is unusable.
	EmbeddingsResponse(req *Request, body []byte, ep Endpoint) ([]byte, error)
}

// EmbeddingsBatcher is implemented by an Embedder whose upstream takes at
// most MaxEmbeddingsInputs inputs in one call (Gemini's batchEmbedContents:
// 100). A larger request is sent as several calls of at most that many
// inputs, each a Request whose Embeddings holds its part of the texts (with
// First set), and their answers are joined (JoinEmbeddings; docs/doors.md,
// "Embeddings").
type EmbeddingsBatcher interface {
	MaxEmbeddingsInputs() int
}

// Embeddings is an OpenAI embeddings request as the translating adapters
// read it.
type Embeddings struct {
	// Texts are the inputs; "input" as a string is one text.
	Texts []string
	// Tokens is set when "input" is a token array (or a list of them),
	// which only OpenAI-dialect upstreams accept; Texts is then empty.
	Tokens bool
	// Dimensions is "dimensions", 0 when absent.
	Dimensions int
	// Base64 is set for "encoding_format": "base64".
	Base64 bool
	// First is the index of Texts[0] among the client's inputs: 0, unless
	// this is one batch of a request sent in several calls
	// (EmbeddingsBatcher), whose answer then numbers its vectors from First.
	First int
	// tokenInputs is the number of token arrays when Tokens is set (a flat
	// token array is one).
	tokenInputs int
}

// Inputs is the number of inputs, each owed one vector: the texts, or the
// token arrays (a flat token array is one text).
func (e *Embeddings) Inputs() int {
	if e.Tokens {
		return e.tokenInputs
	}
	return len(e.Texts)
}

// MaxEmbeddingsInputs is the most inputs one embeddings request may hold,
// as OpenAI's API takes ("any array must be 2048 dimensions or less"): a
// target that takes fewer per call gets them in several (docs/doors.md,
// "Embeddings").
const MaxEmbeddingsInputs = 2048

// ParseEmbeddings decodes an OpenAI embeddings body: "input" a string, a
// list of strings, a token array or a list of token arrays; "dimensions" a
// positive integer; "encoding_format" "float" or "base64".
func ParseEmbeddings(body []byte) (*Embeddings, error) {
	var w struct {
		Input          json.RawMessage `json:"input"`
		Dimensions     *int            `json:"dimensions"`
		EncodingFormat string          `json:"encoding_format"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, fmt.Errorf("embeddings: %w", err)
	}
	var out Embeddings
	switch w.EncodingFormat {
	case "", "float":
	case "base64":
		out.Base64 = true
	default:
		return nil, fmt.Errorf("embeddings: encoding_format %q: want float or base64", w.EncodingFormat)
	}
	if w.Dimensions != nil {
		if *w.Dimensions <= 0 {
			return nil, errors.New("embeddings: dimensions must be a positive integer")
		}
		out.Dimensions = *w.Dimensions
	}
	in := bytes.TrimSpace(w.Input)
	if len(in) == 0 || bytes.Equal(in, []byte("null")) {
		return nil, errors.New("embeddings: input is required")
	}
	if in[0] == '"' {
		one, ok := rawjson.String(in)
		if !ok {
			return nil, errors.New("embeddings: input: want a string, a list of strings, or token arrays")
		}
		out.Texts = []string{one}
		return &out, nil
	}
	// The list is walked in place, each element read as it comes, and
	// refused at its (MaxEmbeddingsInputs+1)th: decoding it into a slice of
	// raw values first cost 24 bytes per element (a token array of one-digit
	// numbers, twelve times its size) before any count was made.
	sc, ok := rawjson.ScanArray(in)
	if !ok {
		return nil, errors.New("embeddings: input: want a string, a list of strings, or token arrays")
	}
	// n counts the inputs: each text or token array of a list, and a flat
	// token array (numbers) as one text whatever its length (probe 53b: a
	// 3,000-token text, as the OpenAI cookbook sends one, was refused as
	// 3,000 inputs).
	n, numbers := 0, 0
	for _, m, ok := sc.Next(); ok; _, m, ok = sc.Next() {
		if isNumber(m) {
			if numbers++; numbers == 1 {
				n++
			}
			out.Tokens = true
			continue
		}
		if n++; n > MaxEmbeddingsInputs {
			return nil, fmt.Errorf("embeddings: input: more than %d items; at most %d per request", MaxEmbeddingsInputs, MaxEmbeddingsInputs)
		}
		switch {
		case m[0] == '"':
			t, ok := rawjson.String(m)
			if !ok {
				return nil, errors.New("embeddings: input: a text is not a JSON string")
			}
			out.Texts = append(out.Texts, t)
		case tokenArray(m):
			out.Tokens = true
		default:
			return nil, errors.New("embeddings: input: want a string, a list of strings, or token arrays")
		}
	}
	if n == 0 {
		return nil, errors.New("embeddings: input: want a string, a list of strings, or token arrays")
	}
	if numbers > 0 && n > 1 {
		return nil, errors.New("embeddings: input: a token array mixed with other inputs; send one token array, or a list of token arrays")
	}
	if out.Tokens && len(out.Texts) > 0 {
		return nil, errors.New("embeddings: input mixes strings and tokens")
	}
	if out.Tokens {
		out.Texts, out.tokenInputs = nil, n
	}
	return &out, nil
}

// isNumber reports whether v, a JSON value, is a number.
func isNumber(v []byte) bool { return v[0] == '-' || v[0] >= '0' && v[0] <= '9' }

// maxInt and minIntDigits are the digits of the largest int and of the
// smallest without its sign.
const maxInt, minIntDigits = "9223372036854775807", "9223372036854775808"

// tokenArray reports whether v, a JSON value, is a list of whole numbers
// an int holds (a token array), as json.Unmarshal into []int accepts it.
func tokenArray(v []byte) bool {
	sc, ok := rawjson.ScanArray(v)
	if !ok {
		return false
	}
	for _, t, ok := sc.Next(); ok; _, t, ok = sc.Next() {
		d := t
		if d[0] == '-' {
			d = d[1:]
		}
		if len(d) == 0 || len(d) > len(maxInt) {
			return false
		}
		for _, c := range d {
			if c < '0' || c > '9' {
				return false
			}
		}
		if len(d) == len(maxInt) && string(d) > maxInt && !(t[0] == '-' && string(d) == minIntDigits) {
			return false
		}
	}
	return true
}

// EmbeddingsOf is req's embeddings request: req.Embeddings, or Body parsed
// (ParseEmbeddings) when the caller left it nil.
func EmbeddingsOf(req *Request) (*Embeddings, error) {
	if req.Embeddings != nil {
		return req.Embeddings, nil
	}
	return ParseEmbeddings(req.Body)
}

// EmbeddingList is OpenAI's embeddings answer
// (https://platform.openai.com/docs/api-reference/embeddings/object).
// Each Embedding is a JSON array of floats, or a base64 string of
// little-endian float32 values when the client asked for base64.
type EmbeddingList struct {
	Object string          `json:"object"`
	Data   []EmbeddingData `json:"data"`
	Model  string          `json:"model"`
	Usage  EmbeddingUsage  `json:"usage"`
}

// EmbeddingData is one entry of EmbeddingList.Data.
type EmbeddingData struct {
	Object    string          `json:"object"`
	Index     int             `json:"index"`
	Embedding json.RawMessage `json:"embedding"`
}

// EmbeddingUsage is an embeddings answer's usage.
type EmbeddingUsage struct {
	PromptTokens int `json:"prompt_tokens"`
	TotalTokens  int `json:"total_tokens"`
}

// Base64Floats is values as OpenAI encodes an embedding for
// "encoding_format": "base64": little-endian float32 values, standard
// base64 (padded), as a JSON string.
func Base64Floats(values []float64) json.RawMessage {
	raw := make([]byte, 4*len(values))
	for i, f := range values {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(float32(f)))
	}
	b, _ := json.Marshal(base64.StdEncoding.EncodeToString(raw))
	return b
}

// JoinEmbeddings joins the answers to the batches of one request, each an
// EmbeddingList as an Embedder's EmbeddingsResponse wrote it (its indices
// already counted from its batch's First), into one list in batch order:
// the model of the first, the usage summed.
func JoinEmbeddings(lists [][]byte) ([]byte, error) {
	var out EmbeddingList
	for i, b := range lists {
		var l EmbeddingList
		if err := json.Unmarshal(b, &l); err != nil {
			return nil, fmt.Errorf("embeddings: batch %d: %w", i, err)
		}
		if i == 0 {
			out.Object, out.Model, out.Data = l.Object, l.Model, make([]EmbeddingData, 0, len(l.Data)*len(lists))
		}
		out.Data = append(out.Data, l.Data...)
		out.Usage.PromptTokens += l.Usage.PromptTokens
		out.Usage.TotalTokens += l.Usage.TotalTokens
	}
	for i := range out.Data {
		if out.Data[i].Index != i {
			return nil, fmt.Errorf("embeddings: vector %d is numbered %d", i, out.Data[i].Index)
		}
	}
	return json.Marshal(out)
}

package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/rawjson"
)

var (
	_ provider.Embedder          = Adapter{}
	_ provider.EmbeddingsBatcher = Adapter{}
)

// MaxEmbedBatch is the most texts batchEmbedContents takes in one call
// (Gemini answers more with 400 "BatchEmbedContentsRequest.requests: at
// most 100 requests can be in one batch"). OpenAI takes up to 2048 inputs:
// dispatch sends a larger request in several calls (docs/doors.md,
// "Embeddings").
const MaxEmbedBatch = 100

// MaxEmbeddingsInputs is MaxEmbedBatch (provider.EmbeddingsBatcher).
func (Adapter) MaxEmbeddingsInputs() int { return MaxEmbedBatch }

// ErrEmbedTokens refuses token-array input: Gemini embeds text only.
var ErrEmbedTokens error = &provider.Unsupported{Param: "input", Msg: "gemini: embeddings input as token arrays is not supported; send strings"}

type embedRequest struct {
	Requests []embedOne `json:"requests"`
}

type embedOne struct {
	Model                string  `json:"model"`
	Content              content `json:"content"`
	OutputDimensionality int     `json:"outputDimensionality,omitempty"`
}

// TranslateEmbeddings turns an OpenAI embeddings request (parsed:
// provider.EmbeddingsOf) into a batchEmbedContents body for model
// (https://ai.google.dev/api/embeddings#method:-models.batchembedcontents):
// one request per input text, {model: "models/<model>", content: {parts:
// [{text}]}, outputDimensionality: dimensions}. Token arrays are refused
// (ErrEmbedTokens); user and encoding_format do not travel.
func TranslateEmbeddings(e *provider.Embeddings, model string) ([]byte, error) {
	if e.Tokens {
		return nil, ErrEmbedTokens
	}
	name := "models/" + strings.TrimPrefix(model, "models/")
	out := embedRequest{Requests: make([]embedOne, len(e.Texts))}
	for i, t := range e.Texts {
		if t == "" {
			return nil, fmt.Errorf("gemini: embeddings input %d is empty", e.First+i) // the client's index, in a batch too
		}
		out.Requests[i] = embedOne{Model: name, Content: content{Parts: []part{{Text: t}}}, OutputDimensionality: e.Dimensions}
	}
	return rawjson.Marshal(out)
}

// NewEmbeddingsRequest POSTs the translated body to
// {base_url}/v1beta/models/{model}:batchEmbedContents.
func (Adapter) NewEmbeddingsRequest(ctx context.Context, ep provider.Endpoint, req *provider.Request) (*http.Request, error) {
	e, err := provider.EmbeddingsOf(req)
	if err != nil {
		return nil, err
	}
	body, err := TranslateEmbeddings(e, ep.Model)
	if err != nil {
		return nil, err
	}
	return post(ctx, ep, ":batchEmbedContents", body, false)
}

// EmbeddingsResponse turns a batchEmbedContents answer ({embeddings:
// [{values: [...]}]}, in input order) into an OpenAI embeddings list named
// after ep.Model. Gemini reports no token counts, so usage is zero. Each
// vector is scaled to unit length, as OpenAI's are (toUnit). When the
// client asked for encoding_format base64, each vector is encoded as OpenAI
// does: little-endian float32 values, base64 (standard alphabet, padded).
// An answer whose count differs from the inputs' is an error. The vectors
// are numbered from the request's First (one batch of a larger request).
func (Adapter) EmbeddingsResponse(req *provider.Request, body []byte, ep provider.Endpoint) ([]byte, error) {
	e, err := provider.EmbeddingsOf(req)
	if err != nil {
		return nil, err
	}
	var in struct {
		Embeddings []struct {
			Values json.RawMessage `json:"values"`
		} `json:"embeddings"`
	}
	if err := json.Unmarshal(body, &in); err != nil {
		return nil, fmt.Errorf("gemini: embeddings: %w", err)
	}
	if len(in.Embeddings) != len(e.Texts) {
		return nil, fmt.Errorf("gemini: %d embeddings for %d inputs", len(in.Embeddings), len(e.Texts))
	}
	out := provider.EmbeddingList{Object: "list", Model: strings.TrimPrefix(ep.Model, "models/"), Data: make([]provider.EmbeddingData, len(in.Embeddings))}
	for i, emb := range in.Embeddings {
		if !numberArray(emb.Values) {
			return nil, fmt.Errorf("gemini: embedding %d: values is not a non-empty list of numbers", i)
		}
		values, err := parseNumbers(emb.Values)
		if err != nil {
			return nil, fmt.Errorf("gemini: embedding %d: %w", i, err)
		}
		// OpenAI's vectors are of unit length, which clients rely on (a dot
		// product for cosine similarity); Gemini's are only at 3072
		// dimensions, and its guide tells callers to normalize the others
		// (https://ai.google.dev/gemini-api/docs/embeddings, "Ensuring
		// quality for smaller dimensions"). A vector already of unit
		// length travels as Gemini wrote it, unless the client asked for
		// base64.
		scaled := toUnit(values)
		v := []byte(emb.Values)
		switch {
		case e.Base64:
			v = provider.Base64Floats(values)
		case scaled:
			v = floatList(values)
		}
		out.Data[i] = provider.EmbeddingData{Object: "embedding", Index: e.First + i, Embedding: v}
	}
	return rawjson.Marshal(out)
}

// parseNumbers reads v, already known to be a JSON array of numbers
// (numberArray).
func parseNumbers(v []byte) ([]float64, error) {
	v = bytes.TrimSpace(v)
	v = v[1 : len(v)-1]
	out := make([]float64, 0, bytes.Count(v, []byte(","))+1)
	for len(v) > 0 {
		num, rest, _ := bytes.Cut(v, []byte(","))
		f, err := strconv.ParseFloat(string(bytes.TrimSpace(num)), 64)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
		v = rest
	}
	return out, nil
}

// toUnit scales values in place to unit length and reports whether it
// changed them: a vector already within 1e-6 of unit length, and a zero
// vector (which has no direction), are left as they are. The largest
// magnitude is divided out first, so no square overflows or underflows.
func toUnit(values []float64) bool {
	var m float64
	for _, x := range values {
		m = max(m, math.Abs(x))
	}
	if m == 0 {
		return false
	}
	var s float64
	for _, x := range values {
		s += (x / m) * (x / m)
	}
	root := math.Sqrt(s)
	if math.Abs(m*root-1) <= 1e-6 {
		return false
	}
	for i, x := range values {
		values[i] = x / m / root
	}
	return true
}

// floatList writes values as a JSON list of float32 numbers, the precision
// Gemini's and OpenAI's vectors have, each in its shortest form.
func floatList(values []float64) json.RawMessage {
	b := make([]byte, 0, 12*len(values)+2)
	b = append(b, '[')
	for i, x := range values {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, float64(float32(x)), 'g', -1, 32)
	}
	return append(b, ']')
}

// numberArray reports whether v, already known to be valid JSON, is a
// non-empty array of numbers: it holds nothing but number characters,
// commas and spaces between its brackets (true, false, null, strings and
// nested values all need another character).
func numberArray(v []byte) bool {
	v = bytes.TrimSpace(v)
	if len(v) < 3 || v[0] != '[' || v[len(v)-1] != ']' {
		return false
	}
	digits := false
	for _, c := range v[1 : len(v)-1] {
		switch {
		case c >= '0' && c <= '9':
			digits = true
		case c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || c == ',' ||
			c == ' ' || c == '\t' || c == '\n' || c == '\r':
		default:
			return false
		}
	}
	return digits
}

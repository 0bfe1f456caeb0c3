package gemini

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/detour-llm/detour/internal/provider"
)

// OpenAI's embeddings "are normalized to length 1" (OpenAI embeddings FAQ,
// https://help.openai.com/en/articles/6824809-embeddings-faq: "cosine
// similarity can be computed slightly faster using just a dot product"),
// and clients of the OpenAI door rely on it (inner-product indexes). Gemini
// normalizes only its 3072-dimension output; its embeddings guide
// (https://ai.google.dev/gemini-api/docs/embeddings, "Ensuring quality for
// smaller dimensions") tells callers to normalize the others. So each
// vector reaches the client at unit length, in floats and in base64; a
// zero vector (no direction) is left as it is (client review 46).
func TestC47bEmbeddingsUnitLength(t *testing.T) {
	const answer = `{"embeddings":[{"values":[0.3,0.4]},{"values":[0,0]},{"values":[-0.03,0.01,0.002]},{"values":[1e-30,-2e-30]}]}`
	want := [][]float64{{0.6, 0.8}, {0, 0}}
	for _, b64 := range []bool{false, true} {
		req := &provider.Request{Embeddings: &provider.Embeddings{Texts: []string{"a", "b", "c", "d"}, Base64: b64}}
		out, err := Adapter{}.EmbeddingsResponse(req, []byte(answer), provider.Endpoint{Model: "gemini-embedding-001"})
		if err != nil {
			t.Fatal(err)
		}
		vectors := decodeVectors(t, out, b64)
		for i, v := range vectors {
			var n float64
			for _, x := range v {
				n += x * x
			}
			if i == 1 {
				if n != 0 {
					t.Errorf("base64 %v: the zero vector became %v", b64, v)
				}
				continue
			}
			if math.Abs(n-1) > 1e-6 {
				t.Errorf("base64 %v: vector %d %v has squared length %v, want 1", b64, i, v, n)
			}
			if i == 0 {
				for j := range v {
					if math.Abs(v[j]-want[0][j]) > 1e-7 {
						t.Errorf("base64 %v: %v, want %v (the direction kept)", b64, v, want[0])
					}
				}
			}
		}
	}
}

// A vector already of unit length (Gemini's 3072-dimension output) travels
// as Gemini wrote it: no float is reformatted.
func TestC47bEmbeddingsUnitVectorUntouched(t *testing.T) {
	const values = `[0.6,-0.8000000001,0]`
	req := &provider.Request{Embeddings: &provider.Embeddings{Texts: []string{"a"}}}
	out, err := Adapter{}.EmbeddingsResponse(req, []byte(`{"embeddings":[{"values":`+values+`}]}`), provider.Endpoint{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"embedding":`+values) {
		t.Errorf("got %s, want the values as sent", out)
	}
}

// decodeVectors reads the list as openai-go reads it (floats), or decodes
// base64 as OpenAI documents it (little-endian float32).
func decodeVectors(t *testing.T, out []byte, b64 bool) [][]float64 {
	t.Helper()
	var vs [][]float64
	if !b64 {
		var list openai.CreateEmbeddingResponse
		if err := json.Unmarshal(out, &list); err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		for _, d := range list.Data {
			vs = append(vs, d.Embedding)
		}
		return vs
	}
	var list struct {
		Data []struct {
			Embedding string `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, d := range list.Data {
		raw, err := base64.StdEncoding.DecodeString(d.Embedding)
		if err != nil {
			t.Fatal(err)
		}
		v := make([]float64, len(raw)/4)
		for j := range v {
			v[j] = float64(math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:])))
		}
		vs = append(vs, v)
	}
	return vs
}

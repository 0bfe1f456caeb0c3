package gemini

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

func TestTranslateEmbeddings(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{
			// https://platform.openai.com/docs/api-reference/embeddings/create (example request)
			"one string",
			`{"input":"The food was delicious and the waiter...","model":"text-embedding-ada-002","encoding_format":"float"}`,
			`{"requests":[{"model":"models/gemini-embedding-001","content":{"parts":[{"text":"The food was delicious and the waiter..."}]}}]}`,
		},
		{
			// The batch shape of https://ai.google.dev/api/embeddings#method:-models.batchembedcontents
			// with outputDimensionality from "dimensions".
			"strings and dimensions",
			`{"model":"r","input":["What is the meaning of life?","How much wood would a woodchuck chuck?"],"dimensions":768,"user":"u1"}`,
			`{"requests":[{"model":"models/gemini-embedding-001","content":{"parts":[{"text":"What is the meaning of life?"}]},"outputDimensionality":768},{"model":"models/gemini-embedding-001","content":{"parts":[{"text":"How much wood would a woodchuck chuck?"}]},"outputDimensionality":768}]}`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := translateBody([]byte(c.in), "models/gemini-embedding-001")
			if err != nil {
				t.Fatal(err)
			}
			adaptertest.SameJSON(t, got, json.RawMessage(c.want))
		})
	}
}

func TestTranslateEmbeddingsRefuses(t *testing.T) {
	cases := []struct{ name, in, mention string }{
		{"token array", `{"input":[1212,318,257,1332]}`, "token arrays"},
		{"token arrays", `{"input":[[1212,318],[257]]}`, "token arrays"},
		{"empty string", `{"input":["a",""]}`, "empty"},
		{"no input", `{"model":"m"}`, "required"},
		{"empty list", `{"input":[]}`, "input"},
		{"bad dimensions", `{"input":"a","dimensions":0}`, "dimensions"},
		{"bad encoding", `{"input":"a","encoding_format":"int8"}`, "encoding_format"},
		{"mixed", `{"input":["a",[1]]}`, "mixes"},
		{"not json", `{"input":`, "embeddings"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := translateBody([]byte(c.in), "m")
			if err == nil || !strings.Contains(err.Error(), c.mention) {
				t.Fatalf("got %s, %v; want an error mentioning %q", got, err, c.mention)
			}
		})
	}
	if _, err := translateBody([]byte(`{"input":[1,2]}`), "m"); !errors.Is(err, ErrEmbedTokens) {
		t.Fatalf("token input: %v", err)
	}
}

// embedAnswer is a batchEmbedContents answer in the documented shape
// (https://ai.google.dev/api/embeddings#batchembedcontentsresponse), values
// shortened, each vector of unit length as Gemini's 3072-dimension ones
// are (the adapter scales others to unit length: embed_c47b_test.go).
const embedAnswer = `{"embeddings":[{"values":[0.6,-0.8,0]},{"values":[1,0,-0.0001]}]}`

// TestEmbeddingsLoopback sends a translated request over real HTTP to a
// fake Gemini endpoint, checks what arrives, and decodes the translated
// answer with openai-go's CreateEmbeddingResponse.
func TestEmbeddingsLoopback(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1beta/models/gemini-embedding-001:batchEmbedContents" || r.Method != http.MethodPost {
			t.Errorf("got %s %s", r.Method, r.URL.Path)
		}
		if r.Header.Get("x-goog-api-key") != "AIza-test" || r.Header.Get("Authorization") != "" {
			t.Error("the key must travel only in x-goog-api-key")
		}
		body, _ := io.ReadAll(r.Body)
		adaptertest.SameJSON(t, body, json.RawMessage(`{"requests":[{"model":"models/gemini-embedding-001","content":{"parts":[{"text":"a"}]}},{"model":"models/gemini-embedding-001","content":{"parts":[{"text":"b"}]}}]}`))
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, embedAnswer)
	}))
	defer srv.Close()
	ep := provider.Endpoint{BaseURL: srv.URL, APIKey: "AIza-test", Model: "gemini-embedding-001"}
	req := &provider.Request{Body: []byte(`{"model":"route","input":["a","b"]}`)}
	hr, err := Adapter{}.NewEmbeddingsRequest(context.Background(), ep, req)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.Client().Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	out, err := Adapter{}.EmbeddingsResponse(req, body, ep)
	if err != nil {
		t.Fatal(err)
	}
	var list openai.CreateEmbeddingResponse
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatal(err)
	}
	if list.Object != "list" || list.Model != "gemini-embedding-001" || len(list.Data) != 2 {
		t.Fatalf("%s", out)
	}
	want := [][]float64{{0.6, -0.8, 0}, {1, 0, -0.0001}}
	for i, d := range list.Data {
		if d.Index != int64(i) || d.Object != "embedding" || len(d.Embedding) != 3 {
			t.Fatalf("data %d: %s", i, out)
		}
		for j, v := range d.Embedding {
			if v != want[i][j] {
				t.Fatalf("data %d value %d = %v, want %v", i, j, v, want[i][j])
			}
		}
	}
}

// TestEmbeddingsBase64 checks the base64 form OpenAI documents for
// encoding_format (little-endian float32 values).
func TestEmbeddingsBase64(t *testing.T) {
	req := &provider.Request{Body: []byte(`{"input":["a","b"],"encoding_format":"base64"}`)}
	out, err := Adapter{}.EmbeddingsResponse(req, []byte(embedAnswer), provider.Endpoint{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	var list struct {
		Data []struct {
			Embedding string `json:"embedding"`
		} `json:"data"`
	}
	if err := json.Unmarshal(out, &list); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	raw, err := base64.StdEncoding.DecodeString(list.Data[0].Embedding)
	if err != nil || len(raw) != 12 {
		t.Fatalf("%v, %d bytes", err, len(raw))
	}
	for j, want := range []float32{0.6, -0.8, 0} {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(raw[4*j:])); got != want {
			t.Fatalf("value %d = %v, want %v", j, got, want)
		}
	}
}

func TestEmbeddingsResponseRefusesUnusableBodies(t *testing.T) {
	req := &provider.Request{Body: []byte(`{"input":["a","b"]}`)}
	for _, b := range []string{`{"embeddings":[{"values":[1]}]}`, `{"embeddings":[{"values":[1]},{"values":[]}]}`, `{}`, `[`, `{"embeddings":{}}`,
		`{"embeddings":[{"values":["1"]},{"values":[1]}]}`, `{"embeddings":[{"values":[true]},{"values":[1]}]}`,
		`{"embeddings":[{"values":[[1]]},{"values":[1]}]}`, `{"embeddings":[{"values":[null]},{"values":[1]}]}`,
		`{"embeddings":[{"values":"1"},{"values":[1]}]}`, `{"embeddings":[{},{"values":[1]}]}`} {
		if out, err := (Adapter{}).EmbeddingsResponse(req, []byte(b), provider.Endpoint{}); err == nil {
			t.Fatalf("%s: got %s", b, out)
		}
	}
}

func FuzzEmbeddingsResponse(f *testing.F) {
	f.Add([]byte(`{"input":["a","b"]}`), []byte(embedAnswer))
	f.Add([]byte(`{"input":"a","encoding_format":"base64"}`), []byte(`{"embeddings":[{"values":[1e308]}]}`))
	f.Fuzz(func(t *testing.T, reqBody, answer []byte) {
		if _, err := translateBody(reqBody, "m"); err != nil {
			return
		}
		out, err := Adapter{}.EmbeddingsResponse(&provider.Request{Body: reqBody}, answer, provider.Endpoint{Model: "m"})
		if err == nil && !json.Valid(out) {
			t.Fatalf("invalid JSON %q", out)
		}
	})
}

// BenchmarkEmbeddingsResponse is one 768-dimension answer translated.
func BenchmarkEmbeddingsResponse(b *testing.B) {
	values := make([]float64, 768)
	for i := range values {
		values[i] = float64(i) / 1000
	}
	v, _ := json.Marshal(values)
	answer := []byte(`{"embeddings":[{"values":` + string(v) + `}]}`)
	req := &provider.Request{Body: []byte(`{"input":"a"}`)}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (Adapter{}).EmbeddingsResponse(req, answer, provider.Endpoint{Model: "m"}); err != nil {
			b.Fatal(err)
		}
	}
}

// translateBody is what NewEmbeddingsRequest sends for an OpenAI body:
// the body parsed, then translated.
func translateBody(body []byte, model string) ([]byte, error) {
	e, err := provider.ParseEmbeddings(body)
	if err != nil {
		return nil, err
	}
	return TranslateEmbeddings(e, model)
}

// A request the caller parsed once (Request.Embeddings) is read from that
// parse, not from Body again: the request and the answer both follow it.
func TestEmbeddingsReadTheCallersParse(t *testing.T) {
	req := &provider.Request{Body: []byte(`{"model":"route"}`), // no input: Body alone would be refused
		Embeddings: &provider.Embeddings{Texts: []string{"a", "b"}, Dimensions: 3}}
	hr, err := Adapter{}.NewEmbeddingsRequest(context.Background(), provider.Endpoint{BaseURL: "http://127.0.0.1:1", Model: "m"}, req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(hr.Body)
	adaptertest.SameJSON(t, body, json.RawMessage(`{"requests":[{"model":"models/m","content":{"parts":[{"text":"a"}]},"outputDimensionality":3},{"model":"models/m","content":{"parts":[{"text":"b"}]},"outputDimensionality":3}]}`))
	if _, err := (Adapter{}).EmbeddingsResponse(req, []byte(embedAnswer), provider.Endpoint{Model: "m"}); err != nil {
		t.Fatalf("the answer's two vectors for the parse's two inputs: %v", err)
	}
}

// A batch of a larger request (provider.EmbeddingsBatcher) numbers its
// vectors from its First, in base64 too, so the joined list counts every
// input once, in order.
func TestEmbeddingsBatchIndices(t *testing.T) {
	if (Adapter{}).MaxEmbeddingsInputs() != 100 {
		t.Fatal("Gemini's batchEmbedContents takes at most 100 requests per call")
	}
	var lists [][]byte
	for _, first := range []int{0, 2} {
		for _, b64 := range []bool{false, true} {
			req := &provider.Request{Embeddings: &provider.Embeddings{Texts: []string{"a", "b"}, First: first, Base64: b64}}
			out, err := Adapter{}.EmbeddingsResponse(req, []byte(embedAnswer), provider.Endpoint{Model: "m"})
			if err != nil {
				t.Fatal(err)
			}
			var list provider.EmbeddingList
			if err := json.Unmarshal(out, &list); err != nil {
				t.Fatal(err)
			}
			if list.Data[0].Index != first || list.Data[1].Index != first+1 {
				t.Errorf("first %d base64 %v: indices %d, %d", first, b64, list.Data[0].Index, list.Data[1].Index)
			}
			if !b64 {
				lists = append(lists, out)
			}
		}
	}
	joined, err := provider.JoinEmbeddings(lists)
	if err != nil {
		t.Fatal(err)
	}
	var all openai.CreateEmbeddingResponse
	if err := json.Unmarshal(joined, &all); err != nil || len(all.Data) != 4 || all.Model != "m" {
		t.Fatalf("%v: %s", err, joined)
	}
	for i, d := range all.Data {
		if d.Index != int64(i) || d.Embedding[0] != []float64{0.6, 1}[i%2] {
			t.Errorf("joined %d: %+v", i, d)
		}
	}
}

package openai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// The example of https://platform.openai.com/docs/api-reference/embeddings/create,
// with a token-array input (which OpenAI accepts) and odd spacing that must
// survive.
const embedBody = `{"input": [[1212, 318, 257, 1332]], "model":"route-emb",  "encoding_format":"base64","dimensions":256}`

const embedAnswer = `{"object":"list","data":[{"object":"embedding","embedding":"AAAAAA==","index":0}],"model":"text-embedding-3-small","usage":{"prompt_tokens":4,"total_tokens":4}}`

// TestEmbeddingsLoopback sends the request over real HTTP: the body arrives
// byte for byte except "model", and the answer comes back untouched.
func TestEmbeddingsLoopback(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/embeddings" || r.Header.Get("Authorization") != "Bearer sk-test" {
			t.Errorf("got %s with authorization %q", r.URL.Path, r.Header.Get("Authorization"))
		}
		body, _ := io.ReadAll(r.Body)
		want := `{"input": [[1212, 318, 257, 1332]], "model":"text-embedding-3-small",  "encoding_format":"base64","dimensions":256}`
		if string(body) != want {
			t.Errorf("body\n got %s\nwant %s", body, want)
		}
		_, _ = io.WriteString(w, embedAnswer)
	}))
	defer srv.Close()
	ep := provider.Endpoint{BaseURL: srv.URL + "/v1", APIKey: "sk-test", Model: "text-embedding-3-small"}
	req := &provider.Request{Body: []byte(embedBody)}
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
	if err != nil || string(out) != embedAnswer {
		t.Fatalf("got %s, %v", out, err)
	}
}

func TestEmbeddingsResponseRefusesUnusableBodies(t *testing.T) {
	for _, b := range []string{`{}`, `{"data":{}}`, `{"data":null}`, `[`} {
		if out, err := (Adapter{}).EmbeddingsResponse(nil, []byte(b), provider.Endpoint{}); err == nil {
			t.Fatalf("%s: got %s", b, out)
		}
	}
}

// An OpenAI-compatible server that ignores encoding_format answers floats
// to a client that asked for base64: the client (the openai Node SDK asks
// for base64 by default) gets base64 of little-endian float32s, as OpenAI
// itself encodes them; every other member stays.
func TestEmbeddingsBase64WhenTheUpstreamAnswersFloats(t *testing.T) {
	floats := `{"object":"list","data":[{"object":"embedding","embedding":[1,1.25,-2.5],"index":0},{"object":"embedding","embedding":"AACAPwAAoD8AAMA/","index":1}],"model":"nomic-embed-text","usage":{"prompt_tokens":4,"total_tokens":4},"id":"x1"}`
	req := &provider.Request{Body: []byte(`{"model":"r","input":["a","b"],"encoding_format":"base64"}`)}
	out, err := Adapter{}.EmbeddingsResponse(req, []byte(floats), provider.Endpoint{})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Object string `json:"object"`
		Data   []struct {
			Object    string `json:"object"`
			Index     int    `json:"index"`
			Embedding any    `json:"embedding"`
		} `json:"data"`
		Model string         `json:"model"`
		Usage map[string]int `json:"usage"`
		ID    string         `json:"id"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	// 1, 1.25, -2.5 as float32 little-endian: 0000803f 0000a03f 000020c0.
	if len(got.Data) != 2 || got.Data[0].Embedding != "AACAPwAAoD8AACDA" || got.Data[1].Embedding != "AACAPwAAoD8AAMA/" ||
		got.Data[0].Object != "embedding" || got.Data[1].Index != 1 || got.Object != "list" ||
		got.Model != "nomic-embed-text" || got.Usage["total_tokens"] != 4 || got.ID != "x1" {
		t.Errorf("got %s", out)
	}
	// Asked for floats (or nothing): the body passes untouched.
	for _, body := range []string{`{"model":"r","input":["a","b"]}`, `{"model":"r","input":["a","b"],"encoding_format":"float"}`} {
		out, err := Adapter{}.EmbeddingsResponse(&provider.Request{Body: []byte(body)}, []byte(floats), provider.Endpoint{})
		if err != nil || string(out) != floats {
			t.Errorf("%s: got %s, %v", body, out, err)
		}
	}
}

// An answer the base64 re-encoding cannot read (nested lists, a number
// float64 refuses) is still a usable answer: it passes as the upstream sent
// it, never a failure that is retried and billed again (found by the
// second hostile review).
func TestEmbeddingsBase64UnreadableAnswerPasses(t *testing.T) {
	req := &provider.Request{Body: []byte(`{"model":"r","input":"a","encoding_format":"base64"}`)}
	for _, body := range []string{
		`{"object":"list","data":[{"object":"embedding","embedding":[[0.5,0.25]],"index":0}],"model":"m"}`,
		`{"object":"list","data":[{"object":"embedding","embedding":[1e999],"index":0}],"model":"m"}`,
	} {
		out, err := Adapter{}.EmbeddingsResponse(req, []byte(body), provider.Endpoint{})
		if err != nil || string(out) != body {
			t.Errorf("%s: got %s, %v; want the body as it came", body, out, err)
		}
	}
}

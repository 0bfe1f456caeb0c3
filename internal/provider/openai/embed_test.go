package openai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
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

// An answer the base64 re-encoding cannot read (a number a float32 cannot
// hold) is still an answer: it passes as the upstream sent it, never a
// failure that is retried and billed again (found by the second hostile
// review). A vector that is not a list of numbers is no answer at all
// (nested lists, nulls: openai-go read them as empty or zero vectors,
// review 63m): it fails, whatever encoding was asked.
func TestEmbeddingsBase64UnreadableAnswerPasses(t *testing.T) {
	for _, format := range []string{"base64", "float"} {
		req := &provider.Request{Body: []byte(`{"model":"r","input":"a","encoding_format":"` + format + `"}`)}
		body := `{"object":"list","data":[{"object":"embedding","embedding":[1e999],"index":0}],"model":"m"}`
		if out, err := (Adapter{}).EmbeddingsResponse(req, []byte(body), provider.Endpoint{}); err != nil || string(out) != body {
			t.Errorf("%s: %s: got %s, %v; want the body as it came", format, body, out, err)
		}
		for _, body := range []string{
			`{"object":"list","data":[{"object":"embedding","embedding":[[0.5,0.25]],"index":0}],"model":"m"}`,
			`{"object":"list","data":[{"object":"embedding","embedding":[null,null],"index":0}],"model":"m"}`,
			`{"object":"list","data":[{"object":"embedding","embedding":["0.1",true,{}],"index":0}],"model":"m"}`,
		} {
			if out, err := (Adapter{}).EmbeddingsResponse(req, []byte(body), provider.Endpoint{}); err == nil {
				t.Errorf("%s: %s: passed as %s; want an error", format, body, out)
			}
		}
	}
}

// An answer of far more entries than inputs is refused as soon as it
// passes the count, before it is all read (review 63m: 3.7 million entries
// for one input took 941 MB); one of short numbers a client asked as
// base64 is never re-encoded past what the gateway holds (a 65 MB answer
// of zeros was written as 173 MB).
func TestEmbeddingsHostileAnswersAreBounded(t *testing.T) {
	req := &provider.Request{Body: []byte(`{"model":"r","input":"a","encoding_format":"base64"}`)}
	many := `{"object":"list","data":[` + strings.TrimSuffix(strings.Repeat(`{"embedding":[0]},`, 1000), ",") + `],"model":"m"}`
	if _, err := (Adapter{}).EmbeddingsResponse(req, []byte(many), provider.Endpoint{}); err == nil || !strings.Contains(err.Error(), "more than 1 embeddings") {
		t.Errorf("1,000 entries for one input: %v, want refused at the second", err)
	}
	zeros := `{"object":"list","data":[{"embedding":[` + strings.TrimSuffix(strings.Repeat("0,", maxReencoded/3), ",") + `],"index":0}],"model":"m"}`
	out, err := (Adapter{}).EmbeddingsResponse(req, []byte(zeros), provider.Endpoint{})
	if err != nil || len(out) > maxReencoded+len(zeros) || len(out) != len(zeros) {
		t.Errorf("%d bytes of zeros asked as base64: %d bytes out, %v; want the answer as it came", len(zeros), len(out), err)
	}
}

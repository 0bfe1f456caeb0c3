package openai

import (
	"context"
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

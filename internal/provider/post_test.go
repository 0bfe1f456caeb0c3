package provider

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"reflect"
	"testing"
)

type postCtxKey struct{}

// NewPost builds the request net/http's NewRequestWithContext builds, for
// every URL shape a base_url may have, from the cache and before it.
func TestNewPostIsNewRequest(t *testing.T) {
	ctx := context.WithValue(context.Background(), postCtxKey{}, "v")
	for _, base := range []string{"https://api.openai.com/v1", "http://127.0.0.1:8080", "http://localhost:/v1",
		"http://[::1]:9/x", "http://[::1]:/x", "https://user:pw@h.example/v1%2Fa", "https://h.example/v1?api-version=2024-10-21",
		"https://H.Example/V1/"} {
		for _, body := range [][]byte{[]byte(`{"model":"m"}`), nil} {
			for range 2 { // the second from the cache
				want, werr := http.NewRequestWithContext(ctx, http.MethodPost, base+"/chat/completions", bytes.NewReader(body))
				h := http.Header{"Accept": {"application/json"}}
				got, gerr := NewPost(ctx, base, "/chat/completions", body, h)
				if (werr == nil) != (gerr == nil) {
					t.Fatalf("%s: error %v, net/http %v", base, gerr, werr)
				}
				if werr != nil {
					continue
				}
				if got.Method != want.Method || got.Host != want.Host || got.Proto != want.Proto || got.ProtoMajor != want.ProtoMajor ||
					got.ProtoMinor != want.ProtoMinor || got.ContentLength != want.ContentLength || got.Context() != ctx {
					t.Errorf("%s: %+v\nnet/http %+v", base, got, want)
				}
				if !reflect.DeepEqual(got.URL, want.URL) || got.URL.String() != want.URL.String() {
					t.Errorf("%s: URL %#v, net/http %#v", base, got.URL, want.URL)
				}
				if !reflect.DeepEqual(got.Header, h) {
					t.Errorf("%s: header %v", base, got.Header)
				}
				if (got.Body == http.NoBody) != (want.Body == http.NoBody) || (got.GetBody == nil) != (want.GetBody == nil) {
					t.Errorf("%s: body %T/%v, net/http %T/%v", base, got.Body, got.GetBody == nil, want.Body, want.GetBody == nil)
				}
				for _, r := range []io.ReadCloser{got.Body, mustGet(t, got), mustGet(t, got)} {
					if b, _ := io.ReadAll(r); !bytes.Equal(b, body) {
						t.Errorf("%s: body %q, want %q", base, b, body)
					}
				}
			}
		}
	}
	u := postURL("https://api.openai.com/v1", "/chat/completions")
	if a, _ := NewPost(ctx, "https://api.openai.com/v1", "/chat/completions", nil, nil); a.URL == u {
		t.Error("the request holds the cached URL itself, not a copy")
	}
}

func mustGet(t *testing.T, r *http.Request) io.ReadCloser {
	t.Helper()
	b, err := r.GetBody()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A base_url that does not parse gets net/http's error.
func TestNewPostBadURL(t *testing.T) {
	if _, err := NewPost(context.Background(), "http://a b", "/x", nil, nil); err == nil {
		t.Fatal("no error")
	}
}

package provider

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
)

// NewPost is http.NewRequestWithContext(ctx, "POST", base+path,
// bytes.NewReader(body)) with header h (nil: an empty one), without
// parsing the URL again for every request: an endpoint's few URLs are
// parsed once and copied (docs/benchmarks.md, "Round 5").
// TestNewPostIsNewRequest holds it to net/http's.
func NewPost(ctx context.Context, base, path string, body []byte, h http.Header) (*http.Request, error) {
	u := postURL(base, path)
	if u == nil { // not parsed (an error, or past the cache's bound): net/http's own way
		hr, err := http.NewRequestWithContext(ctx, http.MethodPost, base+path, bytes.NewReader(body))
		if err == nil && h != nil {
			hr.Header = h
		}
		return hr, err
	}
	if h == nil {
		h = make(http.Header)
	}
	uc := *u
	r := http.Request{Method: http.MethodPost, URL: &uc, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header: h, Host: uc.Host, ContentLength: int64(len(body))}
	if len(body) == 0 {
		r.Body = http.NoBody
		r.GetBody = func() (io.ReadCloser, error) { return http.NoBody, nil }
	} else {
		r.Body = io.NopCloser(bytes.NewReader(body))
		r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	}
	return r.WithContext(ctx), nil
}

type postKey struct{ base, path string }

var (
	postURLs sync.Map // postKey → *url.URL, never changed once stored
	postN    atomic.Int64
)

// maxPostURLs bounds the parsed URLs kept: configured base URLs are few,
// and reloads add a handful each.
const maxPostURLs = 1024

// postURL returns base+path parsed as NewRequest parses it, or nil when it
// does not parse or cannot be kept.
func postURL(base, path string) *url.URL {
	k := postKey{base, path}
	if u, ok := postURLs.Load(k); ok {
		return u.(*url.URL)
	}
	u, err := url.Parse(base + path)
	if err != nil || postN.Add(1) > maxPostURLs {
		return nil
	}
	u.Host = removeEmptyPort(u.Host)
	postURLs.Store(k, u)
	return u
}

// removeEmptyPort strips the empty port of "host:", as net/http's
// NewRequest does.
func removeEmptyPort(host string) string {
	if strings.LastIndex(host, ":") > strings.LastIndex(host, "]") {
		return strings.TrimSuffix(host, ":")
	}
	return host
}

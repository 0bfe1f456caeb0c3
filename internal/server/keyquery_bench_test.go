package server

import (
	"net/http"
	"net/url"
	"testing"
)

// BenchmarkKeyFromQuery is what keyFromQuery, run first on every request
// (Server.ServeHTTP, since round 69), costs a request without a query, one
// whose query holds no key (a stream's ?alt=sse) and one with ?key=
// (moved into x-goog-api-key; the request's URL and header are set back
// each time, which the figure includes). docs/benchmarks.md, "Round 38".
func BenchmarkKeyFromQuery(b *testing.B) {
	for _, c := range []struct{ name, query string }{
		{"none", ""}, {"alt", "alt=sse"}, {"key", "alt=sse&key=AIzaSyBench0123456789"},
	} {
		b.Run(c.name, func(b *testing.B) {
			r := &http.Request{URL: &url.URL{Path: "/v1/chat/completions", RawQuery: c.query}, Header: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				r.URL.RawQuery = c.query
				delete(r.Header, "X-Goog-Api-Key")
				keyFromQuery(r)
			}
			if c.name == "key" && (r.URL.RawQuery != "alt=sse" || r.Header.Get("X-Goog-Api-Key") == "") {
				b.Fatalf("query %q header %v", r.URL.RawQuery, r.Header)
			}
		})
	}
}

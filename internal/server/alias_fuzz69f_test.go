package server

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/config"
)

// FuzzAlias (fuzz 69f): a request under /openai/v1/ (unprefixed) is served
// as the same request sent to /v1/... would be: the same method, a path
// with its leading slash, the same path and escaping, the same handler of
// the mux (or the same redirect or 404); the request it came as is left
// untouched, and one not under the alias is itself.
func FuzzAlias(f *testing.F) {
	for _, s := range []string{"/openai/v1/chat/completions", "/openai/v1/files/a%2Fb", "/openai%2Fv1/chat/completions",
		"/openai/v1%2Fchat/completions", "/openai/v1/../metrics", "/openai/v1/./models/x?y=1", "/openai/v1//responses",
		"/openai/v1/%2E%2E/v1/health", "/openai/v1/models/%2F..%2F", "/openai/v1/", "/openai/v1", "/OpenAI/v1/models",
		"/openai/v1/messages%3Fx", "/openai/v1/chat/completions#f"} {
		f.Add("POST", s)
	}
	f.Add("CONNECT", "/openai/v1/chat/completions")
	f.Add("GET", "*")
	s := New(&State{Config: &config.Config{}}, nil, nil, nil)
	f.Fuzz(func(t *testing.T, method, target string) {
		r := parseRequest(method, target)
		if r == nil {
			return
		}
		path, raw := r.URL.Path, r.URL.RawPath
		r2 := unprefixed(r)
		if r.URL.Path != path || r.URL.RawPath != raw {
			t.Fatalf("%s: the request changed: %q %q", target, r.URL.Path, r.URL.RawPath)
		}
		if r2.Method != r.Method {
			t.Fatalf("%s: method %q became %q", target, r.Method, r2.Method)
		}
		if r2 == r {
			return
		}
		if !strings.HasPrefix(r2.URL.Path, "/") || !strings.HasPrefix(r2.URL.EscapedPath(), "/") {
			t.Fatalf("%s: served as %q (%q)", target, r2.URL.Path, r2.URL.EscapedPath())
		}
		rest, ok := strings.CutPrefix(target, vendorPrefix)
		if !ok {
			return // an absolute target; its path alone is aliased
		}
		direct := parseRequest(method, rest)
		if direct == nil {
			t.Fatalf("%s is served, %s would not be read", target, rest)
		}
		if direct.URL.Path != r2.URL.Path || direct.URL.EscapedPath() != r2.URL.EscapedPath() || direct.URL.RawQuery != r2.URL.RawQuery {
			t.Fatalf("%s served as %q (%q), %s is %q (%q)", target, r2.URL.Path, r2.URL.EscapedPath(), rest, direct.URL.Path, direct.URL.EscapedPath())
		}
		_, ap := s.mux.Handler(r2)
		_, dp := s.mux.Handler(direct)
		if ap != dp || isChatPath(r2) && dp != chatPath {
			t.Fatalf("%s: pattern %q, %s: %q", target, ap, rest, dp)
		}
		if dp == "/" || dp == "" { // a 404 or a redirect: the same answer
			a, d := httptest.NewRecorder(), httptest.NewRecorder()
			h, _ := s.mux.Handler(r2)
			h.ServeHTTP(a, r2)
			h, _ = s.mux.Handler(direct)
			h.ServeHTTP(d, direct)
			if a.Code != d.Code || a.Header().Get("Location") != d.Header().Get("Location") {
				t.Fatalf("%s: %d %q, %s: %d %q", target, a.Code, a.Header().Get("Location"), rest, d.Code, d.Header().Get("Location"))
			}
		}
	})
}

// parseRequest reads the request line method target as a server would,
// nil where it is not one.
func parseRequest(method, target string) *http.Request {
	if strings.ContainsAny(method+target, " \r\n\t") || method == "" || target == "" {
		return nil
	}
	r, err := http.ReadRequest(bufio.NewReader(strings.NewReader(method + " " + target + " HTTP/1.1\r\nHost: h\r\n\r\n")))
	if err != nil {
		return nil
	}
	return r
}

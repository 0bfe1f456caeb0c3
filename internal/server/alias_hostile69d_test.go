package server

import (
	"net/http/httptest"
	"testing"
)

// Hostile 69d: /openai/v1/... is served as /v1/... (groq-sdk), and a path
// escaped in the prefix itself is not the SDK's. "/openai%2Fv1/chat/completions"
// cut its escaped RawPath to "%2Fv1/…", which the mux read as a path
// without its leading slash and answered with a 307 to
// "/%252Fv1/chat/completions": a POST the client's HTTP library re-sent,
// body and all, to a path that does not exist. Such a path is left as it
// came (a 404, as "/v1%2Fchat/completions" is).
func TestHostile69dEscapedAliasIsNotUnprefixed(t *testing.T) {
	for _, tc := range []struct{ target, path, raw string }{
		{"/openai/v1/chat/completions", "/v1/chat/completions", ""},
		{"/openai/v1/files/a%2Fb", "/v1/files/a/b", "/v1/files/a%2Fb"},
		{"/openai%2Fv1/chat/completions", "/openai/v1/chat/completions", "/openai%2Fv1/chat/completions"},
		{"/openai/v1%2Fchat/completions", "/openai/v1/chat/completions", "/openai/v1%2Fchat/completions"},
	} {
		r := unprefixed(httptest.NewRequest("GET", tc.target, nil))
		if r.URL.Path != tc.path || r.URL.RawPath != tc.raw {
			t.Errorf("%s: served as path %q raw %q, want %q raw %q", tc.target, r.URL.Path, r.URL.RawPath, tc.path, tc.raw)
		}
	}
}

package dispatch

import (
	"net/http"
	"strings"
	"testing"
)

// The record keeps the id an upstream gave its answer, under the header its
// vendor uses, only when it is a plain token.
func TestUpstreamRequestID(t *testing.T) {
	for _, c := range []struct {
		name, header, value, want string
	}{
		{"OpenAI", "x-request-id", "req_8d9b3f2c1e0a4b5c9d7e6f5a4b3c2d1e", "req_8d9b3f2c1e0a4b5c9d7e6f5a4b3c2d1e"},
		{"Anthropic", "request-id", "req_011CSHoEeqs5C35K2UUqR7Fy", "req_011CSHoEeqs5C35K2UUqR7Fy"},
		{"Azure", "apim-request-id", "3f1e2d4c-5b6a-4789-9abc-def012345678", "3f1e2d4c-5b6a-4789-9abc-def012345678"},
		{"AWS", "x-amzn-RequestId", "c6b2f1a4-1234-4bcd-8e9f-0a1b2c3d4e5f", "c6b2f1a4-1234-4bcd-8e9f-0a1b2c3d4e5f"},
		{"not a token", "x-request-id", "req <script>", ""},
		{"too long", "x-request-id", strings.Repeat("a", 129), ""},
		{"none", "x-other", "abc", ""},
	} {
		h := http.Header{}
		h.Set(c.header, c.value)
		if got := upstreamRequestID(h); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

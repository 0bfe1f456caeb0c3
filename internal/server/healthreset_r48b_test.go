package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// r48bDo sends method path with body and headers (name, value pairs) and
// returns the status and body; it sets no Content-Type of its own.
func r48bDo(t *testing.T, url, method, path, body string, hdr ...string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url+path, strings.NewReader(body))
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := (&http.Client{Timeout: time.Minute}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Review 48b: docs/security.md says the front "refuses a POST whose
// Content-Type is not JSON (415) ... a missing Content-Type is refused too
// (a page can send a typeless body without a preflight)", for every path.
// POST /v1/health/reset, the one operator endpoint that changes state,
// reads any body: a page of a cors.allowed_origins origin (trusted with
// client keys, not with the operator's) sends a text/plain POST with no
// preflight, and the operator's browser adds the Basic credentials it
// cached for the console. The reset runs; a JSON-only reset would need a
// preflight, whose answer allows no credentials, and never be sent.
func TestHealthResetRefusesABodyThatIsNotJSON_r48b(t *testing.T) {
	up := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("m", "hello")}
	})
	t.Cleanup(up.Close)
	url, _, _ := r37aGateway(t, `
admin_keys: [adm-r48b-abcdefgh]
cors: {allowed_origins: ["https://chat.example.com"]}
`+teamAConfig("openai"), up, nil)
	for _, ct := range []string{"text/plain;charset=UTF-8", "application/x-www-form-urlencoded", ""} {
		hdr := []string{"Origin", "https://chat.example.com", "Authorization", "Basic b3BlcmF0b3I6YWRtLXI0OGItYWJjZGVmZ2g="} // operator:adm-r48b-abcdefgh
		if ct != "" {
			hdr = append(hdr, "Content-Type", ct)
		}
		if st, b := r48bDo(t, url, http.MethodPost, "/v1/health/reset", `{"provider":"p"}`, hdr...); st != http.StatusUnsupportedMediaType {
			t.Errorf("Content-Type %q: %d %s, want 415 as every other POST (docs/security.md)", ct, st, b)
		}
	}
}

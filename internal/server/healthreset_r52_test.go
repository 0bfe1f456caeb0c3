package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Operator review 52: docs/deploy.md says an unknown provider or target is
// a 404 naming the configured ones; an unknown target named none, and a
// reset naming a target alone was told its provider "" was unknown.
func TestHealthResetNamesWhatItKnows(t *testing.T) {
	up := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("m", "hello")}
	})
	t.Cleanup(up.Close)
	url, _, _ := r37aGateway(t, "admin_keys: [adm-r52-abcdefgh]\n"+teamAConfig("openai"), up, nil)
	hdr := []string{"Authorization", "Bearer adm-r52-abcdefgh", "Content-Type", "application/json"}
	for _, c := range []struct {
		body string
		st   int
		want string
	}{
		{`{"provider":"p","target":"mm"}`, http.StatusNotFound, "its targets: m"},
		{`{"target":"m"}`, http.StatusBadRequest, "target m is served by p"},
		{`{"provider":"q"}`, http.StatusNotFound, "providers: p"},
	} {
		st, b := r48bDo(t, url, http.MethodPost, "/v1/health/reset", c.body, hdr...)
		if st != c.st || !strings.Contains(b, c.want) {
			t.Errorf("%s: %d %s; want %d naming %q", c.body, st, b, c.st, c.want)
		}
	}
}

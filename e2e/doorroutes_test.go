package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// doorBody is a request at a door, its "model" written %s.
type doorBody struct{ path, body string }

// throughEveryRoute sends each door's body to every route of r40gRoutes
// (one OpenAI, one Claude, one Gemini target) and calls check with what
// that route's upstream was sent, after a 200; a failure is the test's.
func throughEveryRoute(t *testing.T, g *gateway, fs map[string]*upstreamtest.Server, doors []doorBody, check func(path, route, upstream, sent string)) {
	t.Helper()
	for _, d := range doors {
		for _, rt := range r40gRoutes {
			before := len(fs[rt.upstream].Requests())
			r := g.raw(t, http.MethodPost, d.path, strings.Replace(d.body, "%s", rt.route, 1), "Authorization", "Bearer client-key")
			if r.Status != http.StatusOK {
				t.Errorf("%s %s: %d %s", d.path, rt.route, r.Status, r.Body)
				continue
			}
			reqs := fs[rt.upstream].Requests()
			if len(reqs) != before+1 {
				t.Fatalf("%s %s: %d upstream calls", d.path, rt.route, len(reqs)-before)
			}
			check(d.path, rt.route, rt.upstream, string(reqs[len(reqs)-1].Body))
		}
	}
}

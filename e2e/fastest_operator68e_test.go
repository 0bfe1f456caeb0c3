package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Operator review 68e: a `fastest` route ranks each target by its endpoints'
// measured latency. A target whose fast endpoint is cooling (here its key was
// rejected: the account cools for an hour) is served by its next endpoint,
// which is slow; the route must rank the target by what will serve it, not by
// the sample of an endpoint it will not reach. Before, the cooling endpoint's
// old sample kept the target first for the whole cooldown: every request went
// to the slow backup while another target answered four times as fast (seen
// live: a gpt target at 80 ms kept ahead of a 1 ms one by its retired
// endpoint's 0.7 ms sample, for 24 hours).
func TestFastestRanksATargetByTheEndpointsThatServeIt_operator68e(t *testing.T) {
	slowBackup := ok("model-a", "a-backup")
	slowBackup.Delay = 200 * time.Millisecond
	steady := ok("model-b", "b")
	steady.Delay = 50 * time.Millisecond
	fs := fakes(t, map[string]upstreamtest.Script{
		// p: a's first endpoint answers fast once, then its key is rejected.
		"p1": script(ok("model-a", "a"), corpus(t, "openai-invalid-api-key-401")),
		"p2": script(slowBackup),
		"q":  script(steady),
	})
	cfg := `
providers:
  - {name: p1, dialect: openai, base_url: "{p1}", api_key: ` + secret + `}
  - {name: p2, dialect: openai, base_url: "{p2}", api_key: ` + secret + `}
  - {name: q, dialect: openai, base_url: "{q}", api_key: ` + secret + `}
targets:
  - {name: a, model: model-a, providers: [p1, p2]}
  - {name: b, model: model-b, providers: [q]}
routes:
  - {name: r, strategy: fastest, targets: [a, b]}
`
	g := start(t, cfg, fs)
	n := 0
	send := func() []string {
		t.Helper()
		g.post(t, "r", "").wantStatus(t, 200)
		n++
		d := g.recs.wait(t, n)
		var path []string
		for _, a := range d.Attempts {
			path = append(path, a.Target+"/"+a.Provider+" "+string(a.Class))
		}
		return path
	}
	// a is measured fast at p1, b at 50 ms; then p1's key is rejected and the
	// request moves to p2, which serves a in 200 ms.
	for i, want := range []string{"a/p1 ", "b/q ", "a/p1 auth,a/p2 "} {
		if got := strings.Join(send(), ","); got != want {
			t.Fatalf("request %d: %s, want %s", i+1, got, want)
		}
	}
	// p1 cools for account_cooldown (1h): a is served by p2 (200 ms), b by q
	// (50 ms). b goes first.
	for i := range 3 {
		if got := strings.Join(send(), ","); got != "b/q " {
			t.Errorf("request %d after p1 cooled: %s, want b/q (a's only usable endpoint takes 200 ms)", i+4, got)
		}
	}
}

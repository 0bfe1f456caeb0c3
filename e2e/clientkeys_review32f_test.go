package e2e

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/config"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 32f (configuration and the CLI).

// A key listed twice — once as a bare (legacy) entry, once as a mapping
// with key_sha256, routes and a rate — loads without an error (docs/config.md
// lists "two entries with the same key" among client_keys errors), and the
// first entry wins every request: the holder of the key restricted to route
// "cheap" at 1 request a minute calls "deep" as often as it likes, and its
// records are not even named "ci".
func TestClientKeyListedTwiceThroughItsHashKeepsItsLimits(t *testing.T) {
	const key = "ci-secret-key-32f-0001"
	sum := sha256.Sum256([]byte(key))
	fs := fakes(t, map[string]upstreamtest.Script{"p": func(int, upstreamtest.Request) upstreamtest.Step { return ok("m", "hi") }})
	yaml := `
client_keys:
  - "` + key + `"
  - {name: ci, key_sha256: "` + hex.EncodeToString(sum[:]) + `", routes: [cheap], rate: {requests_per_minute: 1}}
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: sk-provider-key-32f}
targets:
  - {name: big, model: m, providers: [p]}
  - {name: small, model: m, providers: [p]}
routes:
  - {name: deep, targets: [big]}
  - {name: cheap, targets: [small]}
`
	// Fixed by refusing the file (its error must not show the key): then
	// there is nothing to serve.
	if _, err := config.Parse("c.yaml", []byte(strings.ReplaceAll(yaml, "{p}", fs["p"].URL)), nil); err != nil {
		if strings.Contains(err.Error(), key) {
			t.Fatalf("refused, but the error shows the key: %v", err)
		}
		t.Logf("refused: %v", err)
		return
	}
	g := start(t, yaml, fs)
	auth := []string{"Authorization", "Bearer " + key}
	var served []int
	for range 3 {
		served = append(served, g.post(t, "deep", "", auth...).Status)
	}
	d := g.recs.wait(t, 1)
	if served[0] == 200 || served[1] == 200 || served[2] == 200 {
		t.Fatalf("the key restricted to route cheap at 1 request/minute called route deep: statuses %v, recorded client %q", served, d.Client)
	}
}
